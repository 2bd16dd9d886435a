/**
 * GET /api/public/{publicId} (docs/api.md#public-links): what a public link's page shows (the
 * template's name, its sender, its language, the Turnstile site key), or 404 / 410.
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/DescribePublicLink.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('DescribePublicLink', {
  methods: ['GET'],
  authLevel: 'anonymous',
  route: 'public/{publicId}',
  access: 'public',
  loadHandler: async () => (await import('../handlers/DescribePublicLink.js')).describePublicLinkHandler,
});

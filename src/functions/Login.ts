/**
 * POST /api/Login (docs/api.md#accounts).
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/Login.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('Login', {
  methods: ['POST'],
  authLevel: 'anonymous',
  route: 'Login',
  access: 'public',
  limitPerClientAddress: true,
  loadHandler: async () => (await import('../handlers/Login.js')).loginUser,
});

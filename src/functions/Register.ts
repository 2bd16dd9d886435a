/**
 * POST /api/Register (docs/api.md#accounts).
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/Register.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('Register', {
  methods: ['POST'],
  authLevel: 'anonymous',
  route: 'Register',
  access: 'public',
  limitPerClientAddress: true,
  loadHandler: async () => (await import('../handlers/Register.js')).registerUser,
});

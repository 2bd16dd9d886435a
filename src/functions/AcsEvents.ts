/**
 * POST /api/events/acs (docs/api.md#events-from-communication-services): Azure Communication Services'
 * SMS events through an Event Grid subscription (the validation handshake, replies such as STOP, and
 * delivery reports), authenticated by the shared secret `ACS_EVENT_SECRET`.
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/AcsEvents.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('AcsEvents', {
  methods: ['POST'],
  authLevel: 'anonymous',
  route: 'events/acs',
  // Event Grid holds no account: the handler checks the shared secret before it reads anything.
  access: 'public',
  loadHandler: async () => (await import('../handlers/AcsEvents.js')).receiveAcsEvents,
});

/**
 * The console's webhook form offers every event type the service delivers (docs/api.md#webhooks):
 * its list in `src/web/console/webhooks.js` (a page script, served as it is) equals
 * `WEBHOOK_EVENT_TYPES`, so a webhook made in the console with every box ticked hears of everything.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { expect, test } from '@jest/globals';
import { WEBHOOK_EVENT_TYPES } from '../../../src/lib/notifications/outbox.js';

test('the console offers exactly the webhook event types the service delivers, in their order', async () => {
  const source = await readFile(path.resolve(process.cwd(), 'src', 'web', 'console', 'webhooks.js'), 'utf8');
  const list = /var WEBHOOK_EVENTS = \[([^\]]*)\]/.exec(source);
  expect(list).not.toBeNull();
  const offered = [...list![1]!.matchAll(/'([^']+)'/g)].map((match) => match[1]);
  expect(offered).toEqual([...WEBHOOK_EVENT_TYPES]);
});

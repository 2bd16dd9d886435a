/**
 * A B-LTA completion whose OCSP responder fails (docs/seal-levels.md, docs/api.md#the-recipients-api),
 * against the real PKI on loopback of `tests/support/pki.ts`: the recipient's action is kept, the
 * envelope stays sent and health is degraded; once the responder is back, the sweeper's retry seals
 * at B-LTA, as pdfsig, qpdf and openssl check. The other seal-level tests are `sealLevels.test.ts`
 * (this half is a file of its own so that the two run side by side: each waits on the network).
 */
import { describe, test } from '@jest/globals';
import type { ServerMode } from '../support/pki.js';
import { expectCompletionRetriedOnceBack, sealLevelsForFile } from '../support/sealLevels.js';

const bench = sealLevelsForFile();

describe('a completion that cannot reach its level fails cleanly and is retried (docs/api.md#the-recipients-api, docs/seal-levels.md)', () => {
  const cases: [string, ServerMode][] = [
    ['the OCSP responder is down', 'down'],
    ['the OCSP responder answers garbage', 'garbage'],
    ['the OCSP responder takes over 10 s', 'slow'],
  ];
  test.each(cases)('%s: the action is kept, the envelope stays sent, health is degraded; once it is back, the sweeper completes it at B-LTA', async (_name, mode) => {
    await expectCompletionRetriedOnceBack(bench, 'ocsp', mode, 'urn:problem:revocation-unavailable');
  });
});

/**
 * Every real PDF of the corpus through the API (docs/api.md#document-checks): each completes
 * to a sealed PDF whose hash matches and whose seal verifies, or is refused with a 4xx problem; never a
 * 5xx, and the original in Blob storage is never changed. The detailed checks of each sealed file
 * (qpdf, poppler errors, form values, page counts) are in tests/pdf/corpus.test.ts.
 */
import { createHash } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { describe, expect, test } from '@jest/globals';
import { getServices } from '../../src/lib/services.js';
import { CORPUS_DIR, corpusPdf, createEnvelopeWithDocument, expectProblem, serviceForFile, type TestService, type TestUser } from '../support/service.js';
import { tempFile, tool } from '../support/tools.js';

let env: TestService;
let user: TestUser;
const files = (await readdir(CORPUS_DIR)).filter((file) => file.endsWith('.pdf')).sort();

serviceForFile((started) => ({ env, owner: user } = started));

describe('the corpus through the API', () => {
  test('holds every file of the corpus', () => {
    expect(files.length).toBeGreaterThanOrEqual(27);
  });

  test.each(files)('%s is sealed or refused with a clear 4xx, and its original stays unchanged', async (file) => {
    const original = await corpusPdf(file);
    const id = await createEnvelopeWithDocument(env.api, user, original, file);
    await env.api.request('PUT', `/envelopes/${id}`, { token: user.token, json: { signers: [{ email: 'signer@example.com', name: 'Signer' }] } });
    const completed = await env.api.request('POST', `/envelopes/${id}/complete`, { token: user.token });

    if (completed.status === 200) {
      const sealed = Buffer.from(await (await fetch(completed.body.signedUrl)).arrayBuffer());
      expect(createHash('sha256').update(sealed).digest('hex')).toBe(completed.body.hash);
      const report = (await tool('pdfsig', ['-nocert', await tempFile(sealed)])).stdout;
      const seal = report.split(/Signature #\d+:/).at(-1) ?? '';
      expect(seal).toContain('Signature Validation: Signature is Valid.');
      expect(seal).toContain('Total document signed');
      // Every signature that is signed (empty signature fields have no validation line) is valid.
      expect(report.match(/Signature Validation: .*/g)?.every((line) => line === 'Signature Validation: Signature is Valid.')).toBe(true);
    } else {
      expectProblem(completed, 422);
      expect(completed.body.type).toMatch(/^urn:problem:document-/);
    }
    const stored = await getServices().storage.containers.documents.getBlockBlobClient(`${id}/${file}`).downloadToBuffer();
    expect(stored.equals(original)).toBe(true);
  });
});

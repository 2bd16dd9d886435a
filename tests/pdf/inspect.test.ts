/** inspectDocument: the checks of sealing, without sealing (docs/api.md#create-an-envelope-and-upload-its-document: checked on send too). */
import { describe, expect, test } from '@jest/globals';
import { inspectDocument } from '../../src/lib/pdf/index.js';
import { corpusFile } from './pdfTools.js';

describe('inspectDocument', () => {
  test.each([
    ['normal.pdf', 2],
    ['us_constitution.pdf', 19],
    ['signed_by_other_tool.pdf', 2],
    ['encrypted_empty_user_password.pdf', 1],
  ])('%s can be sealed: %d pages', async (file, pages) => {
    expect(await inspectDocument({ document: await corpusFile(file) })).toEqual({ pageCount: pages });
  });

  test.each([
    ['encrypted_new.pdf', 'urn:problem:document-encrypted'],
    ['invalid_root_ref.pdf', 'urn:problem:document-damaged'],
  ])('%s is refused with 422 %s, as sealing would refuse it', async (file, type) => {
    await expect(inspectDocument({ document: await corpusFile(file) })).rejects.toMatchObject({ status: 422, type });
  });

  test('bytes that only start like a PDF are refused as damaged', async () => {
    await expect(inspectDocument({ document: Buffer.from('%PDF-1.7\nnot a pdf at all') })).rejects.toMatchObject({ status: 422, type: 'urn:problem:document-damaged' });
  });
});

/**
 * Form fields no screen shows stay off the sealed page (docs/api.md#what-the-service-removes-from-documents-and-why):
 * sealing flattens each field's value into the page, so a widget flagged `Hidden` or `NoView`
 * (ISO 32000-2 12.5.3) without `Print` — which the upload accepts, as neither screen nor paper shows
 * it — must not gain a visible value there: the signer never saw it. pdftotext reads the sealed page.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { sealDocument } from '../../src/lib/pdf/index.js';
import { pdfFromObjects } from './craftedPdfs.js';
import { certificateFor, developmentSealer, pdftotext, scratchDir } from './pdfTools.js';

let scratch: Awaited<ReturnType<typeof scratchDir>>;

beforeAll(async () => {
  scratch = await scratchDir();
});

afterAll(async () => {
  await scratch.remove();
});

/** A one-page form with a visible field and one more field whose widget carries annotation flags `flags`. */
function formWithFlaggedField(flags: number): Buffer {
  // Values as UTF-16BE text strings (ISO 32000-2 7.9.2.2): the Greek letter makes the service shape and
  // draw them itself rather than leave them to the PDF library's appearance generator.
  const utf16 = (value: string): string => `<FEFF${Buffer.from(value, 'utf16le').swap16().toString('hex').toUpperCase()}>`;
  const widget = (id: string, f: number, rect: string, value: string): string =>
    `<< /Type /Annot /Subtype /Widget /F ${f} /P 3 0 R /FT /Tx /T (${id}) /V ${utf16(value)} /DA (/Helv 12 Tf 0 g) /Rect ${rect} >>`;
  return pdfFromObjects({
    1: { body: '<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [10 0 R 11 0 R] /NeedAppearances true /DA (/Helv 0 Tf 0 g) /DR << /Font << /Helv 5 0 R >> >> >> >>' },
    2: { body: '<< /Type /Pages /Kids [3 0 R] /Count 1 >>' },
    3: { body: '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Annots [10 0 R 11 0 R] /Resources << /Font << /F1 5 0 R >> >> >>' },
    4: { body: '<< >>', stream: 'BT /F1 12 Tf 72 740 Td (Terms of sale) Tj ET\n' },
    5: { body: '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>' },
    10: { body: widget('shown', 4, '[72 600 300 630]', 'Shown value Ω') },
    11: { body: widget('unseen', flags, '[72 500 300 530]', 'Unseen value Ω') },
  });
}

describe('a field no screen shows is not drawn on the sealed page', () => {
  test.each([
    ['NoView', 32],
    ['Hidden', 2],
  ])('%s without Print: its value stays off the page, the visible field\'s is drawn', async (_name, flags) => {
    const document = formWithFlaggedField(flags);
    const { sealingP12, sealingPassphrase } = await developmentSealer();
    const result = await sealDocument({ document, certificate: certificateFor(document), sealingP12, sealingPassphrase });
    const sealed = await scratch.write(`sealed-${flags}.pdf`, result.sealed);
    const page = (await pdftotext(sealed)).split('\f')[0] ?? '';
    expect(page).toContain('Shown value');
    expect(page).not.toContain('Unseen');
  });
});

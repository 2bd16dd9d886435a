/**
 * A generated long document for the completion benchmark: `pages` US-Letter pages of text in
 * Helvetica (a standard font, nothing embedded), each page its own content stream, as a report
 * exported from an office suite would be. Made with @libpdf/core (bench code may import it).
 */
import { PDF, StandardFonts } from '@libpdf/core';

export async function generateLongPdf(pages: number): Promise<Uint8Array> {
  const pdf = PDF.create();
  for (let index = 0; index < pages; index++) {
    const page = pdf.addPage({ size: 'letter' });
    page.drawText(`Master services agreement, page ${index + 1} of ${pages}`, { x: 72, y: 720, size: 14, font: StandardFonts.HelveticaBold });
    for (let line = 0; line < 30; line++) {
      page.drawText(`${index + 1}.${line + 1} The parties agree that clause ${line + 1} applies to every obligation in section ${index + 1}.`, {
        x: 72,
        y: 690 - line * 20,
        size: 10,
        font: StandardFonts.Helvetica,
      });
    }
  }
  return await pdf.save();
}

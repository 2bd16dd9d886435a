/**
 * LibreOffice Writer as an independent PDF producer: converts a flat ODT document (`.fodt`, the
 * OpenDocument format as one XML file) to PDF with `soffice --headless`, form controls exported as
 * AcroForm fields. Each conversion runs with its own throwaway user profile
 * (`-env:UserInstallation`), so parallel runs never share or lock one.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { tool } from './tools.js';

/** The namespaces a Writer document with form controls declares ("ooo:" names the control types). */
export const FODT_NAMESPACES = [
  'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"',
  'xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0"',
  'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"',
  'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0"',
  'xmlns:form="urn:oasis:names:tc:opendocument:xmlns:form:1.0"',
  'xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0"',
  'xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0"',
  'xmlns:xlink="http://www.w3.org/1999/xlink"',
  'xmlns:ooo="http://openoffice.org/2004/office"',
].join(' ');

/**
 * The PDF LibreOffice Writer exports from `fodt` (the text of a `.fodt` document), with its form
 * controls as form fields (`ExportFormFields`).
 * @throws Error naming soffice's exit code and output when it makes no PDF
 */
export async function libreOfficePdf(fodt: string): Promise<Buffer> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'soffice-'));
  try {
    const source = path.join(dir, 'document.fodt');
    await writeFile(source, fodt);
    const filter = 'pdf:writer_pdf_Export:{"ExportFormFields":{"type":"boolean","value":"true"}}';
    const profile = pathToFileURL(path.join(dir, 'profile')).href;
    const result = await tool('soffice', [`-env:UserInstallation=${profile}`, '--headless', '--convert-to', filter, '--outdir', dir, source]);
    try {
      return await readFile(path.join(dir, 'document.pdf'));
    } catch {
      throw new Error(`soffice made no PDF (exit ${result.code}): ${result.stdout} ${result.stderr}`);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

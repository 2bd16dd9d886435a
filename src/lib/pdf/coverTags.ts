/**
 * Covers a document's text tags (`{{type;...}}`, see `detectFields.ts`) for its frozen copy, inside a
 * seal worker: each tag's text box is painted opaque white (the page's background), so that the
 * signing page, which renders the frozen copy, and the seal, made from it, show the same page and no
 * signer sees a tag (docs/api.md#fields-from-the-document).
 *
 * The paint hides the tag; its text stays in the page's content under the paint (a text extractor
 * still finds it). Only tags whose type is a field type are covered: other text between double braces
 * is the document's own. A document whose text cannot be read is frozen as it is (the checks of
 * sending, not this step, decide whether it can be sent).
 */
import { createHash } from 'node:crypto';
import { PdfArray, PdfString } from '@libpdf/core';
import type { PDF } from '@libpdf/core';
import { detect } from './detectFields.js';
import { drawFieldValues } from './fieldDrawing.js';
import { openForSealing, removeOwnerRestrictions } from './seal.js';
import type { CoverTagsJob, CoverTagsResult, FieldDrawing } from './types.js';

/**
 * Paints every tag of `job.document` whose type is one of `job.types` white (see the module comment).
 * The result is written whole (an owner-password protection goes, as at cleaning), or as an
 * incremental update when the document carries signatures; the same document always gives the same bytes.
 */
export async function coverTags(job: CoverTagsJob): Promise<CoverTagsResult> {
  let found: Awaited<ReturnType<typeof detect>>;
  try {
    found = await detect({ detect: true, document: job.document });
  } catch {
    return { covered: null, tags: 0 };
  }
  const tags = found.textTags.filter((tag) => job.types.includes((tag.text.split(';')[0] ?? '').replace(/\s+/g, '')));
  if (tags.length === 0) return { covered: null, tags: 0 };
  const { pdf } = await openForSealing(job.document);
  const signed = pdf.getForm()?.getSignatureFields().some((field) => field.isSigned()) ?? false;
  if (pdf.isEncrypted) removeOwnerRestrictions(pdf);
  if (!signed) giveStableIdentifier(pdf, job.document);
  const drawings: FieldDrawing[] = tags.map((tag) => ({ page: tag.page, ...tag.bounds, type: 'text', value: null, background: 'white' }));
  drawFieldValues(pdf, drawings);
  const covered = await pdf.save({ incremental: signed });
  return { covered, tags: tags.length };
}

/** A file identifier derived from the document's bytes (ISO 32000-1 §14.4), so that saving it again gives the same bytes. */
function giveStableIdentifier(pdf: PDF, document: Uint8Array): void {
  const trailer = pdf.context.info.trailer;
  if (trailer.has('ID')) return;
  const id = createHash('sha256').update(document).digest().subarray(0, 16);
  trailer.set('ID', PdfArray.of(new PdfString(new Uint8Array(id), 'hex'), new PdfString(new Uint8Array(id), 'hex')));
}

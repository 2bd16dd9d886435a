/**
 * The download of a completed envelope (docs/api.md#download-a-completed-envelope): one ZIP of every
 * sealed PDF, the certificate of completion as a PDF of its own (`certificate.pdf`), the chained
 * audit trail (`audit.json`, docs/api.md#chained-audit-trail) and the signers' files
 * (docs/api.md#files-from-signers), under `attachments/`. The archive is written as it is read (`archiver`): each sealed PDF is read from storage only
 * when its turn in the archive comes, so the service never holds the whole archive, nor more than
 * one sealed PDF, in memory.
 */
import { Readable } from 'node:stream';
import { ZipArchive } from 'archiver';
import { certificatePdf } from '../pdf/index.js';
import { problem } from '../problems.js';
import type { Services } from '../services.js';
import { downloadBlob } from '../storage/download.js';
import { readMembersEnvelope } from './access.js';
import { chainedEvents } from './auditChain.js';
import { documentsOf, sealedDocuments } from './documents.js';
import { archivedAttachments } from './attachments.js';
import type { Actor, EnvelopeRecord } from './model.js';

export interface EnvelopeArchive {
  record: EnvelopeRecord;
  /** The ZIP, produced as it is read. */
  stream: Readable;
  /** The file name the answer suggests (`envelope-<id>.zip`). */
  filename: string;
}

/**
 * The caller's completed envelope as a ZIP (see the module comment). The certificate is made before
 * the archive starts, so that its failure is an answer, not a truncated archive.
 * @throws AppError 404 (missing, another organisation's), 403 `forbidden-role`, 409
 *   `envelope-not-completed` (not completed), `documents-purged` (purged), 422 when the sealed PDF cannot be read
 */
export async function envelopeArchive({ services, actor, envelopeId }: { services: Services; actor: Actor; envelopeId: string }): Promise<EnvelopeArchive> {
  const { record } = await readMembersEnvelope(services, actor, envelopeId, 'read');
  if (record.status !== 'completed') throw problem('envelopeNotCompleted', { detail: `The envelope is ${record.status}, not completed: there is nothing sealed to download yet.` });
  if (record.purgedAt !== null) throw problem('documentsPurged');
  const sealed = sealedDocuments(record);
  const blobs = [...new Map(sealed.map((entry) => [entry.blobName, entry])).values()];
  const combined = blobs.length === 1 && sealed.length > 1;
  const container = services.storage.containers.sealed;
  const [certificate, events, attachments] = await Promise.all([certificateOf(services, record, blobs), chainedEvents(services, record), archivedAttachments(services, record)]);

  const archive = new ZipArchive({ zlib: { level: 6 } });
  blobs.forEach(({ document, blobName }, index) => {
    const name = combined ? 'combined.pdf' : `${String(index + 1).padStart(2, '0')}-${pdfName(entryName(document.name))}`;
    // PDFs are compressed already: stored as they are.
    archive.append(lazily(async () => (await container.getBlockBlobClient(blobName).download()).readableStreamBody!), { name, store: true });
  });
  archive.append(Buffer.from(certificate), { name: 'certificate.pdf', store: true });
  archive.append(JSON.stringify(events, null, 2), { name: 'audit.json' });
  for (const attachment of attachments) archive.append(lazily(attachment.open), { name: `attachments/${entryName(attachment.name)}`, store: true });
  void archive.finalize().catch((error: unknown) => archive.destroy(error instanceof Error ? error : new Error(String(error))));
  // A Node stream of its own: `archiver`'s streams are `readable-stream`'s, which hosts may not take for one.
  return { record, stream: Readable.from(archive), filename: `envelope-${record.id}.zip` };
}

/**
 * The certificate of completion as a PDF of its own: the pages after the sealed documents' pages of
 * the smallest sealed PDF (each carries the same certificate).
 */
async function certificateOf(services: Services, record: EnvelopeRecord, blobs: readonly { blobName: string; document: { id: string } }[]): Promise<Uint8Array> {
  const container = services.storage.containers.sealed;
  const sizes = await Promise.all(blobs.map(async ({ blobName }) => (await container.getBlockBlobClient(blobName).getProperties()).contentLength ?? 0));
  const smallest = blobs[sizes.indexOf(Math.min(...sizes))]!;
  const documents = documentsOf(record);
  // The sealed PDF's own pages come first: its document's, or with `combined` every document's.
  const from = blobs.length === 1 && documents.length > 1 ? documents.reduce((sum, document) => sum + (document.pageCount ?? 0), 0) : (documents.find((document) => document.id === smallest.document.id)?.pageCount ?? record.pageCount ?? 0);
  return await certificatePdf({ document: await downloadBlob(container.getBlockBlobClient(smallest.blobName)), from });
}

/** A stream that opens its source only when first read (the archive reads its entries one after the other). */
function lazily(open: () => Promise<NodeJS.ReadableStream | Readable>): Readable {
  return Readable.from(
    (async function* () {
      for await (const chunk of (await open()) as AsyncIterable<Uint8Array>) yield chunk;
    })(),
  );
}

/** A file name safe as a ZIP entry: no path separators or control characters. */
function entryName(name: string): string {
  const safe = name.replace(/[\u0000-\u001f\u007f/\\]/g, '_').trim();
  return safe === '' ? 'document.pdf' : safe;
}

/** `name`, ending in `.pdf` (a renamed document may not). */
function pdfName(name: string): string {
  return /\.pdf$/i.test(name) ? name : `${name}.pdf`;
}

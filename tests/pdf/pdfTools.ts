/**
 * Helpers for the PDF tests: the corpus, a development sealing certificate, certificates of
 * completion, and independent verification of sealed files with poppler (pdfsig, pdftotext,
 * pdfinfo, pdffonts), qpdf and openssl, run with execFile, and rendering comparisons in poppler,
 * MuPDF and Ghostscript (`rendering.ts`).
 */
import { execFile } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect } from '@jest/globals';
import { createDevelopmentSealingCertificate } from '../../src/lib/pdf/index.js';
import type { CertificateRecipient, CompletionCertificate } from '../../src/lib/pdf/index.js';

/** The shared corpus of real PDFs (never modified). */
import { CORPUS_DIR } from '../support/corpus.js';
import { startTimestampAuthority, type TimestampAuthority } from '../support/timestampAuthority.js';
import { differingPages, renderPages, renderers } from './rendering.js';
import type { Renderer } from './rendering.js';

export const corpusDir = CORPUS_DIR;

export async function corpusFile(name: string): Promise<Uint8Array> {
  return new Uint8Array(await readFile(path.join(corpusDir, name)));
}

export async function corpusFiles(): Promise<string[]> {
  return (await readdir(corpusDir)).filter((name) => name.toLowerCase().endsWith('.pdf')).sort();
}

export const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

export interface Sealer {
  sealingP12: Uint8Array;
  sealingPassphrase: string;
}

let sealer: Promise<Sealer> | undefined;

/** One development sealing certificate per test file. */
export function developmentSealer(): Promise<Sealer> {
  sealer ??= createDevelopmentSealingCertificate({ commonName: 'Envelope service test seal' }).then(({ p12Base64, passphrase }) => ({
    sealingP12: new Uint8Array(Buffer.from(p12Base64, 'base64')),
    sealingPassphrase: passphrase,
  }));
  return sealer;
}

/** Signer names that must survive as text: Chinese, Arabic, Hebrew, Cyrillic, Greek, Latin with diacritics. */
export const internationalSigners = [
  { name: '王小明', email: 'wang.xiaoming@example.cn', role: 'signer' },
  { name: 'محمد عبد الله', email: 'mohammed@example.sa', role: 'approver' },
  { name: 'דוד כהן', email: 'david.cohen@example.il', role: 'viewer' },
  { name: 'Пётр Чайковский', email: 'pyotr@example.ru', role: 'cc' },
  { name: 'Γιώργος Παπαδόπουλος', email: 'giorgos@example.gr', role: 'signer' },
  { name: 'Zoë Ångström-Løvås', email: 'zoe@example.no', role: 'signer' },
];

/** A certificate of completion for `document`, with fresh ids and the document's real SHA-256. */
/** A certificate block for a recipient who was not asked to act (completed from draft). */
export function recipientFor(recipient: { id: string; name: string; email: string; role: string }): CertificateRecipient {
  return { ...recipient, routingOrder: 1, status: 'created', actedAt: null, ip: null, userAgent: null, identification: null, consent: null, signature: null };
}

export function certificateFor(document: Uint8Array, overrides: Partial<CompletionCertificate> = {}): CompletionCertificate {
  const ownerEmail = 'owner@example.com';
  return {
    envelopeId: randomUUID(),
    documentName: 'Agreement 合同 اتفاقية.pdf',
    ownerEmail: 'owner@example.com',
    recipients: internationalSigners.map((signer) => recipientFor({ id: randomUUID(), ...signer })),
    createdAt: '2026-11-22T10:15:30.123Z',
    sentAt: '2026-11-22T10:21:00.000Z',
    completedAt: '2026-11-22T11:02:03.456Z',
    documentSha256: sha256(document),
    pageCount: 1,
    disclosures: [],
    events: [
      { sequence: 1, type: 'envelope.created', at: '2026-11-22T10:15:30.123Z', sentence: `Envelope created by ${ownerEmail} for the document "Agreement.pdf".`, ip: '203.0.113.7' },
      { sequence: 2, type: 'envelope.signers_replaced', at: '2026-11-22T10:20:00.000Z', sentence: `Recipients changed by ${ownerEmail}.`, ip: '203.0.113.7' },
      { sequence: 3, type: 'envelope.sent', at: '2026-11-22T10:21:00.000Z', sentence: `Envelope sent by ${ownerEmail}.`, ip: '203.0.113.7' },
    ],
    ...overrides,
  };
}

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a tool without a shell (in `cwd`, default the system's temporary folder); never throws for a non-zero exit. */
export function run(command: string, args: string[], cwd: string = os.tmpdir()): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { cwd, maxBuffer: 64 * 1024 * 1024, encoding: 'utf8' }, (error, stdout, stderr) => {
      if (error !== null && typeof error.code !== 'number') {
        reject(error);
        return;
      }
      resolve({ code: typeof error?.code === 'number' ? error.code : 0, stdout, stderr });
    });
  });
}

/** A temporary folder for one test file's PDFs. */
export async function scratchDir(): Promise<{ dir: string; write: (name: string, bytes: Uint8Array) => Promise<string>; remove: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'pdf-test-'));
  return {
    dir,
    write: async (name, bytes) => {
      const file = path.join(dir, name);
      await writeFile(file, bytes);
      return file;
    },
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

export type Scratch = Awaited<ReturnType<typeof scratchDir>>;

/** What {@link sealingForFile} prepared: the development sealer and a scratch folder. */
export interface Sealing {
  sealer: Sealer;
  scratch: Scratch;
}

/**
 * The set-up of a test file that seals: the development sealer and a scratch folder before the file's
 * tests (`ready` receives them), with `timestampAuthority` a local RFC 3161 time-stamp authority too;
 * all of it removed or stopped after the tests.
 */
export function sealingForFile(ready: (started: Sealing) => unknown): void;
export function sealingForFile(ready: (started: Sealing & { tsa: TimestampAuthority }) => unknown, options: { timestampAuthority: true }): void;
export function sealingForFile(ready: (started: Sealing & { tsa: TimestampAuthority }) => unknown, options: { timestampAuthority?: boolean } = {}): void {
  let started: (Sealing & { tsa?: TimestampAuthority }) | undefined;
  beforeAll(async () => {
    const [sealer, scratch, tsa] = await Promise.all([developmentSealer(), scratchDir(), options.timestampAuthority === true ? startTimestampAuthority() : undefined]);
    started = { sealer, scratch, ...(tsa === undefined ? {} : { tsa }) };
    await ready(started as Sealing & { tsa: TimestampAuthority });
  });
  afterAll(async () => {
    await Promise.all([started?.tsa?.close(), started?.scratch.remove()]);
  });
}

export interface SignatureReport {
  fieldName: string;
  valid: boolean;
  totalDocumentSigned: boolean;
  subFilter: string;
  hashAlgorithm: string;
}

/**
 * pdfsig's view of every signature (certificate trust not checked: the test certificate is
 * self-signed). Empty signature fields, which pdfsig lists as "not signed", are left out.
 */
export async function pdfsig(file: string): Promise<SignatureReport[]> {
  const { stdout } = await run('pdfsig', ['-nocert', file]);
  return stdout
    .split(/^Signature #\d+:$/m)
    .slice(1)
    .filter((block) => !block.includes('The signature form field is not signed.'))
    .map((block) => ({
      fieldName: /Signature Field Name: (.*)$/m.exec(block)?.[1] ?? '',
      valid: /Signature Validation: Signature is Valid\./.test(block),
      totalDocumentSigned: /^\s*- Total document signed$/m.test(block),
      subFilter: /Signature Type: (.*)$/m.exec(block)?.[1] ?? '',
      hashAlgorithm: /Signing Hash Algorithm: (.*)$/m.exec(block)?.[1] ?? '',
    }));
}

/** Poppler's complaints about a file, positions removed so that the same problem compares equal wherever it sits. */
export async function popplerProblems(file: string): Promise<Set<string>> {
  return (await popplerRead(file)).problems;
}

/**
 * Poppler's complaints about a file (as {@link popplerProblems}) and its text as `pdftotext` extracts
 * it (pages ended by form feeds), from one run of each tool: a long document is read once.
 */
async function popplerRead(file: string): Promise<{ problems: Set<string>; text: string }> {
  const outputs = await Promise.all([run('pdftotext', [file, '-']), run('pdfinfo', [file])]);
  const lines = outputs.flatMap(({ stderr }) => stderr.split('\n'));
  const problems = new Set(
    lines
      .map((line) => line.replaceAll(file, '<file>').replace(/\(\d+\)/g, '(n)').replace(/\b\d+\b/g, 'n').trim())
      .filter((line) => line !== ''),
  );
  return { problems, text: outputs[0].stdout };
}

export async function pdftotext(file: string, options: string[] = []): Promise<string> {
  return (await run('pdftotext', [...options, file, '-'])).stdout;
}

export async function pdfinfo(file: string): Promise<{ pages: number; encrypted: boolean }> {
  const { stdout } = await run('pdfinfo', [file]);
  return {
    pages: Number(/^Pages:\s+(\d+)/m.exec(stdout)?.[1] ?? Number.NaN),
    encrypted: /^Encrypted:\s+yes/m.test(stdout),
  };
}

/** qpdf --check: exit code 0 (clean), 3 (warnings) or 2 (errors), and its warning lines (file name removed). */
export async function qpdfCheck(file: string): Promise<{ code: number; warnings: Set<string> }> {
  const { code, stdout, stderr } = await run('qpdf', ['--check', file]);
  const warnings = new Set(
    `${stdout}\n${stderr}`
      .split('\n')
      .filter((line) => line.startsWith('WARNING'))
      .map((line) => line.replaceAll(file, '<file>').replace(/\(\w+ \d+\)|offset \d+|\d+/g, 'n')),
  );
  return { code, warnings };
}

/**
 * Every PDF name (as a key or a value) and every text string in the objects `qpdf --json` lists for
 * `file`: the objects of its cross-reference table, whatever refers to them.
 */
export async function qpdfContents(file: string): Promise<{ names: Set<string>; strings: Set<string> }> {
  const { code, stdout, stderr } = await run('qpdf', ['--json=2', '--json-stream-data=none', file]);
  if (code !== 0 && code !== 3) throw new Error(`qpdf --json failed (${code}): ${stderr}`);
  const json = JSON.parse(stdout) as { qpdf: [unknown, Record<string, unknown>] };
  const names = new Set<string>();
  const strings = new Set<string>();
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) {
      for (const item of value) walk(item);
    } else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        if (key.startsWith('/')) names.add(key);
        walk(item);
      }
    } else if (typeof value === 'string') {
      if (value.startsWith('/')) names.add(value);
      if (value.startsWith('u:')) strings.add(value.slice(2));
    }
  };
  walk(json.qpdf[1]);
  return { names, strings };
}

/** Field types (/Tx, /Btn, /Ch, /Sig) of the AcroForm fields qpdf finds, one per widget. */
export async function formFieldTypes(file: string): Promise<string[]> {
  const { stdout, code } = await run('qpdf', ['--json', '--json-key=acroform', file]);
  if (code !== 0 && code !== 3) return [];
  const json = JSON.parse(stdout) as { acroform?: { fields?: { fieldtype?: string }[] } };
  return (json.acroform?.fields ?? []).map((field) => field.fieldtype ?? '');
}

/** Text-field and choice values of a form, as qpdf reads them (`u:` prefix removed); none when qpdf cannot read the file. */
export async function formValues(file: string): Promise<string[]> {
  const { stdout, code } = await run('qpdf', ['--json', '--json-key=acroform', file]);
  if (code !== 0 && code !== 3) return [];
  const json = JSON.parse(stdout) as { acroform?: { fields?: { fieldtype?: string; value?: unknown }[] } };
  return (json.acroform?.fields ?? [])
    .filter((field) => (field.fieldtype === '/Tx' || field.fieldtype === '/Ch') && typeof field.value === 'string')
    .map((field) => String(field.value).replace(/^u:/, ''));
}

type QpdfJson = string | number | boolean | null | QpdfJson[] | { [key: string]: QpdfJson };

/**
 * The values a viewer shows as they are: single-line, non-empty text and choice values (/V, an
 * indirect string resolved) of visible widgets (no Hidden or NoView flag) of fields without a format
 * action (/AA /F, e.g. a phone number shown as "(123) 456-7890"), read with qpdf; none when qpdf
 * cannot read the file.
 */
export async function plainFieldValues(file: string): Promise<string[]> {
  const { stdout, code } = await run('qpdf', ['--json', '--json-key=acroform', '--json-key=qpdf', file]);
  if (code !== 0 && code !== 3) return [];
  const json = JSON.parse(stdout) as {
    acroform?: { fields?: { fieldtype?: string; value?: QpdfJson; object?: string; annotation?: { annotationflags?: number } }[] };
    qpdf?: [unknown, Record<string, { value?: QpdfJson }>];
  };
  const objects = json.qpdf?.[1] ?? {};
  const resolve = (value: QpdfJson | undefined): QpdfJson | undefined =>
    typeof value === 'string' && / \d+ R$/.test(value) ? objects[`obj:${value}`]?.value : value;
  const dict = (value: QpdfJson | undefined): Record<string, QpdfJson> | undefined => {
    const resolved = resolve(value);
    return resolved !== null && typeof resolved === 'object' && !Array.isArray(resolved) ? resolved : undefined;
  };
  const formatted = (field: Record<string, QpdfJson> | undefined): boolean => {
    for (let node = field, depth = 0; node !== undefined && depth < 64; node = dict(node['/Parent']), depth++) {
      if (dict(node['/AA'])?.['/F'] !== undefined) return true;
    }
    return false;
  };
  const values: string[] = [];
  for (const field of json.acroform?.fields ?? []) {
    if (field.fieldtype !== '/Tx' && field.fieldtype !== '/Ch') continue;
    if (((field.annotation?.annotationflags ?? 0) & (2 | 32)) !== 0) continue;
    const value = resolve(field.value ?? undefined);
    if (typeof value !== 'string' || formatted(dict(field.object))) continue;
    const text = value.replace(/^[ub]:/, '');
    if (text.trim() !== '' && !text.includes('\n')) values.push(text);
  }
  return values;
}

/** Extracted text with poppler's bidi embedding marks removed and white space collapsed. */
export const collapse = (text: string): string => text.replace(/[\u202A-\u202E]/g, '').replace(/\s+/g, ' ');

/**
 * Dumps the signatures' CMS blobs with `pdfsig -dump`, which writes `<file name>.sig<n>` into its
 * working folder: run in the PDF's own folder. @returns the path of signature `index`'s dump
 */
export async function dumpSignature(file: string, index: number): Promise<string> {
  const { code } = await run('pdfsig', ['-nocert', '-dump', path.basename(file)], path.dirname(file));
  if (code !== 0) throw new Error(`pdfsig -dump failed on ${file}`);
  return `${file}.sig${index}`;
}

/**
 * Every check docs/api.md#what-completion-does asks of a sealed file, against its original, with the real tools:
 * pdfsig (every signature valid, the seal covering the whole document, ETSI.CAdES.detached, SHA-256),
 * qpdf --check (no errors, no warnings the original did not have), poppler (no complaint the
 * original did not have), pdfinfo (pages = original + certificate), no form fields but signatures,
 * and the certificate's text (envelope id, signer names, original SHA-256) extractable.
 * @returns the sealed file's text as `pdftotext` extracts it, each page ended by a form feed
 */
export async function expectValidSeal(options: {
  original: string;
  sealed: string;
  certificate: CompletionCertificate;
  originalPageCount: number;
  certificatePageCount: number;
  earlierSignatures?: number;
}): Promise<string> {
  const { original, sealed, certificate } = options;
  const [signatures, check, originalCheck, { problems, text }, originalProblems, info, fields] = await Promise.all([
    pdfsig(sealed),
    qpdfCheck(sealed),
    qpdfCheck(original),
    popplerRead(sealed),
    popplerProblems(original),
    pdfinfo(sealed),
    formFieldTypes(sealed),
  ]);

  expect(signatures).toHaveLength((options.earlierSignatures ?? 0) + 1);
  for (const signature of signatures) expect(signature).toMatchObject({ valid: true });
  expect(signatures.at(-1)).toMatchObject({ totalDocumentSigned: true, subFilter: 'ETSI.CAdES.detached', hashAlgorithm: 'SHA-256' });

  expect(check.code).not.toBe(2);
  for (const warning of check.warnings) expect(originalCheck.warnings).toContain(warning);
  for (const problem of problems) expect(originalProblems).toContain(problem);

  expect(info.pages).toBe(options.originalPageCount + options.certificatePageCount);
  expect(info.encrypted).toBe(false);
  for (const type of fields) expect(type).toBe('/Sig');

  const flat = collapse(text);
  expect(flat).toContain(certificate.envelopeId);
  expect(flat).toContain(certificate.documentSha256);
  expect(flat).toContain(certificate.ownerEmail);
  for (const signer of certificate.recipients) {
    expect(flat).toContain(signer.name);
    expect(flat).toContain(signer.email);
    expect(flat).toContain(signer.id);
  }
  for (const event of certificate.events) expect(flat).toContain(event.type);
  return text;
}

/** Whether `prefix` is the start of `bytes` (an incremental update keeps the original bytes). */
export function startsWith(bytes: Uint8Array, prefix: Uint8Array): boolean {
  return bytes.length >= prefix.length && Buffer.from(bytes.buffer, bytes.byteOffset, prefix.length).equals(prefix);
}

/**
 * Replaces the block between `<!-- <name>:begin -->` and `<!-- <name>:end -->` in docs/corpus.md
 * (appending it when absent). Read and write happen in one synchronous step: two test files
 * (corpus.test.ts, producers.test.ts) each write their own block of the same file.
 */
export function writeCorpusDocBlock(name: string, lines: string[]): void {
  const file = path.resolve(process.cwd(), 'docs/corpus.md');
  const begin = `<!-- ${name}:begin -->`;
  const end = `<!-- ${name}:end -->`;
  const block = [begin, ...lines, end].join('\n');
  const current = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const start = current.indexOf(begin);
  const stop = current.indexOf(end);
  const next = start >= 0 && stop > start ? current.slice(0, start) + block + current.slice(stop + end.length) : `${current.trimEnd()}\n\n${block}\n`;
  writeFileSync(file, next.trimStart());
}

const engineNames: Record<Renderer, string> = { poppler: 'poppler', mupdf: 'MuPDF', ghostscript: 'Ghostscript' };

/** An engine's stderr lines with file names and numbers masked, so that the same complaint compares equal wherever it sits. */
function complaints(stderr: string, file: string): Set<string> {
  return new Set(
    stderr
      .split('\n')
      .map((line) => line.replaceAll(file, '<file>').replace(/\b\d+\b/g, 'n').trim())
      .filter((line) => line !== ''),
  );
}

/**
 * Checks that pages 1 to `pages` of `sealed` render as `original` does in poppler, MuPDF and
 * Ghostscript at `dpi` (docs/api.md#what-completion-does: every original page renders as the original renders it):
 * every page identical, or differing only by edges placed a pixel or two apart (`comparePixels`:
 * not `changed`), and no engine complaint on stderr that the original did not already cause.
 * An engine that cannot render the original may fail on the sealed file too, with no other error.
 * @returns a summary for docs/corpus.md, e.g. "identical in poppler, MuPDF, Ghostscript"
 */
export async function expectSameRendering(original: string, sealed: string, pages: number, dpi = 72): Promise<string> {
  // The three engines render at once: each waits on its own processes, and a long document (206 pages
  // in the corpus) otherwise kept the other two idle for minutes. The summary keeps the engines' order.
  const outcomes = await Promise.all(renderers.map((renderer) => sameRenderingIn(renderer, original, sealed, pages, dpi)));
  const identical = outcomes.flatMap((outcome) => (outcome.identical ? [engineNames[outcome.renderer]] : []));
  const notes = outcomes.flatMap((outcome) => (outcome.note === undefined ? [] : [outcome.note]));
  return [identical.length > 0 ? `identical in ${identical.join(', ')}` : '', ...notes].filter((part) => part !== '').join('; ');
}

/** {@link expectSameRendering} for one engine: whether every page is identical, else a note on how they differ. */
async function sameRenderingIn(renderer: Renderer, original: string, sealed: string, pages: number, dpi: number): Promise<{ renderer: Renderer; identical: boolean; note?: string }> {
  const name = engineNames[renderer];
  let comparison: Awaited<ReturnType<typeof differingPages>>;
  try {
    comparison = await differingPages(original, sealed, renderer, { dpi, pages });
  } catch (error) {
    // An engine that fails on the original may fail on the sealed file (an incremental update keeps
    // the original's bytes), but with no error the original did not cause.
    const failure = async (file: string): Promise<string | null> =>
      await renderPages(file, renderer, { dpi, first: 1, last: pages }).then(
        () => null,
        // execFile's error carries the engine's stderr (not instanceof Error here: another realm under jest).
        (cause: unknown) => String((cause as { stderr?: unknown }).stderr ?? cause),
      );
    const originalFailure = await failure(original);
    if (originalFailure === null) throw error;
    const sealedFailure = await failure(sealed);
    if (sealedFailure !== null) {
      const before = complaints(originalFailure, original);
      for (const complaint of complaints(sealedFailure, sealed)) expect({ renderer, complaint, known: before.has(complaint) }).toEqual({ renderer, complaint, known: true });
    }
    return { renderer, identical: false, note: `${name} cannot render the original${sealedFailure === null ? '; renders the sealed file' : ' nor, with the same errors, the sealed file'}` };
  }
  expect({ renderer, pages: comparison.pages.filter((page) => page.changed) }).toEqual({ renderer, pages: [] });
  const before = complaints(comparison.originalStderr, original);
  for (const complaint of complaints(comparison.changedStderr, sealed)) expect({ renderer, complaint, known: before.has(complaint) }).toEqual({ renderer, complaint, known: true });
  if (comparison.pages.length === 0) return { renderer, identical: true };
  const lone = comparison.pages.reduce((sum, page) => sum + page.lone, 0);
  return {
    renderer,
    identical: false,
    note:
      `${name}: ${comparison.pages.length} of ${pages} page(s) differ by edge placement only (at most ${Math.max(...comparison.pages.map((page) => page.differing))} px` +
      `${lone > 0 ? `, ${lone} lone pixel(s) of sub-pixel features` : ''})`,
  };
}

/** What PDF.js (the engine of the signing page) finds that runs or carries files, in `file`. */
export interface PdfJsActiveContent {
  /** Document-level scripts and open actions (`getJSActions`). */
  documentActions: unknown;
  /** The scripts of form fields (`getFieldObjects`), by field name. */
  fieldActions: Record<string, unknown>;
  /** The actions of each page's annotations (`getAnnotations`): subtype and actions. */
  annotationActions: { subtype: string; actions: unknown }[];
  /** The attachments (`getAttachments`). */
  attachments: unknown;
}

/** Reads `file` with PDF.js, in a process of its own, and reports {@link PdfJsActiveContent}. */
export async function pdfJsActiveContent(file: string): Promise<PdfJsActiveContent> {
  const script = `
    const { getDocument } = await import('pdfjs-dist/legacy/build/pdf.mjs');
    const { readFile } = await import('node:fs/promises');
    const document = await getDocument({ data: new Uint8Array(await readFile(process.argv[1])), isEvalSupported: false, verbosity: 0 }).promise;
    const fieldActions = {};
    for (const [name, fields] of Object.entries((await document.getFieldObjects()) ?? {})) {
      const actions = fields.map((field) => field.actions).filter((actions) => actions !== undefined && actions !== null);
      if (actions.length > 0) fieldActions[name] = actions;
    }
    const annotationActions = [];
    for (let number = 1; number <= document.numPages; number++) {
      for (const annotation of await (await document.getPage(number)).getAnnotations()) {
        if (annotation.actions) annotationActions.push({ subtype: annotation.subtype, actions: annotation.actions });
      }
    }
    const report = { documentActions: await document.getJSActions(), fieldActions, annotationActions, attachments: await document.getAttachments() };
    process.stdout.write(JSON.stringify(report));
    await document.destroy();
  `;
  const { code, stdout, stderr } = await run(process.execPath, ['--input-type=module', '-e', script, file], process.cwd());
  if (code !== 0) throw new Error(`PDF.js could not read ${file} (${code}): ${stderr}`);
  return JSON.parse(stdout) as PdfJsActiveContent;
}

import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { readdirSync } from 'node:fs';
import { createDevelopmentSealingCertificate, sealDocument, stopSealWorker } from '../../src/lib/pdf/index.js';
import {
  certificateFor,
  corpusFile,
  developmentSealer,
  dumpSignature,
  expectValidSeal,
  formValues,
  pdfinfo,
  pdfsig,
  pdftotext,
  run,
  scratchDir,
  startsWith,
} from './pdfTools.js';
import type { Sealer } from './pdfTools.js';

let sealer: Sealer;
let scratch: Awaited<ReturnType<typeof scratchDir>>;

beforeAll(async () => {
  sealer = await developmentSealer();
  scratch = await scratchDir();
});

afterAll(async () => {
  await scratch.remove();
});

/** Seals a corpus file and writes original and sealed to the scratch folder. */
async function sealCorpusFile(name: string) {
  const document = await corpusFile(name);
  const certificate = certificateFor(document);
  const result = await sealDocument({ document, certificate, ...sealer });
  return {
    document,
    certificate,
    result,
    original: await scratch.write(`original-${name}`, document),
    sealed: await scratch.write(`sealed-${name}`, result.sealed),
  };
}

/** The references in the first page's /Annots (direct or indirect array), from qpdf's JSON of the file's objects. */
async function firstPageAnnots(file: string): Promise<string[]> {
  const json = JSON.parse((await run('qpdf', ['--json=2', '--json-key=pages', '--json-key=qpdf', file])).stdout) as {
    pages: { object: string }[];
    qpdf: [unknown, Record<string, { value: Record<string, unknown> | unknown[] }>];
  };
  const objects = json.qpdf[1];
  const page = objects[`obj:${json.pages[0]!.object}`]!.value as Record<string, unknown>;
  const annots = page['/Annots'] ?? [];
  return (typeof annots === 'string' ? objects[`obj:${annots}`]!.value : annots) as string[];
}

describe('sealDocument (docs/api.md#what-completion-does)', () => {
  test.each(['normal.pdf', 'fill_form.pdf', 'form_to_flatten.pdf', 'signed_by_other_tool.pdf', 'encrypted_empty_user_password.pdf'])(
    'seals %s so that pdfsig, qpdf, pdfinfo and pdftotext all accept it',
    async (name) => {
      const { certificate, result, original, sealed } = await sealCorpusFile(name);
      const originalSignatures = (await pdfsig(original)).length;
      expect(result.originalPageCount).toBe((await pdfinfo(original)).pages);
      expect(result.certificatePageCount).toBeGreaterThanOrEqual(1);
      await expectValidSeal({ ...result, original, sealed, certificate, earlierSignatures: originalSignatures });
    },
  );

  test.each(['fill_form.pdf', 'form_to_flatten.pdf'])('flattens %s: every field value stays visible as page content', async (name) => {
    const { original, sealed } = await sealCorpusFile(name);
    const values = (await formValues(original)).filter((value) => value.trim() !== '' && !value.includes('\n'));
    expect(values.length).toBeGreaterThan(0);
    const text = (await pdftotext(sealed)).replace(/\s+/g, ' ');
    for (const value of values) expect(text).toContain(value.replace(/\s+/g, ' '));
  });

  test.each(['normal.pdf', 'linearized_with_object_streams.pdf', 'with_update_sections.pdf', 'signed_by_other_tool.pdf'])(
    'lists the seal\'s widget in its page\'s /Annots (ISO 32000-2 12.5.2) in %s, as qpdf\'s JSON and mutool show, and pdfsig still finds it valid',
    async (name) => {
      const { original, sealed } = await sealCorpusFile(name);
      // qpdf (an independent reader) finds form fields through the pages' annotations: the seal is one, on page 1.
      const json = JSON.parse((await run('qpdf', ['--json=2', '--json-key=acroform', sealed])).stdout) as {
        acroform: { fields: { fullname: string; fieldtype: string; pageposfrom1: number; annotation: { object: string } }[] };
      };
      const seal = json.acroform.fields.find((field) => /^EnvelopeSeal\d*$/.test(field.fullname));
      expect(seal).toMatchObject({ fieldtype: '/Sig', pageposfrom1: 1 });
      // The first page's /Annots, read from qpdf's JSON of its objects, lists the seal's widget once, last;
      // the others are annotations the page had (form widgets are flattened away, signature fields stay).
      const [before, after] = await Promise.all([firstPageAnnots(original), firstPageAnnots(sealed)]);
      expect(after.at(-1)).toBe(seal!.annotation.object);
      expect(after.slice(0, -1).filter((reference) => !before.includes(reference))).toEqual([]);
      // Earlier signatures keep their widgets where they were.
      const earlier = json.acroform.fields.filter((field) => field.fieldtype === '/Sig' && field !== seal);
      if (name === 'signed_by_other_tool.pdf') expect(earlier.length).toBeGreaterThan(0);
      for (const field of earlier.filter((candidate) => candidate.pageposfrom1 === 1)) expect(after).toContain(field.annotation.object);
      // mutool agrees.
      expect((await run('mutool', ['show', sealed, 'pages/1/Annots'])).stdout).toContain(seal!.annotation.object);
      const signatures = await pdfsig(sealed);
      expect(signatures.at(-1)).toMatchObject({ fieldName: seal!.fullname, valid: true, totalDocumentSigned: true });
    },
  );

  test('keeps the earlier signature of signed_by_other_tool.pdf valid: the seal is an incremental update', async () => {
    const { document, result, sealed } = await sealCorpusFile('signed_by_other_tool.pdf');
    const signatures = await pdfsig(sealed);
    expect(signatures).toHaveLength(2);
    expect(signatures[0]).toMatchObject({ valid: true, totalDocumentSigned: false });
    expect(signatures[1]).toMatchObject({ valid: true, totalDocumentSigned: true, fieldName: 'EnvelopeSeal' });
    expect(startsWith(result.sealed, document)).toBe(true);
  });

  test('seals a document protected by an owner password only without its protection (docs/api.md#create-an-envelope-and-upload-its-document)', async () => {
    const { original, sealed } = await sealCorpusFile('encrypted_empty_user_password.pdf');
    expect((await pdfinfo(original)).encrypted).toBe(true);
    expect((await pdfinfo(sealed)).encrypted).toBe(false);
  });

  test('signs with PAdES: ETSI.CAdES.detached, SHA-256, the signing-certificate-v2 attribute in the CMS', async () => {
    const { sealed } = await sealCorpusFile('normal.pdf');
    const [signature] = await pdfsig(sealed);
    expect(signature).toMatchObject({ subFilter: 'ETSI.CAdES.detached', hashAlgorithm: 'SHA-256' });
    const cms = (await run('openssl', ['asn1parse', '-inform', 'DER', '-in', await dumpSignature(sealed, 0)])).stdout;
    expect(cms).toMatch(/:pkcs7-signedData/);
    expect(cms).toMatch(/:sha256\b/);
    // Signed attributes of a CAdES signature (ETSI EN 319 122-1): content type, message digest, signing-certificate-v2.
    expect(cms).toMatch(/:contentType/);
    expect(cms).toMatch(/:messageDigest/);
    expect(cms).toMatch(/:id-smime-aa-signingCertificateV2/);
    expect(cms).not.toMatch(/:id-smime-aa-timeStampToken/);
  });

  test('rejects with the abort reason when aborted, and the next seal still works', async () => {
    const document = await corpusFile('us_constitution.pdf');
    const controller = new AbortController();
    const sealing = sealDocument({ document, certificate: certificateFor(document), ...sealer, signal: controller.signal });
    controller.abort(new Error('client went away'));
    await expect(sealing).rejects.toThrow('client went away');
    const already = sealDocument({ document, certificate: certificateFor(document), ...sealer, signal: AbortSignal.abort(new Error('too late')) });
    await expect(already).rejects.toThrow('too late');
    const { originalPageCount } = await sealDocument({ document, certificate: certificateFor(document), ...sealer });
    expect(originalPageCount).toBe(19);
  });

  test('stopSealWorker ends the worker thread and refuses the seals running and queued; the next seal starts a new worker', async () => {
    const document = await corpusFile('us_constitution.pdf');
    const job = () => sealDocument({ document, certificate: certificateFor(document), ...sealer });
    await job();
    const threads = (): number => readdirSync('/proc/self/task').length;
    const withWorker = threads();
    const running = job();
    const queued = job();
    await stopSealWorker();
    await expect(running).rejects.toThrow('The seal worker was stopped.');
    await expect(queued).rejects.toThrow('The seal worker was stopped.');
    expect(threads()).toBe(withWorker - 1);
    expect((await job()).originalPageCount).toBe(19);
    expect(threads()).toBe(withWorker);
  });

  test('answers a sealing P12 that does not open with its passphrase as a fault of the service, not of the document', async () => {
    const document = await corpusFile('normal.pdf');
    const sealing = sealDocument({ document, certificate: certificateFor(document), ...sealer, sealingPassphrase: 'wrong passphrase' });
    await expect(sealing).rejects.toThrow('The sealing certificate (SEAL_P12_BASE64 / SEAL_P12_PASSPHRASE) could not be opened.');
    await expect(sealing).rejects.not.toHaveProperty('status');
  });
});

describe('createDevelopmentSealingCertificate', () => {
  test('makes a self-signed RSA 2048 certificate for digital signature and non-repudiation, valid five years, in a PKCS#12 openssl opens', async () => {
    const { p12Base64, passphrase } = await createDevelopmentSealingCertificate({ commonName: 'Local seal 測試' });
    expect(passphrase.length).toBeGreaterThanOrEqual(24);
    const p12 = await scratch.write('development.p12', Buffer.from(p12Base64, 'base64'));
    const pem = await run('openssl', ['pkcs12', '-in', p12, '-passin', `pass:${passphrase}`, '-nokeys', '-clcerts']);
    expect(pem.code).toBe(0);
    const certificateFile = await scratch.write('development.pem', Buffer.from(pem.stdout));
    const { stdout } = await run('openssl', ['x509', '-in', certificateFile, '-noout', '-text', '-nameopt', 'utf8']);
    expect(stdout).toMatch(/Public-Key: \(2048 bit\)/);
    expect(stdout).toMatch(/Signature Algorithm: sha256WithRSAEncryption/);
    expect(stdout).toMatch(/Key Usage: critical\s+Digital Signature, Non Repudiation/);
    expect(stdout).toMatch(/Subject: CN ?= ?Local seal 測試/);
    const notBefore = new Date(/Not Before: (.*)$/m.exec(stdout)?.[1] ?? '');
    const notAfter = new Date(/Not After : (.*)$/m.exec(stdout)?.[1] ?? '');
    expect(notAfter.getUTCFullYear() - notBefore.getUTCFullYear()).toBe(5);
    expect(Math.abs(notBefore.getTime() - Date.now())).toBeLessThan(10 * 60_000);
    const selfSigned = await run('openssl', ['verify', '-CAfile', certificateFile, certificateFile]);
    expect(selfSigned.stdout).toMatch(/OK/);
  });
});

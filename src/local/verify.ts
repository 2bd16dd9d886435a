/**
 * `npm run --silent verify -- <sealed.pdf> [--online <origin>] [--certificate <file or fingerprint>]`
 * (docs/evidence.md): checks a PDF this service sealed, with no account and, unless `--online` is
 * given, no request to anyone. Prints one `PASS|FAIL <check>: <reason>` line per check and a last line
 * `N passed, M failed` (docs/api.md#the-verifier); exits 1 when a check fails, 2 when the command is
 * used wrongly or the file cannot be read.
 *
 * - `--online <origin>`: also asks that service whether it sealed this file, checks its public log's
 *   newest signed head and the file's inclusion proofs against it.
 * - `--certificate <file | SHA-256>`: the seal certificate the service publishes (PEM or DER), or its
 *   SHA-256 fingerprint in hex: the seal must be made with it.
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { reportLines, verifySealedPdf, type PdfJsLike } from '../lib/verification/verify.js';

const USAGE = 'Usage: npm run --silent verify -- <sealed.pdf> [--online <origin>] [--certificate <file.pem | file.der | sha256>]';

/** The expected certificate from `--certificate`: a fingerprint as given, or a PEM or DER file's DER. */
async function expectedCertificate(value: string): Promise<Uint8Array | string> {
  if (/^([0-9a-fA-F]{2}:?){32}$/.test(value)) return value;
  const bytes = await readFile(value);
  const pem = /-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/.exec(bytes.toString('latin1'));
  return pem === null ? new Uint8Array(bytes) : new Uint8Array(Buffer.from(pem[1]!.replace(/\s+/g, ''), 'base64'));
}

/** The origin `--online` names: an http(s) URL's origin. @throws TypeError when it is not one */
function originOf(value: string): string {
  const url = new URL(value);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new TypeError(`--online takes an http(s) origin, not ${value}`);
  return url.origin;
}

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    options: { online: { type: 'string' }, certificate: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    allowPositionals: true,
    strict: true,
  });
  if (values.help === true) {
    console.log(USAGE);
    return 0;
  }
  if (positionals.length !== 1) {
    console.error(USAGE);
    return 2;
  }
  const bytes = new Uint8Array(await readFile(positionals[0]!));
  const pdfjs = (await import('pdfjs-dist/legacy/build/pdf.mjs')) as unknown as PdfJsLike;
  const checks = await verifySealedPdf(bytes, {
    pdfjs,
    ...(values.online === undefined ? {} : { online: originOf(values.online) }),
    ...(values.certificate === undefined ? {} : { expectedCertificate: await expectedCertificate(values.certificate) }),
  });
  for (const line of reportLines(checks)) console.log(line);
  return checks.every((check) => check.passed) ? 0 : 1;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 2;
  },
);

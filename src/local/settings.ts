/**
 * Settings on a developer's machine: `local.settings.json` (as Azure Functions Core Tools reads it) and
 * secrets generated on first run into `.local/secrets.json` (git-ignored). Neither overrides a variable
 * already set in the environment.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

interface LocalSecrets {
  JWT_SECRET: string;
  /** The public log's Ed25519 seed (docs/api.md#public-log); added to a secrets file made before the log. */
  LOG_SIGNING_KEY?: string;
  SEAL_P12_BASE64: string;
  SEAL_P12_PASSPHRASE: string;
}

/** Copies `Values` of `local.settings.json` in `root` into `process.env` where unset. */
export async function applyLocalSettingsFile(root: string): Promise<void> {
  const file = path.join(root, 'local.settings.json');
  if (!existsSync(file)) return;
  const parsed = JSON.parse(await readFile(file, 'utf8')) as { Values?: Record<string, unknown> };
  for (const [name, value] of Object.entries(parsed.Values ?? {})) {
    if (process.env[name] === undefined && typeof value === 'string') process.env[name] = value;
  }
}

/**
 * Reads `.local/secrets.json` under `root`, generating it on first run (a random 384-bit JWT key, a
 * random 256-bit Ed25519 seed for the public log's key and a self-signed sealing certificate), and
 * copies its values into `process.env` where unset. A file made before the public log gets its key
 * added (and is written again).
 * @returns whether secrets were generated now
 */
export async function applyLocalSecrets(root: string): Promise<boolean> {
  const dir = path.join(root, '.local');
  const file = path.join(dir, 'secrets.json');
  let secrets: LocalSecrets;
  let generated = false;
  if (existsSync(file)) {
    secrets = JSON.parse(await readFile(file, 'utf8')) as LocalSecrets;
    if (secrets.LOG_SIGNING_KEY === undefined) {
      secrets = { ...secrets, LOG_SIGNING_KEY: randomBytes(32).toString('base64url') };
      await writeFile(file, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600 });
      generated = true;
    }
  } else {
    const { createDevelopmentSealingCertificate } = await import('../lib/pdf/index.js');
    const certificate = await createDevelopmentSealingCertificate({ commonName: 'Envelope Signing Service (local development)' });
    secrets = {
      JWT_SECRET: randomBytes(48).toString('base64url'),
      LOG_SIGNING_KEY: randomBytes(32).toString('base64url'),
      SEAL_P12_BASE64: certificate.p12Base64,
      SEAL_P12_PASSPHRASE: certificate.passphrase,
    };
    await mkdir(dir, { recursive: true });
    await writeFile(file, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600 });
    generated = true;
  }
  for (const [name, value] of Object.entries(secrets)) process.env[name] ??= value;
  return generated;
}

/** A connection string with its secrets (account key, SAS signature) replaced by `<redacted>`, for printing. */
export function redactConnectionString(connectionString: string): string {
  return connectionString.replace(/((?:^|;)\s*(?:AccountKey|SharedAccessSignature)\s*=)[^;]*/gi, '$1<redacted>');
}

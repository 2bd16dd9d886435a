/**
 * Jest global setup: one throwaway in-memory Azurite for the whole run, and the settings every test
 * process inherits (test workers are started after this, with this environment).
 */
import { randomBytes } from 'node:crypto';
import { startAzurite, type RunningAzurite } from '../../src/local/azurite.js';
import { createDevelopmentSealingCertificate } from '../../src/lib/pdf/index.js';

declare global {
  // eslint-disable-next-line no-var
  var testAzurite: RunningAzurite | undefined;
}

export default async function globalSetup(): Promise<void> {
  const azurite = await startAzurite();
  globalThis.testAzurite = azurite;
  const certificate = await createDevelopmentSealingCertificate({ commonName: 'Envelope Signing Service (tests)' });
  Object.assign(process.env, {
    STORAGE_CONNECTION_STRING: azurite.connectionString,
    JWT_SECRET: randomBytes(48).toString('base64url'),
    SEAL_P12_BASE64: certificate.p12Base64,
    SEAL_P12_PASSPHRASE: certificate.passphrase,
    // The minimum the service accepts: keeps the many logins of the suite fast.
    BCRYPT_COST: '10',
    ALLOWED_ORIGINS: '*',
  });
  delete process.env.STORAGE_ACCOUNT_NAME;
  delete process.env.TURNSTILE_SECRET_KEY;
  delete process.env.TSA_URL;
}

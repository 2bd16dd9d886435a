/**
 * Jest global setup: one throwaway in-memory Azurite and one mail catcher (a real SMTP server, MailDev)
 * for the whole run, and the settings every test process inherits (test workers are started after
 * this, with this environment):
 *
 * - `SMTP_URL`: the mail catcher's SMTP server, so every service a test starts sends real e-mails
 *   there; read them with `tests/support/mail.ts`.
 * - `TEST_MAIL_CATCHER_URL`: the mail catcher's web address (REST API under `/api`).
 * - `REQUIRE_EMAIL_VERIFICATION=false`: owners may send without verifying their address (the tests of
 *   verified senders turn it on for their own service).
 * - `PUBLIC_BASE_URL`: a fixed origin. Every test process's service polls the same queues, so an
 *   e-mail may be written by another process's service than the one that made the change; its link
 *   therefore names no test server. Tests take the token from the link (`signingLinkIn`) and use it
 *   against their own service.
 * - `RATE_LIMIT_PER_MINUTE`, `AUTH_RATE_LIMIT_PER_MINUTE`: far above what any test file sends from its
 *   one address and its owners, so that only the tests of the limits meet them (they start services of
 *   their own with low limits).
 */
import { randomBytes } from 'node:crypto';
import { startAzurite, type RunningAzurite } from '../../src/local/azurite.js';
import { startMailCatcher, type RunningMailCatcher } from '../../src/local/mailCatcher.js';
import { createDevelopmentSealingCertificate } from '../../src/lib/pdf/index.js';

/** The `PUBLIC_BASE_URL` of the test suite (a reserved `.test` name: nothing answers there). */
export const TEST_PUBLIC_BASE_URL = 'https://envelope-signing.test';

declare global {
  // eslint-disable-next-line no-var
  var testAzurite: RunningAzurite | undefined;
  // eslint-disable-next-line no-var
  var testMailCatcher: RunningMailCatcher | undefined;
}

export default async function globalSetup(): Promise<void> {
  const [azurite, mailCatcher] = await Promise.all([startAzurite(), startMailCatcher({ smtpPort: 0, webPort: 0, maxEmails: 0 })]);
  globalThis.testAzurite = azurite;
  globalThis.testMailCatcher = mailCatcher;
  const certificate = await createDevelopmentSealingCertificate({ commonName: 'Envelope Signing Service (tests)' });
  Object.assign(process.env, {
    STORAGE_CONNECTION_STRING: azurite.connectionString,
    JWT_SECRET: randomBytes(48).toString('base64url'),
    LOG_SIGNING_KEY: randomBytes(32).toString('base64url'),
    SEAL_P12_BASE64: certificate.p12Base64,
    SEAL_P12_PASSPHRASE: certificate.passphrase,
    // The minimum the service accepts: keeps the many logins of the suite fast.
    BCRYPT_COST: '10',
    ALLOWED_ORIGINS: '*',
    SMTP_URL: mailCatcher.smtpUrl,
    TEST_MAIL_CATCHER_URL: mailCatcher.webUrl,
    PUBLIC_BASE_URL: TEST_PUBLIC_BASE_URL,
    RATE_LIMIT_PER_MINUTE: '1000000',
    AUTH_RATE_LIMIT_PER_MINUTE: '1000000',
    // Owners send without verifying their address first, as under `npm start`; the tests of verified
    // senders turn it on for their own service (tests/e2e/verifiedSenders.test.ts).
    REQUIRE_EMAIL_VERIFICATION: 'false',
  });
  delete process.env.STORAGE_ACCOUNT_NAME;
  delete process.env.TURNSTILE_SECRET_KEY;
  delete process.env.TSA_URL;
  delete process.env.ACS_EMAIL_ENDPOINT;
}

/**
 * `npm start`: the service on a laptop (README.md#quick-start). Starts Azurite (Blob, Queue and Table) with its
 * data under `.azurite/` (unless STORAGE_CONNECTION_STRING or STORAGE_ACCOUNT_NAME is set) and a mail
 * catcher keeping e-mails under `.local/mail/` (unless SMTP_URL is set) and an SMS catcher, a fake of
 * Azure Communication Services' SMS API (unless ACS_CONNECTION_STRING is set), generates local secrets on
 * first run, serves the API at http://127.0.0.1:${PORT:-7071}/api with the queue and timer
 * functions, prints the addresses, the storage connection string and a first invitation code (good for
 * a few registrations), keeps
 * `.local/runtime.json` for `npm run invite` while it runs, and stops everything on Ctrl-C.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { createInvitation } from '../lib/auth/invitations.js';
import { loadConfig, markLocalHost, type Config } from '../lib/config.js';
import { ConfigError } from '../lib/errors.js';
import { getServices } from '../lib/services.js';
import { startAzurite, type RunningAzurite } from './azurite.js';
import { startMailCatcher, type RunningMailCatcher } from './mailCatcher.js';
import { startSmsCatcher, type RunningSmsCatcher } from './smsCatcher.js';
import { removeRuntimeFile, writeRuntimeFile } from './runtimeFile.js';
import { startService, type RunningService } from './service.js';
import { applyLocalSecrets, applyLocalSettingsFile, redactConnectionString } from './settings.js';

/**
 * Registrations the first invitation code allows: the README's curl session and its "sign in a
 * browser" part each register an account with it, and a newcomer may try again.
 */
const FIRST_INVITATION_USES = 5;

/** A port from the environment (0 lets the system choose), or the Azurite default. @throws ConfigError */
function portSetting(name: string, fallback: number): number {
  const value = process.env[name]?.trim();
  if (value === undefined || value === '') return fallback;
  if (!/^\d{1,5}$/.test(value) || Number(value) > 65_535) throw new ConfigError(name, 'must be a port number from 0 to 65535');
  return Number(value);
}

function describeStorage(storage: Config['storage']): string {
  return storage.kind === 'managedIdentity'
    ? `Storage: account ${storage.accountName} with your Azure identity (STORAGE_ACCOUNT_NAME)`
    : `Storage connection string (from your settings, secrets redacted): ${redactConnectionString(storage.connectionString)}`;
}

async function main(): Promise<void> {
  const root = process.cwd();
  await applyLocalSettingsFile(root);
  if (await applyLocalSecrets(root)) console.log('Generated local secrets (JWT key, public log key, self-signed sealing certificate) in .local/secrets.json');
  // On a laptop, owners may send without verifying their address first, unless told otherwise.
  if (!process.env.REQUIRE_EMAIL_VERIFICATION?.trim()) {
    process.env.REQUIRE_EMAIL_VERIFICATION = 'false';
    console.log('REQUIRE_EMAIL_VERIFICATION is false here: owners may send before verifying their e-mail address (set it to true to try verification).');
  }

  let azurite: RunningAzurite | undefined;
  let mailCatcher: RunningMailCatcher | undefined;
  let smsCatcher: RunningSmsCatcher | undefined;
  let service: RunningService | undefined;
  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    console.log('\nStopping...');
    removeRuntimeFile(root, process.pid);
    await service?.close().catch(() => undefined);
    await mailCatcher?.stop().catch(() => undefined);
    await smsCatcher?.stop().catch(() => undefined);
    await azurite?.stop().catch(() => undefined);
    process.exit(code);
  };
  process.on('SIGINT', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));
  // However the process ends, a runtime file it wrote must not outlive it.
  process.on('exit', () => removeRuntimeFile(root, process.pid));

  try {
    // Validate the settings before starting anything (one line naming a bad setting), as the local host.
    markLocalHost();
    const storageConfigured = process.env.STORAGE_CONNECTION_STRING?.trim() || process.env.STORAGE_ACCOUNT_NAME?.trim();
    const settings = loadConfig({ ...process.env, ...(storageConfigured ? {} : { STORAGE_CONNECTION_STRING: 'UseDevelopmentStorage=true' }) });
    // Azurite and the catchers do not need each other: all start at once.
    const [storageStart, mailStart, smsStart] = await Promise.allSettled([
      storageConfigured
        ? Promise.resolve(undefined)
        : startAzurite({
            location: path.join(root, '.azurite'),
            blobPort: portSetting('AZURITE_BLOB_PORT', 10000),
            queuePort: portSetting('AZURITE_QUEUE_PORT', 10001),
            tablePort: portSetting('AZURITE_TABLE_PORT', 10002),
          }),
      settings.email.smtpUrl === undefined
        ? startMailCatcher({ smtpPort: settings.mailCatcher.smtpPort, webPort: settings.mailCatcher.webPort, mailDirectory: path.join(root, '.local', 'mail') })
        : Promise.resolve(undefined),
      settings.sms.connectionString === undefined ? startSmsCatcher({ port: settings.smsCatcherPort }) : Promise.resolve(undefined),
    ]);
    // Whatever started is stopped again by stop(), also when the other failed.
    if (storageStart.status === 'fulfilled') azurite = storageStart.value;
    if (mailStart.status === 'fulfilled') mailCatcher = mailStart.value;
    if (smsStart.status === 'fulfilled') smsCatcher = smsStart.value;
    if (storageStart.status === 'rejected') throw storageStart.reason;
    if (mailStart.status === 'rejected') throw mailStart.reason;
    if (smsStart.status === 'rejected') throw smsStart.reason;
    if (azurite !== undefined) {
      process.env.STORAGE_CONNECTION_STRING = azurite.connectionString;
      console.log(`Azure Storage (Azurite) at ${azurite.blobEndpoint} (blob), ${azurite.queueEndpoint} (queue) and ${azurite.tableEndpoint} (table), data in .azurite/`);
      console.log(`Storage connection string: ${azurite.connectionString}`);
    } else {
      console.log(describeStorage(loadConfig().storage));
    }
    if (mailCatcher !== undefined) {
      process.env.SMTP_URL = mailCatcher.smtpUrl;
      console.log(`Mail catcher (every e-mail the service sends): ${mailCatcher.webUrl} (SMTP at ${mailCatcher.smtpUrl})`);
    } else {
      console.log(`E-mail goes to the SMTP server of SMTP_URL (${new URL(settings.email.smtpUrl!).host}); no mail catcher.`);
    }
    if (smsCatcher !== undefined) {
      process.env.ACS_CONNECTION_STRING = smsCatcher.connectionString;
      // The catcher takes any sender; a real resource takes only its own numbers and sender ids.
      process.env.SMS_FROM = settings.sms.from ?? 'Signing';
      // The catcher posts Event Grid's events (replies, delivery reports) with this secret (docs/api.md#events-from-communication-services).
      process.env.ACS_EVENT_SECRET ??= randomBytes(32).toString('base64url');
      console.log(`SMS catcher: ${smsCatcher.url}`);
    } else {
      console.log(`Text messages go to Azure Communication Services at ${settings.sms.endpoint!}; no SMS catcher.`);
    }
    service = await startService({ port: settings.port });
    smsCatcher?.sendEventsTo(`${service.apiUrl}/events/acs`, process.env.ACS_EVENT_SECRET);
    const services = getServices();
    await writeRuntimeFile(root, {
      pid: process.pid,
      startedAt: new Date().toISOString(),
      apiUrl: service.apiUrl,
      mailCatcherUrl: mailCatcher?.webUrl ?? null,
      storage: services.config.storage,
    });
    const invitation = await createInvitation({ invitations: services.invitations, uses: FIRST_INVITATION_USES, expiresInSeconds: 7 * 86_400 });
    console.log(`API listening at ${service.apiUrl}`);
    console.log(`Health: ${service.apiUrl}/health`);
    console.log(`Links in e-mails point at ${service.publicBaseUrl}; queue and timer functions run here (sweeper schedule ${services.config.sweepSchedule}).`);
    console.log(
      services.config.tsaUrl === undefined
        ? `Seals: PAdES ${services.config.sealLevel}, no timestamp authority (set TSA_URL, e.g. TSA_URL=http://timestamp.digicert.com npm start, for B-LTA; docs/seal-levels.md).`
        : `Seals: PAdES ${services.config.sealLevel} with the timestamp authority ${services.config.tsaUrl}.`,
    );
    console.log('Create more invitation codes beside it with: npm run --silent invite');
    console.log(`Invitation code (${FIRST_INVITATION_USES} registrations, valid 7 days): ${invitation.code}`);
    console.log('Press Ctrl-C to stop.');
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
    } else {
      console.error(`Could not start: ${error instanceof Error ? error.message : String(error)}`);
      if (azurite === undefined && !process.env.STORAGE_CONNECTION_STRING) {
        console.error('If Azurite already runs on ports 10000-10002, set STORAGE_CONNECTION_STRING=UseDevelopmentStorage=true to use it.');
      }
      if (mailCatcher === undefined && /mail catcher/.test(String(error))) {
        console.error('Set MAIL_CATCHER_SMTP_PORT and MAIL_CATCHER_WEB_PORT to free ports (0 picks them), or SMTP_URL to use your own SMTP server.');
      }
      if (smsCatcher === undefined && /SMS catcher/.test(String(error))) {
        console.error('Set SMS_CATCHER_PORT to a free port (0 picks one), or ACS_CONNECTION_STRING to use Azure Communication Services.');
      }
    }
    await stop(1);
  }
}

void main();

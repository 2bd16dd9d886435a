/**
 * `npm start`: the service on a laptop (CONTRACT §9). Starts Azurite with its data under `.azurite/`
 * (unless STORAGE_CONNECTION_STRING or STORAGE_ACCOUNT_NAME is set), generates local secrets on first
 * run, serves the API at http://127.0.0.1:${PORT:-7071}/api, prints a first invitation code, and stops
 * everything on Ctrl-C.
 */
import path from 'node:path';
import { createInvitation } from '../lib/auth/invitations.js';
import { ConfigError, loadConfig } from '../lib/config.js';
import { getServices } from '../lib/services.js';
import { startAzurite, type RunningAzurite } from './azurite.js';
import { startService, type RunningService } from './service.js';
import { applyLocalSecrets, applyLocalSettingsFile } from './settings.js';

/** A port from the environment (0 lets the system choose), or the Azurite default. @throws ConfigError */
function portSetting(name: string, fallback: number): number {
  const value = process.env[name]?.trim();
  if (value === undefined || value === '') return fallback;
  if (!/^\d{1,5}$/.test(value) || Number(value) > 65_535) throw new ConfigError(name, 'must be a port number from 0 to 65535');
  return Number(value);
}

async function main(): Promise<void> {
  const root = process.cwd();
  await applyLocalSettingsFile(root);
  if (await applyLocalSecrets(root)) console.log('Generated local secrets (JWT key, self-signed sealing certificate) in .local/secrets.json');

  let azurite: RunningAzurite | undefined;
  let service: RunningService | undefined;
  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    console.log('\nStopping...');
    await service?.close().catch(() => undefined);
    await azurite?.stop().catch(() => undefined);
    process.exit(code);
  };
  process.on('SIGINT', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));

  try {
    // Validate the settings before starting anything (one line naming a bad setting).
    const storageConfigured = process.env.STORAGE_CONNECTION_STRING?.trim() || process.env.STORAGE_ACCOUNT_NAME?.trim();
    loadConfig({ ...process.env, ...(storageConfigured ? {} : { STORAGE_CONNECTION_STRING: 'UseDevelopmentStorage=true' }) });
    if (!storageConfigured) {
      azurite = await startAzurite({
        location: path.join(root, '.azurite'),
        blobPort: portSetting('AZURITE_BLOB_PORT', 10000),
        queuePort: portSetting('AZURITE_QUEUE_PORT', 10001),
        tablePort: portSetting('AZURITE_TABLE_PORT', 10002),
      });
      process.env.STORAGE_CONNECTION_STRING = azurite.connectionString;
      console.log(`Azure Storage (Azurite) at ${azurite.blobEndpoint} (blob) and ${azurite.tableEndpoint} (table), data in .azurite/`);
    }
    service = await startService({ port: loadConfig().port });
    const invitation = await createInvitation({ invitations: getServices().invitations, expiresInSeconds: 7 * 86_400 });
    console.log(`API listening at ${service.apiUrl}`);
    console.log(`Health: ${service.apiUrl}/health`);
    console.log(`Invitation code (one registration, valid 7 days): ${invitation.code}`);
    console.log('Press Ctrl-C to stop.');
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
    } else {
      console.error(`Could not start: ${error instanceof Error ? error.message : String(error)}`);
      if (azurite === undefined && !process.env.STORAGE_CONNECTION_STRING) {
        console.error('If Azurite already runs on ports 10000-10002, set STORAGE_CONNECTION_STRING=UseDevelopmentStorage=true to use it.');
      }
    }
    await stop(1);
  }
}

void main();

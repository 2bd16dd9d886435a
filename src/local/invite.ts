/**
 * `npm run --silent invite -- [--uses N] [--expires-in 7d]` (CONTRACT §2, §9): creates an invitation
 * code in the configured storage and prints it alone on the last line of stdout.
 *
 * Storage: STORAGE_CONNECTION_STRING, or STORAGE_ACCOUNT_NAME with your Azure identity (from the
 * environment or `local.settings.json`); with neither, the storage of the `npm start` running in this
 * folder, found through `.local/runtime.json`; with no `npm start` either, a local Azurite on the
 * standard ports (`UseDevelopmentStorage=true`).
 */
import net from 'node:net';
import { parseArgs } from 'node:util';
import { createInvitation } from '../lib/auth/invitations.js';
import { loadStorageSettings, type Config } from '../lib/config.js';
import { ConfigError } from '../lib/errors.js';
import { TABLES, createStorage } from '../lib/storage/clients.js';
import { InvitationRepository } from '../lib/storage/invitationRepository.js';
import { processAlive, readRuntimeFile, RUNTIME_FILE } from './runtimeFile.js';
import { applyLocalSettingsFile } from './settings.js';

/** A failure to explain in one line, without a stack. */
class InviteError extends Error {}

const units: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 };

/** Parses `90s`, `30m`, `12h`, `7d`, `2w` into seconds. @throws RangeError */
export function parseDuration(text: string): number {
  const match = /^(\d{1,6})([smhdw])$/.exec(text.trim());
  if (match === null) throw new RangeError(`--expires-in takes a number and a unit (s, m, h, d, w), such as 7d; got "${text}"`);
  return Number(match[1]) * units[match[2]!]!;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { uses: { type: 'string', default: '1' }, 'expires-in': { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    strict: true,
  });
  if (values.help) {
    console.log('Usage: npm run --silent invite -- [--uses N] [--expires-in 7d]');
    return;
  }
  if (!/^\d{1,6}$/.test(values.uses) || Number(values.uses) < 1) throw new RangeError('--uses takes a whole number of at least 1');
  await applyLocalSettingsFile(process.cwd());
  const storage = createStorage(await findStorage(process.cwd()));
  await storage.tables.invitations.createTable();
  const invitation = await createInvitation({
    invitations: new InvitationRepository(storage.tables.invitations),
    uses: Number(values.uses),
    ...(values['expires-in'] === undefined ? {} : { expiresInSeconds: parseDuration(values['expires-in']) }),
  });
  const expiry = invitation.expiresAt === null ? 'never expires' : `expires ${invitation.expiresAt}`;
  console.error(`Invitation for ${invitation.maxUses} registration(s), ${expiry}, stored in table ${TABLES.invitations}:`);
  console.log(invitation.code);
}

/**
 * The storage to use (see the module comment).
 * @throws InviteError when `.local/runtime.json` was left by an `npm start` that no longer runs, or
 *   the local storage does not answer; ConfigError for an invalid setting
 */
async function findStorage(root: string, env: NodeJS.ProcessEnv = process.env): Promise<Config['storage']> {
  if (env.STORAGE_CONNECTION_STRING?.trim() || env.STORAGE_ACCOUNT_NAME?.trim()) return loadStorageSettings(env);
  const runtime = await readRuntimeFile(root).catch((error: unknown) => {
    throw new InviteError(error instanceof Error ? error.message : String(error));
  });
  if (runtime === null) {
    const storage = loadStorageSettings({});
    await probe(storage, `No npm start runs in this folder (no ${RUNTIME_FILE}) and no storage is configured, so the local Azurite on the standard ports was tried`);
    return storage;
  }
  if (!processAlive(runtime.pid)) {
    throw new InviteError(
      `${RUNTIME_FILE} was left by an npm start (process ${runtime.pid}, started ${runtime.startedAt}) that no longer runs: start npm start again in this folder, or set STORAGE_CONNECTION_STRING.`,
    );
  }
  await probe(runtime.storage, `The storage of the npm start running in this folder (process ${runtime.pid}) does not answer`);
  console.error(`Using the storage of the npm start running in this folder (process ${runtime.pid}, API at ${runtime.apiUrl}).`);
  return runtime.storage;
}

/** Fails fast (2 s) when the Table endpoint of a local connection string refuses connections. */
async function probe(storage: Config['storage'], failure: string): Promise<void> {
  if (storage.kind !== 'connectionString') return;
  const endpoint = tableEndpoint(storage.connectionString);
  if (endpoint === null) return;
  const reachable = await new Promise<boolean>((resolve) => {
    const socket = net.connect({ host: endpoint.hostname, port: Number(endpoint.port || (endpoint.protocol === 'https:' ? 443 : 80)) });
    const settle = (answer: boolean) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(2_000);
    socket.once('connect', () => settle(true));
    socket.once('timeout', () => settle(false));
    socket.once('error', () => settle(false));
  });
  if (!reachable) throw new InviteError(`${failure}: nothing listens at ${endpoint.origin}.`);
}

/** The Table endpoint a connection string names, or `null` when it names none that can be probed. */
function tableEndpoint(connectionString: string): URL | null {
  const parts = new Map(
    connectionString
      .split(';')
      .map((part) => part.trim())
      .filter((part) => part.includes('='))
      .map((part) => [part.slice(0, part.indexOf('=')).toLowerCase(), part.slice(part.indexOf('=') + 1)] as const),
  );
  if (parts.get('usedevelopmentstorage')?.toLowerCase() === 'true') return new URL('http://127.0.0.1:10002');
  const explicit = parts.get('tableendpoint');
  try {
    return explicit === undefined ? null : new URL(explicit);
  } catch {
    return null;
  }
}

main().catch((error: unknown) => {
  const message = error instanceof ConfigError || error instanceof RangeError || error instanceof TypeError || error instanceof InviteError ? error.message : `could not create the invitation: ${error instanceof Error ? error.message : String(error)}`;
  console.error(`invite: ${message}`);
  process.exitCode = 1;
});

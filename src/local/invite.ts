/**
 * `npm run --silent invite -- [--uses N] [--expires-in 7d]` (docs/api.md#accounts, README.md#quick-start): creates an invitation
 * code in the configured storage and prints it alone on the last line of stdout.
 *
 * Storage: STORAGE_CONNECTION_STRING, or STORAGE_ACCOUNT_NAME with your Azure identity (from the
 * environment or `local.settings.json`); with neither, the storage of the `npm start` running in this
 * folder, found through `.local/runtime.json`; with no `npm start` either, a local Azurite on the
 * standard ports (`UseDevelopmentStorage=true`).
 */
import { parseArgs } from 'node:util';
import { createInvitation } from '../lib/auth/invitations.js';
import { ConfigError } from '../lib/errors.js';
import { TABLES, createStorage } from '../lib/storage/clients.js';
import { InvitationRepository } from '../lib/storage/invitationRepository.js';
import { findStorage, LocalStorageError } from './findStorage.js';
import { applyLocalSettingsFile } from './settings.js';

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

main().catch((error: unknown) => {
  const message = error instanceof ConfigError || error instanceof RangeError || error instanceof TypeError || error instanceof LocalStorageError ? error.message : `could not create the invitation: ${error instanceof Error ? error.message : String(error)}`;
  console.error(`invite: ${message}`);
  process.exitCode = 1;
});

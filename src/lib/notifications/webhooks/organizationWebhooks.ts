/**
 * The organisation's webhooks (docs/api.md#webhooks): they live in its partition of table `webhooks`,
 * `org_<organizationId>`. The webhooks its members made before organisations (each in its maker's
 * partition) become the organisation's on first use, online, with nothing lost
 * (docs/architecture.md#tables): the first time anything reads or changes the organisation's webhooks,
 * each member's old webhooks are copied into its partition (same id, so the same deliveries log; the
 * same secret, encrypted anew for the new partition), then the partition is marked `migrated`. Every
 * step may be repeated: a copy already there is left alone, so a process that dies half-way is
 * completed by the next reader. The old rows stay (attempts queued before the copy still find them);
 * deleting the webhook deletes both.
 */
import type { Services } from '../../services.js';
import type { Webhook } from './model.js';
import { decryptWebhookSecret, encryptWebhookSecret, secretEncryptionKey } from './secrets.js';

type WebhookServices = Pick<Services, 'config' | 'webhooks' | 'organizations'>;

/** The organisation's partition of table `webhooks`. */
export function organizationPartition(organizationId: string): string {
  return `org_${organizationId}`;
}

/**
 * The organisation's partition of table `webhooks`, its members' older webhooks copied in first if
 * they are not yet (see the module comment): what every webhook endpoint and the fan-out read.
 * @throws storage errors (nothing is lost: the next call copies again)
 */
export async function organizationWebhookPartition(services: WebhookServices, organizationId: string): Promise<string> {
  const partition = organizationPartition(organizationId);
  if (await services.webhooks.migrated(partition)) return partition;
  const key = secretEncryptionKey(services.config.jwt.secret);
  const members = await services.organizations.members(organizationId);
  for (const member of members) {
    for (const old of await services.webhooks.list(member.userId)) {
      const secret = decryptWebhookSecret(old.encryptedSecret, key, { ownerId: old.ownerId, webhookId: old.id });
      const copy: Webhook = { ...old, ownerId: partition, encryptedSecret: encryptWebhookSecret(secret, key, { ownerId: partition, webhookId: old.id }), migratedFrom: old.ownerId };
      await services.webhooks.copyIn(copy);
    }
  }
  await services.webhooks.markMigrated(partition, new Date().toISOString());
  return partition;
}

/** The organisation's webhooks, oldest first ({@link organizationWebhookPartition}). */
export async function organizationWebhooks(services: WebhookServices, organizationId: string): Promise<Webhook[]> {
  return await services.webhooks.list(await organizationWebhookPartition(services, organizationId));
}

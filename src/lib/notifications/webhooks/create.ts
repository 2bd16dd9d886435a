/**
 * Creating a webhook (docs/api.md#webhooks, `POST /api/webhooks`).
 */
import { uuidv7 } from '../../ids.js';
import type { Services } from '../../services.js';
import { WebhookLimitError } from './webhookRepository.js';
import { WEBHOOK_EVENT_TYPES } from '../outbox.js';
import { MAX_WEBHOOKS_PER_ORGANIZATION, type CreatedWebhookView, type Webhook } from './model.js';
import type { CreateWebhookRequest } from './schemas.js';
import { encryptWebhookSecret, generateWebhookSecret, secretEncryptionKey } from './secrets.js';
import { checkWebhookUrl, type HostResolver } from '../../outbound/target.js';
import { toWebhookView } from './views.js';
import { problem } from '../../problems.js';

export interface CreateWebhookOptions {
  services: Pick<Services, 'config' | 'webhooks'>;
  ownerId: string;
  request: CreateWebhookRequest;
  /** Resolver of the URL's host; the system's by default. */
  resolve?: HostResolver;
}

/**
 * Checks the URL (scheme, credentials, resolved addresses), creates the webhook with a new secret and
 * returns it with the secret, the only time the secret is shown.
 * @throws AppError 400 `invalid-webhook-url` for a URL refused by the SSRF rules; 409
 *   `webhook-limit` when the owner already has {@link MAX_WEBHOOKS_PER_ORGANIZATION}
 */
export async function createWebhook({ services, ownerId, request, resolve }: CreateWebhookOptions): Promise<CreatedWebhookView> {
  const url = await checkWebhookUrl(request.url, { allowPrivate: services.config.outboundAllowPrivateNetworks, ...(resolve === undefined ? {} : { resolve }) });
  const requested = request.events ?? WEBHOOK_EVENT_TYPES;
  const id = uuidv7();
  const secret = generateWebhookSecret();
  const webhook: Webhook = {
    id,
    ownerId,
    url,
    events: WEBHOOK_EVENT_TYPES.filter((type) => requested.includes(type)),
    description: request.description ?? null,
    createdAt: new Date().toISOString(),
    encryptedSecret: encryptWebhookSecret(secret, secretEncryptionKey(services.config.jwt.secret), { ownerId, webhookId: id }),
  };
  try {
    await services.webhooks.create(webhook, MAX_WEBHOOKS_PER_ORGANIZATION);
  } catch (error) {
    if (error instanceof WebhookLimitError) {
      throw problem('webhookLimit', { detail: `Your organization already has ${MAX_WEBHOOKS_PER_ORGANIZATION} webhooks, the most allowed; delete one first.` });
    }
    throw error;
  }
  return { ...toWebhookView(webhook), secret };
}

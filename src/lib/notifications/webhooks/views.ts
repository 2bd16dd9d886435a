/**
 * Webhooks as responses show them (docs/api.md#webhooks), and the 404 of a webhook the caller does not have.
 */
import { AppError } from '../../errors.js';
import { isUuid } from '../../ids.js';
import type { WebhookRepository } from './webhookRepository.js';
import type { Webhook, WebhookView } from './model.js';
import { problem } from '../../problems.js';

/** A webhook without its secret. */
export function toWebhookView(webhook: Webhook): WebhookView {
  return { id: webhook.id, url: webhook.url, events: webhook.events, description: webhook.description, createdAt: webhook.createdAt };
}

/**
 * The caller's webhook with this id.
 * @throws AppError 404 `webhook-not-found`, the same for a malformed id, a missing webhook and
 *   another owner's (the answer never reveals that it exists)
 */
export async function readOwnedWebhook(webhooks: WebhookRepository, ownerId: string, id: string): Promise<Webhook> {
  const webhook = isUuid(id) ? await webhooks.read(ownerId, id) : null;
  if (webhook === null) throw webhookNotFound();
  return webhook;
}

export function webhookNotFound(): AppError {
  return problem('webhookNotFound');
}

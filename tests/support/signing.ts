/**
 * Test support for the recipients' API: signing tokens and outbox batches, read from storage.
 *
 * White-box shortcut: a recipient's raw signing token exists only in its e-mail, which the e-mail
 * sender writes by deriving the token from the salt stored on the envelope. Until the end-to-end
 * e-mail tests read links from a real mailbox, these tests derive the token the same way
 * (`signingToken(signingLinkKey(JWT_SECRET), salt)`), from the stored envelope.
 */
import { randomUUID } from 'node:crypto';
import { odata } from '@azure/data-tables';
import type { EnvelopeRecord, Signer } from '../../src/lib/envelopes/model.js';
import type { OutboxBatch, OutboxMessage } from '../../src/lib/notifications/outbox.js';
import { signingLinkKey, signingToken } from '../../src/lib/envelopes/signingLinks.js';
import { getServices } from '../../src/lib/services.js';
import { EnvelopeChangedError } from '../../src/lib/storage/envelopeRepository.js';
import { waitUntil } from './patience.js';

import { corpusPdf, createEnvelopeWithDocument, type ApiClient, type TestUser } from './service.js';

/** The envelope as stored, internal fields included. */
export async function storedEnvelope(ownerId: string, envelopeId: string): Promise<EnvelopeRecord> {
  const stored = await getServices().envelopes.read(ownerId, envelopeId);
  if (stored === null) throw new Error(`no envelope ${envelopeId}`);
  return stored.record;
}

/**
 * Changes the stored envelope as a test needs it (white box: moves a recorded time back, as if it had
 * passed), rewritten under its ETag. The service may write the row meanwhile (an e-mail's state after
 * a send): then the row is read again and changed again, at most 10 times.
 * @throws EnvelopeChangedError when the row kept changing
 */
export async function rewriteStoredEnvelope(ownerId: string, envelopeId: string, change: (record: EnvelopeRecord) => void): Promise<void> {
  const services = getServices();
  for (let attempt = 0; ; attempt++) {
    const stored = await services.envelopes.read(ownerId, envelopeId);
    if (stored === null) throw new Error(`no envelope ${envelopeId}`);
    const record = structuredClone(stored.record);
    change(record);
    try {
      await services.envelopes.replace(stored, record, []);
      return;
    } catch (error) {
      if (!(error instanceof EnvelopeChangedError) || attempt >= 10) throw error;
    }
  }
}

/** The stored recipient with this e-mail address (or id). */
export async function storedRecipient(ownerId: string, envelopeId: string, emailOrId: string): Promise<Signer> {
  const record = await storedEnvelope(ownerId, envelopeId);
  const recipient = record.signers.find((signer) => signer.email === emailOrId || signer.id === emailOrId);
  if (recipient === undefined) throw new Error(`no recipient ${emailOrId} on envelope ${envelopeId}`);
  return recipient;
}

/**
 * The raw token of the recipient's current signing link, derived from its stored salt as the e-mail
 * sender derives it (see the module comment).
 * @throws Error when the recipient has no link (not invited yet)
 */
export async function signingTokenFor(ownerId: string, envelopeId: string, emailOrId: string): Promise<string> {
  const recipient = await storedRecipient(ownerId, envelopeId, emailOrId);
  if (recipient.link === null) throw new Error(`recipient ${emailOrId} has no signing link`);
  return signingToken(signingLinkKey(getServices().config.jwt.secret), recipient.link.salt);
}

/** The envelope's outbox batches, oldest first. */
export async function outboxBatches(ownerId: string, envelopeId: string): Promise<OutboxBatch[]> {
  const services = getServices();
  const filter = odata`PartitionKey eq ${ownerId} and RowKey gt ${'outbox_'} and RowKey lt ${'outbox_~'} and envelopeId eq ${envelopeId}`;
  const batches: OutboxBatch[] = [];
  for await (const entity of services.storage.tables.envelopes.listEntities<{ batchId: string }>({ queryOptions: { filter } })) {
    const batch = await services.outbox.read(ownerId, entity.batchId);
    if (batch !== null) batches.push(batch);
  }
  return batches.sort((a, b) => a.id.localeCompare(b.id));
}

export interface SentEnvelopeOptions {
  signers: Record<string, unknown>[];
  /** Fields naming signers by the index of their entry in `signers` (`recipient`). */
  fields?: (Record<string, unknown> & { recipient: number })[];
  signingOrder?: 'parallel' | 'sequential';
  /** Settings sent with the send (`allowReassign`, `remindEveryDays`, ...). */
  settings?: Record<string, unknown>;
  pdf?: Uint8Array;
  headers?: Record<string, string>;
}

/**
 * Creates an envelope with a document, signers and fields, and sends it in one request (as a client
 * would: new signers named by UUIDs of its own choosing, which fields refer to).
 * @returns the envelope id and the send's response body
 */
export async function sentEnvelope(api: ApiClient, owner: TestUser, options: SentEnvelopeOptions): Promise<{ id: string; envelope: any; recipientIds: string[] }> {
  const id = await createEnvelopeWithDocument(api, owner, options.pdf ?? (await corpusPdf('normal.pdf')));
  const recipientIds = options.signers.map(() => randomUUID());
  const signers = options.signers.map((signer, index) => ({ id: recipientIds[index], ...signer }));
  const fields = (options.fields ?? []).map(({ recipient, ...field }) => ({ recipientId: recipientIds[recipient], ...field }));
  const response = await api.request('PUT', `/envelopes/${id}`, {
    token: owner.token,
    ...(options.headers === undefined ? {} : { headers: options.headers }),
    json: { ...options.settings, signers, fields, status: 'sent', ...(options.signingOrder === undefined ? {} : { signingOrder: options.signingOrder }) },
  });
  if (response.status !== 200) throw new Error(`send failed: ${response.status} ${response.text}`);
  return { id, envelope: response.body, recipientIds };
}

/**
 * Waits until no e-mail of the envelope's recipients is still queued (every `lastEmail.status` is
 * `sent` or `failed`). The outbox records a delivery whenever it gets to it, changing the envelope's
 * row: a test that compares the envelope before and after a refused request takes its "before" once
 * this has happened, so that only the refusal could change it.
 * @throws Error when an e-mail is still queued after `timeoutMs` (default 30 s, scaled by `patience`)
 */
export async function emailsDispatched(ownerId: string, envelopeId: string, timeoutMs = 30_000): Promise<void> {
  await waitUntil(
    async () => ((await storedEnvelope(ownerId, envelopeId)).signers.some((signer) => signer.lastEmail?.status === 'queued') ? undefined : true),
    timeoutMs,
    `the e-mails of envelope ${envelopeId} to leave the outbox`,
  );
}

/** The envelope's audit trail over HTTP. */
export async function auditTrail(api: ApiClient, owner: TestUser, id: string): Promise<any[]> {
  const response = await api.request('GET', `/envelopes/${id}/audit`, { token: owner.token });
  if (response.status !== 200) throw new Error(`audit failed: ${response.status}`);
  return response.body as any[];
}

/** Every message of the envelope's outbox batches, oldest batch first. */
export async function outboxMessages(ownerId: string, envelopeId: string): Promise<OutboxMessage[]> {
  return (await outboxBatches(ownerId, envelopeId)).flatMap((batch) => batch.messages);
}

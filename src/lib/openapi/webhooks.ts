/**
 * The webhook endpoints and the webhook events in the OpenAPI document (docs/api.md#webhooks):
 * {@link registerWebhookOperations} adds the five operations under `paths` and one entry per event
 * type under the OpenAPI 3.1 `webhooks` object (what the service POSTs to a receiver).
 *
 * Response schemas are strict objects tied at compile time to the types the service answers with
 * (bottom of this file), like `./responses.ts`.
 */
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { WEBHOOK_EVENT_TYPES, type WebhookEventBody } from '../notifications/outbox.js';
import {
  ATTEMPT_OUTCOMES,
  DELIVERY_LOG_SIZE,
  MAX_WEBHOOKS_PER_ORGANIZATION,
  type CreatedWebhookView,
  type DeliveryAttemptView,
  type WebhookView,
} from '../notifications/webhooks/model.js';
import { createWebhookRequest, webhookEventType } from '../notifications/webhooks/schemas.js';
import { cacheControlNoStore, deleteOperation, internalError, jsonBodyTooLarge, jsonRequestBody, notJson, ownerProblems, storageUnavailable, unauthorized, type Operation } from './common.js';
import { problemResponses, timestamp, uuidV7, type ProblemExample } from './responses.js';
import { matches, type Matches, type SameKeys } from './ties.js';

export const webhookResponse = z
  .strictObject({
    id: uuidV7,
    url: z.string().meta({ description: 'Where deliveries are POSTed (normalized).' }),
    events: z.array(webhookEventType).meta({ description: 'The events it receives; all of them when none were named.' }),
    description: z.string().nullable(),
    createdAt: timestamp,
  })
  .meta({ id: 'Webhook', description: 'A webhook: where the owner\'s events are delivered. Never its secret.' });

export const createdWebhookResponse = z
  .strictObject({
    ...webhookResponse.shape,
    secret: z
      .string()
      .regex(/^whsec_[A-Za-z0-9+/]{43}=$/)
      .meta({ description: 'The signing secret, `whsec_` + base64 of 32 random bytes. Shown only in this answer: keep it to verify deliveries.' }),
  })
  .meta({ id: 'CreatedWebhook', description: 'The new webhook with its signing secret.' });

export const webhookListResponse = z.array(webhookResponse).meta({ id: 'WebhookList', description: 'The caller\'s webhooks, oldest first.' });

export const deliveryAttemptResponse = z
  .strictObject({
    id: uuidV7.meta({ description: 'The attempt; name it to redeliver its event.' }),
    eventId: z.uuid().meta({ description: 'The event (the `webhook-id` header), the same on every attempt of the event.' }),
    eventType: webhookEventType,
    attempt: z.int().min(1).meta({ description: '1 for the first attempt of this event at this webhook, then 2, 3, ... (redeliveries included).' }),
    at: timestamp.meta({ description: 'When the request was sent.' }),
    outcome: z.enum(ATTEMPT_OUTCOMES).meta({
      description: '`succeeded`: the receiver answered 2xx. `retrying`: this attempt failed, another comes at `nextAttemptAt`. `failed`: it failed and no other attempt comes.',
    }),
    responseStatus: z.int().min(100).max(599).nullable().meta({ description: 'The receiver\'s HTTP status; `null` when none came (refused, unreachable, timed out).' }),
    error: z.string().max(500).nullable().meta({ description: 'What went wrong, in a sentence; `null` on success.' }),
    nextAttemptAt: timestamp.nullable().meta({ description: 'When the next attempt is due (`retrying` only).' }),
  })
  .meta({ id: 'WebhookDeliveryAttempt', description: 'One delivery attempt of the log.' });

export const deliveryAttemptListResponse = z
  .array(deliveryAttemptResponse)
  .max(DELIVERY_LOG_SIZE)
  .meta({ id: 'WebhookDeliveryLog', description: `The newest ${DELIVERY_LOG_SIZE} attempts, newest first.` });

// Statuses as docs/api.md#lifecycle and docs/api.md#recipients name them.
const envelopeStatusAfter = z.enum(['draft', 'sent', 'completed', 'declined', 'expired', 'voided']);
const recipientStatus = z.enum(['created', 'waiting', 'sent', 'opened', 'signed', 'approved', 'viewed', 'declined', 'reassigned']);

/** The body of every delivery (docs/api.md#webhooks). */
export const webhookEventSchema = z
  .strictObject({
    id: z.uuid().meta({ description: 'The event id: the same on every attempt and redelivery, and sent as the `webhook-id` header. Deduplicate by it.' }),
    type: webhookEventType,
    createdAt: timestamp.meta({ description: 'When the event happened.' }),
    organizationId: z
      .uuid()
      .optional()
      .meta({ description: 'The organization the envelope belongs to: every member\'s envelope events reach the organization\'s webhooks. Absent only on events queued before organizations existed and delivered since.' }),
    actor: z
      .strictObject({ userId: z.uuid(), email: z.email() })
      .optional()
      .meta({ description: 'The member who acted (the envelope\'s owner, or an admin acting through the API); absent when a recipient or the system (expiry, reminders) acted.' }),
    data: z.strictObject({
      envelopeId: uuidV7.optional().meta({ description: 'The envelope; on every event but `bulk.completed` (which is about a bulk job).' }),
      status: envelopeStatusAfter
        .or(z.enum(['cancelled']))
        .meta({ description: 'The envelope\'s status right after the event (`completed` when this action completed it); on `bulk.completed` the job\'s, `completed` or `cancelled`.' }),
      bulkJobId: z.uuid().optional().meta({ description: '`bulk.completed`: the bulk job (docs/api.md#bulk-send).' }),
      templateId: z.uuid().optional().meta({ description: '`bulk.completed`: the template the job used.' }),
      total: z.int().min(1).optional().meta({ description: '`bulk.completed`: the job\'s rows.' }),
      created: z.int().min(0).optional().meta({ description: '`bulk.completed`: rows whose envelope was made (and sent, unless the job said `send: false`).' }),
      failed: z.int().min(0).optional().meta({ description: '`bulk.completed`: rows that failed; the rest of a cancelled job\'s rows stay `pending`.' }),
      recipient: z
        .strictObject({ id: z.uuid(), email: z.email(), name: z.string(), role: z.enum(['signer', 'approver', 'viewer', 'cc']), status: recipientStatus })
        .optional()
        .meta({ description: 'The recipient who acted (`recipient.*` events, `envelope.declined`), with its status after the event.' }),
      hash: z
        .string()
        .regex(/^[0-9a-f]{64}$/)
        .optional()
        .meta({ description: 'SHA-256 of the sealed PDF, when the envelope is completed.' }),
      documentSha256: z.string().regex(/^[0-9a-f]{64}$/).optional().meta({ description: '`envelope.sent`: SHA-256 of the frozen document (the upload, cleaned of active content).' }),
      uploadSha256: z
        .string()
        .regex(/^[0-9a-f]{64}$/)
        .nullable()
        .optional()
        .meta({ description: '`envelope.sent`: SHA-256 of the bytes as uploaded, before cleaning (for an envelope made from a template, its template\'s upload); `null` when not known (a template frozen before uploads\' hashes were recorded).' }),
      reason: z.string().optional().meta({ description: 'The decline reason (`recipient.declined`, `envelope.declined`), the reassignment reason (`recipient.reassigned`) or the owner\'s reason for voiding (`envelope.voided`, when one was given); `envelope.purged`: `delete` or `retention`.' }),
    }),
  })
  .meta({ id: 'WebhookEvent', description: 'What a webhook receives. Never a token or a signed URL.' });

const ids = {
  organization: '0193a5af-2c3d-7e4f-8a5b-6c7d8e9f0a1b',
  owner: '0193a5b0-1f2e-7a6b-8c9d-0e1f2a3b4c5d',
  webhook: '0193a5c4-2b7d-7e10-8f3a-5c6d7e8f9a0b',
  attempt: '0193a5c6-9e1f-7a2b-8c3d-4e5f6a7b8c9d',
  event: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
  envelope: '0193a5b2-7c1e-7d3f-9a41-3f1c2b9e8d70',
  recipient: '5b0f3c52-8d1e-4b7a-9f3e-2c6d7a8b9e01',
  bulkJob: '0193a5d2-3c4d-7e5f-8a6b-7c8d9e0f1a2b',
  template: '0193a5d1-6a2b-7c3d-8e4f-5a6b7c8d9e0f',
};
const exampleWebhook = {
  id: ids.webhook,
  url: 'https://hooks.example.com/envelopes',
  events: ['envelope.completed', 'recipient.signed'],
  description: 'CRM sync',
  createdAt: '2026-11-22T10:15:30.123Z',
};
const recipient = { id: ids.recipient, email: 'bob@example.com', name: 'Bob Builder', role: 'signer', status: 'signed' };
const sha256 = '3d5c7f0a9b8e6d4c2b1a0f9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c';

/** What each event says, and an example of it. */
const EVENT_DOCS: Record<(typeof WEBHOOK_EVENT_TYPES)[number], { summary: string; data: Record<string, unknown> }> = {
  'envelope.sent': {
    summary: 'The owner sent the envelope; `documentSha256` is the frozen document\'s SHA-256, `uploadSha256` the upload\'s (they differ when active content was removed).',
    data: { envelopeId: ids.envelope, status: 'sent', documentSha256: sha256, uploadSha256: '9f2e4c6a8b0d1f3e5a7c9b1d3f5e7a9c0b2d4f6e8a0c2e4f6a8b0d2f4e6a8c0b' },
  },
  'envelope.completed': { summary: 'Every recipient has acted and the document is sealed; `hash` is the sealed PDF\'s SHA-256.', data: { envelopeId: ids.envelope, status: 'completed', hash: sha256 } },
  'envelope.declined': { summary: 'A recipient declined, which ends the envelope.', data: { envelopeId: ids.envelope, status: 'declined', recipient: { ...recipient, status: 'declined' }, reason: 'The amount is wrong.' } },
  'envelope.voided': { summary: 'The owner voided the envelope, with its reason when one was given.', data: { envelopeId: ids.envelope, status: 'voided', reason: 'The price changed; a new contract follows.' } },
  'envelope.expired': { summary: 'The envelope passed its `expiresAt` before everyone acted.', data: { envelopeId: ids.envelope, status: 'expired' } },
  'envelope.purged': {
    summary: 'The finished envelope\'s documents were purged: `reason` is `delete` (`DELETE /api/envelopes/{id}`) or `retention` (the organization\'s `retentionDays` passed); `hash` is the sealed PDF\'s SHA-256 (absent for an envelope never sealed), which stays verifiable.',
    data: { envelopeId: ids.envelope, status: 'completed', hash: sha256, reason: 'retention' },
  },
  'recipient.opened': { summary: 'A recipient opened its signing link for the first time.', data: { envelopeId: ids.envelope, status: 'sent', recipient: { ...recipient, status: 'opened' } } },
  'recipient.signed': { summary: 'A signer signed.', data: { envelopeId: ids.envelope, status: 'sent', recipient } },
  'recipient.approved': { summary: 'An approver approved.', data: { envelopeId: ids.envelope, status: 'sent', recipient: { ...recipient, role: 'approver', status: 'approved' } } },
  'recipient.viewed': { summary: 'A viewer confirmed it has seen the document.', data: { envelopeId: ids.envelope, status: 'sent', recipient: { ...recipient, role: 'viewer', status: 'viewed' } } },
  'recipient.declined': { summary: 'A recipient declined, with its reason.', data: { envelopeId: ids.envelope, status: 'declined', recipient: { ...recipient, status: 'declined' }, reason: 'The amount is wrong.' } },
  'recipient.reassigned': {
    summary: 'A signer or approver handed its part to someone else (the envelope allows it), with its reason; the new recipient is invited.',
    data: { envelopeId: ids.envelope, status: 'sent', recipient: { ...recipient, status: 'reassigned' }, reason: 'Carol signs for our company.' },
  },
  'bulk.completed': {
    summary: 'A bulk job ended: every row was tried (`completed`), or it was cancelled (`cancelled`, rows not created stay `pending`).',
    data: { bulkJobId: ids.bulkJob, templateId: ids.template, status: 'completed', total: 800, created: 798, failed: 2 },
  },
};

const json = 'application/json';
const bearer = [{ bearerAuth: [] }];
const noStore = cacheControlNoStore();

const problems = {
  ...ownerProblems,
  'validation-failed': {
    detail: 'The request body is invalid: secret is not a known field.',
    errors: [{ path: 'secret', message: 'is not a known field' }],
  },
  'invalid-webhook-url': {
    detail: 'The webhook url the host hooks.example.com resolves to 10.0.0.7, a private (RFC 1918) address, which webhooks may not reach.',
    errors: [{ path: 'url', message: 'the host hooks.example.com resolves to 10.0.0.7, a private (RFC 1918) address, which webhooks may not reach' }],
  },
  'webhook-not-found': {},
  'delivery-not-found': {},
  'webhook-limit': { detail: `Your organization already has ${MAX_WEBHOOKS_PER_ORGANIZATION} webhooks, the most allowed; delete one first.` },
  'webhooks-contended': {},
} satisfies Record<string, ProblemExample>;

/** A problem-details response with one example per slug, and the headers its status carries. */
const problem = problemResponses(problems);

const webhookNotFound = problem(404, 'No webhook with this id, or another organization\'s (the same answer).', ['webhook-not-found']);
const webhookIdParam = z.object({
  id: z.string().meta({ description: 'The webhook id. Another user\'s webhook is answered 404, exactly as a missing one.', examples: [ids.webhook] }),
});

const createBody = createWebhookRequest.meta({ id: 'CreateWebhookRequest', description: 'A new webhook.' });

const operations: Operation[] = [
  {
    operationId: 'CreateWebhook',
    method: 'post',
    path: '/webhooks',
    tags: ['Webhooks'],
    summary: 'Create a webhook',
    description: `Deliveries of the envelope events of every member of the caller's organization go to \`url\`, signed with the Standard Webhooks scheme and the \`secret\` of this answer, which is never shown again. The URL must be \`https:\` and its host must resolve to public addresses only: loopback, private (RFC 1918), link-local, shared (100.64.0.0/10), unique-local and metadata addresses are refused, here and again at every delivery. Admin or owner. At most ${MAX_WEBHOOKS_PER_ORGANIZATION} webhooks per organization.`,
    security: bearer,
    request: {
      body: jsonRequestBody(createBody, {
        examples: {
          some: { summary: 'Two events', value: { url: 'https://hooks.example.com/envelopes', events: ['envelope.completed', 'recipient.signed'], description: 'CRM sync' } },
          all: { summary: 'Every event', value: { url: 'https://hooks.example.com/envelopes' } },
        },
      }),
    },
    responses: {
      201: {
        description: 'The webhook, with its signing secret (only here).',
        headers: { 'Cache-Control': noStore },
        content: { [json]: { schema: createdWebhookResponse, example: { ...exampleWebhook, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw6f2SH6O0OyA=' } } },
      },
      400: problem(
        400,
        'The body is not JSON (`malformed-json`), the schema refuses it (`validation-failed`, unknown fields named), or the URL is refused (`invalid-webhook-url`: not an absolute URL, not `https:`, has a user name or password, its host cannot be resolved, or resolves to an address webhooks may not reach).',
        ['validation-failed', 'malformed-json', 'invalid-webhook-url'],
      ),
      401: unauthorized,
      409: problem(409, `The caller\'s organization already has ${MAX_WEBHOOKS_PER_ORGANIZATION} webhooks (\`webhook-limit\`), or concurrent requests kept changing them (\`webhooks-contended\`; retry).`, ['webhook-limit', 'webhooks-contended']),
      413: jsonBodyTooLarge,
      415: notJson,
      503: storageUnavailable,
      500: internalError,
    },
  },
  {
    operationId: 'ListWebhooks',
    method: 'get',
    path: '/webhooks',
    tags: ['Webhooks'],
    summary: 'List the caller\'s webhooks',
    security: bearer,
    responses: {
      200: { description: 'The webhooks, oldest first, without secrets.', headers: { 'Cache-Control': noStore }, content: { [json]: { schema: webhookListResponse, example: [exampleWebhook] } } },
      401: unauthorized,
      503: storageUnavailable,
      500: internalError,
    },
  },
  deleteOperation({
    operationId: 'DeleteWebhook',
    path: '/webhooks/{id}',
    tags: ['Webhooks'],
    summary: 'Delete a webhook',
    description: 'Deletes the webhook and its deliveries log; attempts already queued are dropped.',
    security: bearer,
    request: { params: webhookIdParam },
    notFound: webhookNotFound,
    contended: problem(409, 'Concurrent requests kept changing the caller\'s webhooks (`webhooks-contended`); retry.', ['webhooks-contended']),
  }),
  {
    operationId: 'ListWebhookDeliveries',
    method: 'get',
    path: '/webhooks/{id}/deliveries',
    tags: ['Webhooks'],
    summary: 'The webhook\'s deliveries log',
    description: `The newest ${DELIVERY_LOG_SIZE} delivery attempts, newest first: every attempt, automatic retries and redeliveries included.`,
    security: bearer,
    request: { params: webhookIdParam },
    responses: {
      200: {
        description: 'The attempts, newest first.',
        headers: { 'Cache-Control': noStore },
        content: {
          [json]: {
            schema: deliveryAttemptListResponse,
            example: [
              { id: ids.attempt, eventId: ids.event, eventType: 'recipient.signed', attempt: 2, at: '2026-11-22T10:16:36.001Z', outcome: 'succeeded', responseStatus: 204, error: null, nextAttemptAt: null },
              {
                id: '0193a5c6-8a10-7b2c-9d3e-4f5a6b7c8d9e',
                eventId: ids.event,
                eventType: 'recipient.signed',
                attempt: 1,
                at: '2026-11-22T10:16:30.512Z',
                outcome: 'retrying',
                responseStatus: 503,
                error: 'the receiver answered HTTP 503',
                nextAttemptAt: '2026-11-22T10:16:35.530Z',
              },
            ],
          },
        },
      },
      401: unauthorized,
      404: webhookNotFound,
      503: storageUnavailable,
      500: internalError,
    },
  },
  {
    operationId: 'RedeliverWebhook',
    method: 'post',
    path: '/webhooks/{id}/deliveries/{deliveryId}/redeliver',
    tags: ['Webhooks'],
    summary: 'Send an event again',
    description:
      'Queues one new attempt of the event of this delivery attempt, with the same `webhook-id` (receivers that deduplicate by it ignore it if they processed the event already) and a fresh timestamp and signature. It appears in the deliveries log like any attempt; a failed redelivery is not retried automatically. No body.',
    security: bearer,
    request: {
      params: webhookIdParam.extend({
        deliveryId: z.string().meta({ description: 'The `id` of an attempt in the webhook\'s deliveries log.', examples: [ids.attempt] }),
      }),
    },
    responses: {
      202: {
        description: 'The redelivery is queued; its outcome appears in the deliveries log.',
        headers: { Location: { description: 'The deliveries log, `/api/webhooks/{id}/deliveries`.', required: true, schema: { type: 'string' } } },
      },
      401: unauthorized,
      404: problem(404, 'No webhook with this id, or another organization\'s (`webhook-not-found`), or no attempt with this id in its log (`delivery-not-found`).', ['webhook-not-found', 'delivery-not-found']),
      503: storageUnavailable,
      500: internalError,
    },
  },
];

/** Registers the webhook endpoints under `paths` and the twelve events under `webhooks`. */
export function registerWebhookOperations(registry: OpenAPIRegistry): void {
  for (const operation of operations) registry.registerPath(operation);
  for (const type of WEBHOOK_EVENT_TYPES) {
    const { summary, data } = EVENT_DOCS[type];
    registry.registerWebhook({
      method: 'post',
      path: type,
      tags: ['Webhooks'],
      summary: `${type}: ${summary}`,
      description:
        'POSTed to every webhook of the envelope\'s owner that subscribes to this event, with the headers `webhook-id` (the event id), `webhook-timestamp` (Unix seconds) and `webhook-signature` (`v1,` + base64 HMAC-SHA256 with the secret\'s bytes over `<webhook-id>.<webhook-timestamp>.<body>`), the Standard Webhooks scheme. Answer 2xx within 10 seconds; anything else is retried on the schedule of `WEBHOOK_RETRY_SECONDS`. Redirects are not followed.',
      request: {
        headers: z.object({
          'webhook-id': z.uuid().meta({ description: 'The event id; the same on every attempt.' }),
          'webhook-timestamp': z.string().regex(/^[0-9]+$/).meta({ description: 'Unix seconds when this attempt was signed.' }),
          'webhook-signature': z.string().regex(/^v1,[A-Za-z0-9+/]+=*$/).meta({ description: '`v1,<base64 HMAC-SHA256>`.' }),
        }),
        body: jsonRequestBody(webhookEventSchema, { example: { id: ids.event, type, createdAt: '2026-11-22T10:16:30.500Z', organizationId: ids.organization, ...(type === 'envelope.sent' || type === 'envelope.voided' || type === 'bulk.completed' ? { actor: { userId: ids.owner, email: 'owner@example.com' } } : {}), data } }),
      },
      responses: {
        200: { description: 'Any 2xx status: delivered. Any other answer, a redirect, a timeout (10 s) or a connection failure is retried.' },
      },
    });
  }
}

// Compile-time ties between the schemas above and the types the service answers with.
matches<Matches<typeof webhookResponse, WebhookView>>(true);
matches<Matches<typeof createdWebhookResponse, CreatedWebhookView>>(true);
matches<Matches<typeof deliveryAttemptResponse, DeliveryAttemptView>>(true);
matches<SameKeys<z.output<typeof webhookEventSchema>, WebhookEventBody>>(true);
matches<SameKeys<z.output<typeof webhookEventSchema>['data'], WebhookEventBody['data']>>(true);

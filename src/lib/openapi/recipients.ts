/**
 * The recipients' part of the OpenAPI document: the recipient's API (`/signing`, authenticated by a
 * signing token), the owner's resend, and the problems that signing adds to the envelope operations.
 * Registered by `document.ts` through {@link registerRecipientOperations}.
 */
import { SUPPORTED_LOCALES } from '../i18n/locales.js';
import type { OpenAPIRegistry, ResponseConfig } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { DELIVERIES, ENVELOPE_STATUSES, FIELD_TYPES, SIGNER_ROLES, SIGNING_ORDERS } from '../envelopes/model.js';
import { completeSigningRequest, declineSigningRequest, disclosureQuery, signatureValue } from '../recipients/schemas.js';
import type { RecipientView } from '../recipients/recipientView.js';
import { cacheControlNoStore, internalError, jsonBodyProblems, jsonRequestBody, notJson, ownedIdParam, queryRefused, storageUnavailable, unauthorized, type Operation } from './common.js';
import { disclosureResponse, envelopeDocumentResponse, fieldResponse, problemResponses, recipientStatus, signerResponse, type ProblemExample } from './responses.js';
import { actionAuthenticationAnswers, restrictedViewResponse, signerAuthenticationOperations, verifiedAuthentication } from './signerAuthentication.js';
import { matches, type Matches } from './ties.js';
import { ATTACHMENT_TYPES, MAX_ATTACHMENT_BYTES } from '../envelopes/fieldRules.js';
import { MAX_ATTACHMENT_NAME } from '../envelopes/attachments.js';

/** Name of the signing-token security scheme. */
export const SIGNING_AUTH = 'signingToken';

const timestamp = z.iso.datetime({ precision: 3 });
const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/);

/** An earlier signer's file as later recipients see it (docs/api.md#files-from-signers): no URL, no content. */
const sharedAttachment = z
  .strictObject({
    attachmentId: z.uuid(),
    name: z.string().min(1).max(MAX_ATTACHMENT_NAME),
    contentType: z.string().meta({ description: `One of ${ATTACHMENT_TYPES.join(', ')}.` }),
    size: z.int().min(0).max(MAX_ATTACHMENT_BYTES).meta({ description: 'Bytes as stored.' }),
  })
  .meta({ id: 'SharedAttachment', description: 'A file an earlier signer uploaded: its name, type and size, not its content.' });

/** 200 of the recipient's endpoints (docs/api.md#the-recipients-api). */
export const recipientViewResponse = z
  .strictObject({
    envelope: z.strictObject({
      id: z.uuid(),
      documentName: z.string(),
      status: z.enum(ENVELOPE_STATUSES),
      ownerEmail: z.email().meta({ description: 'Who asks the recipient to act.' }),
      ownerName: z.string().nullable().meta({ description: 'The owner\'s display name (the page shows `Name <address>`), or `null` when the owner gave none.' }),
      signingOrder: z.enum(SIGNING_ORDERS),
      expiresAt: timestamp.nullable(),
      pageCount: z.int().min(1).nullable(),
      documentSha256: sha256Hex.nullable().meta({ description: 'SHA-256 of the frozen document, the one `documentUrl` reads.' }),
      allowReassign: z.boolean().meta({ description: 'Whether a signer or approver may hand its part to someone else (`POST /api/signing/reassign`).' }),
    }),
    recipient: z.strictObject({
      id: z.uuid(),
      name: z.string(),
      email: z.email(),
      role: z.enum(SIGNER_ROLES),
      routingOrder: z.int().min(1).max(100),
      status: recipientStatus,
      actedAt: timestamp.nullable(),
      delivery: z
        .array(z.enum(DELIVERIES))
        .min(1)
        .max(2)
        .meta({ description: '`["email"]`: invitations, reminders and the completed e-mail reach the recipient by e-mail; `["sms"]` or `["email", "sms"]`: invitations and reminders (also) by text message. `["embedded"]`: it signs inside the owner\'s application and gets no e-mail but, with `notifyOnCompletion`, the completed one.' }),
      notifyOnCompletion: z.boolean().optional().meta({ description: 'Embedded recipients only: whether the completed e-mail comes to it.' }),
      locale: z.enum(SUPPORTED_LOCALES).meta({ description: 'The language of this recipient\'s signing page and e-mails: its own `locale`, else the envelope\'s (`en` unless set). The page may offer a switch to another language for that page only.' }),
    }),
    fields: z.array(fieldResponse).meta({ description: 'This recipient\'s fields.' }),
    documentUrl: z.url().meta({ description: 'Read-only SAS URL of the frozen document (the first), valid 15 minutes.' }),
    documents: z.array(envelopeDocumentResponse).min(1).meta({ description: 'Every document in order, each with a read-only SAS URL of its frozen copy (15 minutes); fields name theirs as `documentId`.' }),
    signedUrl: z.url().nullable().meta({ description: 'Read-only SAS URL of the sealed PDF once completed (valid 15 minutes), else `null`.' }),
    canAct: z.boolean().meta({ description: 'Whether completing (or, for signers and approvers, declining) would be accepted now.' }),
    waitingFor: z
      .array(z.strictObject({ name: z.string(), role: z.enum(SIGNER_ROLES) }))
      .meta({ description: 'Sequential order: those whose turn comes before this recipient\'s; `[]` otherwise.' }),
    filled: z
      .array(
        z
          .strictObject({
            fieldId: z.uuid(),
            documentId: z.uuid().meta({ description: 'The document it is on.' }),
            type: z.enum(FIELD_TYPES),
            page: z.int().min(1),
            x: z.number().min(0).max(1),
            y: z.number().min(0).max(1),
            width: z.number().gt(0).max(1),
            height: z.number().gt(0).max(1),
            label: z.string().max(100).nullable(),
            recipient: z.strictObject({ id: z.uuid(), name: z.string() }).meta({ description: 'Who filled it in.' }),
            value: z.union([signatureValue, z.string(), z.boolean(), sharedAttachment]).meta({
              description: '`signature`/`initials`: `{typed}` or `{strokes}` as given; `text`, `number`, `date`, `dropdown` the string; a read-only value the owner set, or a default standing in for a value not sent; `date_signed` the signing date (`YYYY-MM-DD`, UTC), `name` and `email` the signer\'s, as the service fills them in; `checkbox` `true` (an unticked box is listed with `false`); `attachment`, `image` `{attachmentId, name, contentType, size}`, never the file itself.',
            }),
          })
          .meta({ id: 'FilledField', description: 'A field another recipient filled in, with its value, exactly as the seal will draw it.' }),
      )
      .meta({ description: 'The values other recipients already gave, each in its field\'s place (fractions of the page as displayed, origin top-left), to show read-only: what this recipient sees is what gets sealed. `[]` until another signer has signed.' }),
    authentication: verifiedAuthentication,
  })
  .meta({ id: 'RecipientView', description: 'The envelope as one recipient sees it.' });

matches<Matches<typeof recipientViewResponse, RecipientView>>(true);

const ids = {
  envelope: '0193a5b2-7c1e-7d3f-9a41-3f1c2b9e8d70',
  signer: '5b0f3c52-8d1e-4b7a-9f3e-2c6d7a8b9e01',
  field: '0193a5b3-0a1b-7c2d-8e3f-4a5b6c7d8e9f',
  sha256: '7e9b1c3d5f7a9b1c3d5e7f9a1b3c5d7e9f1a3b5c7d9e1f3a5b7c9d1e3f5a7b9c',
};
const sas = 'sv=2025-01-05&se=2026-11-22T10%3A30%3A30Z&sr=b&sp=r&sig=REDACTED';
/** A recipient's view, as the examples of the signing operations show it. */
export const viewExample = {
  envelope: {
    id: ids.envelope,
    documentName: 'contract.pdf',
    status: 'sent',
    ownerEmail: 'owner@example.com',
    ownerName: 'Ada Lovelace',
    signingOrder: 'parallel',
    expiresAt: '2026-12-22T10:16:01.001Z',
    pageCount: 3,
    documentSha256: ids.sha256,
    allowReassign: false,
  },
  recipient: { id: ids.signer, name: 'Bob Builder', email: 'bob@example.com', role: 'signer', routingOrder: 1, status: 'opened', actedAt: null, delivery: ['email'], locale: 'en' },
  fields: [{ id: ids.field, recipientId: ids.signer, documentId: ids.envelope, type: 'signature', page: 3, x: 0.1, y: 0.8, width: 0.3, height: 0.06, required: true, label: null }],
  documentUrl: `https://account.blob.core.windows.net/originals/${ids.envelope}/contract.pdf?${sas}`,
  documents: [{ id: ids.envelope, name: 'contract.pdf', order: 1, pageCount: 3, sha256: ids.sha256, uploadSha256: ids.sha256, documentUrl: `https://account.blob.core.windows.net/originals/${ids.envelope}/contract.pdf?${sas}` }],
  signedUrl: null,
  canAct: true,
  waitingFor: [],
  filled: [],
};

const problems = {
  ...jsonBodyProblems,
  'invalid-token': { detail: 'This signing link is not valid (any more): use the link of your newest e-mail about this envelope.' },
  'role-cannot-act': {},
  'envelope-closed': { detail: 'The envelope is declined; nothing more can be done with it.' },
  'already-acted': { detail: 'You already acted (signed) on this envelope at 2026-11-22T10:18:40.512Z.' },
  'not-your-turn': { detail: 'It is not your turn yet: waiting for Ada Lovelace (signer).' },
  'envelope-contended': {},
  'validation-failed': { detail: 'The request body is invalid: values needs a value for field 0193a5b3-0a1b-7c2d-8e3f-4a5b6c7d8e9f (signature, page 3).' },
  'values-too-large': {},
  'envelope-not-found': {},
  'recipient-not-found': {},
  'envelope-not-sent': { detail: 'The envelope is a draft: nobody has been invited yet. Send it first.' },
  'recipient-is-cc': {},
  'envelope-locked': { detail: 'The envelope is sent: its signers, fields and settings can no longer change (what was sent is what gets signed). Void it and start again.' },
  'field-outside-document': { detail: '1 field is on a page the document does not have (it has 3): fields.0.page.' },
  'recipients-pending': { detail: 'Not every recipient has acted yet; waiting for 1: Ada Lovelace <ada@example.com> (signer, sent).' },
  'envelope-has-fields': {},
  'authentication-required': {},
} satisfies Record<string, ProblemExample>;
type Slug = keyof typeof problems;
const problem = problemResponses(problems);

/** The `{id}` and `{recipientId}` path parameters of an owner's operation on one recipient of an envelope. */
export const recipientParams = ownedIdParam('envelope', ids.envelope).extend({
  recipientId: z.string().meta({ description: 'The recipient\'s id.', examples: [ids.signer] }),
});
/** 404 of an owner's operation on one recipient: no such envelope (or another owner's), or no such recipient. */
export const recipientNotFound = problem(404, 'No envelope with this id, or another owner\'s (`envelope-not-found`); or no such recipient (`recipient-not-found`).', [
  'envelope-not-found',
  'recipient-not-found',
]);

const noStore = cacheControlNoStore('the body carries signed URLs');
const viewOk = (description: string): ResponseConfig => ({
  description,
  headers: { 'Cache-Control': noStore },
  content: { 'application/json': { schema: recipientViewResponse, example: viewExample } },
});
const invalidToken = problem(401, 'No signing token, or one that is unknown, replaced by a resend, or of an envelope closed over 30 days ago (`invalid-token`). Owner access tokens are refused here.', ['invalid-token']);
const common = { 500: internalError, 503: storageUnavailable };
const actionConflicts = problem(
  409,
  'The envelope is not `sent` (`envelope-closed`, naming its status, or that it expired), the recipient already acted (`already-acted`), it is not its turn (`not-your-turn`), or concurrent requests kept the envelope busy (`envelope-contended`).',
  ['envelope-closed', 'already-acted', 'not-your-turn', 'envelope-contended'],
);
const bodyErrors = (validation: string) => ({
  400: problem(400, validation, ['validation-failed', 'malformed-json']),
  413: problem(413, 'The JSON body is larger than 1 MiB (`payload-too-large`), or its values too large to record (`values-too-large`).', ['payload-too-large', 'values-too-large']),
  415: notJson,
});

const checkOrder =
  'Checks run in this order: token (401), a link locked by wrong codes (423), a recipient that has not entered its code (403 `authentication-required`), role (403), envelope status, already acted, turn (409), body (400).';

/** The operations of the recipients' work, for `registry.registerPath`. */
function operations(bearerAuth: string): Operation[] {
  const signing = [{ [SIGNING_AUTH]: [] }];
  return [
    {
      operationId: 'GetSigningView',
      method: 'get',
      path: '/signing',
      tags: ['Signing'],
      summary: 'The recipient\'s view of its envelope',
      description:
        'Authenticated by the signing token of the recipient\'s e-mail link (`Authorization: Bearer <token>`). The first read by an invited recipient while the envelope is `sent` marks it `opened`; later reads change nothing. Works until 30 days after the envelope reached a final status. A recipient with an access code or e-mailed codes first gets only a `RestrictedRecipientView` (no document, not marked `opened`) until it enters its code (`POST /api/signing/authenticate`), and again once `SIGNING_AUTH_TTL_SECONDS` have passed since; also after completion.',
      security: signing,
      responses: {
        200: {
          description: 'The envelope as this recipient sees it, with fresh read-only SAS URLs; or, before the recipient entered its code, only how to authenticate.',
          headers: { 'Cache-Control': noStore },
          content: { 'application/json': { schema: z.union([recipientViewResponse, restrictedViewResponse]), example: viewExample } },
        },
        401: invalidToken,
        423: actionAuthenticationAnswers[423],
        ...common,
      },
    },
    {
      operationId: 'GetSigningDisclosure',
      method: 'get',
      path: '/signing/disclosure',
      tags: ['Signing'],
      summary: 'The disclosure the recipient agrees to, in the page\'s language',
      description:
        'The disclosure about electronic records and signatures that `consent: true` agrees to, in `locale` (the language the page shows; default the recipient\'s `locale`, else the envelope\'s): the organization\'s own text for that locale when it set one, else the service\'s. The signing page shows `text` word for word above its consent box and sends the same `locale` with `POST /api/signing/complete`, which records this text, version and locale in the acting audit event. Needs the recipient\'s code first when it has one (403 `authentication-required`).',
      security: signing,
      request: { query: disclosureQuery },
      responses: {
        200: { description: 'The disclosure.', headers: { 'Cache-Control': cacheControlNoStore() }, content: { 'application/json': { schema: disclosureResponse, example: { text: '電子記録および電子署名の使用への同意。…', version: 'esd-5f0c1a2b3d4e', locale: 'ja' } } } },
        400: queryRefused,
        401: invalidToken,
        403: problem(403, actionAuthenticationAnswers[403], ['authentication-required']),
        423: actionAuthenticationAnswers[423],
        ...common,
      },
    },
    ...signerAuthenticationOperations(signing, { invalidToken, view: viewOk('Authenticated: the envelope as this recipient sees it.'), errors: common }),
    {
      operationId: 'CompleteSigning',
      method: 'post',
      path: '/signing/complete',
      tags: ['Signing'],
      summary: 'Sign, approve, or confirm having viewed the envelope',
      description: `A signer sends \`consent: true\` and a value for each of its required fields (and may adopt a signature for the certificate); an approver or viewer sends \`consent: true\` alone. When this was the last recipient who must act, the envelope completes in this request: the answer shows \`completed\` and a \`signedUrl\`. If sealing fails (a timestamp authority that is down), the action stays recorded, the answer is still 200 with the envelope \`sent\`, and the completion is retried later. ${checkOrder}`,
      security: signing,
      request: {
        body: jsonRequestBody(completeSigningRequest, {
          examples: {
            sign: { summary: 'A signer signs', value: { consent: true, values: [{ fieldId: ids.field, value: { typed: 'Bob Builder' } }] } },
            approve: { summary: 'An approver or viewer', value: { consent: true } },
          },
        }),
      },
      responses: {
        200: viewOk('The action is recorded; the envelope as this recipient now sees it.'),
        ...bodyErrors('`consent` is not true, a required field has no value, a value is of the wrong type, names another recipient\'s or an unknown field, or is sent for a `date_signed`, `name` or `email` field (`validation-failed`); or the body is not JSON (`malformed-json`).'),
        401: invalidToken,
        403: problem(403, `A \`cc\` recipient has nothing to sign (\`role-cannot-act\`). ${actionAuthenticationAnswers[403]}`, ['role-cannot-act', 'authentication-required']),
        409: actionConflicts,
        423: actionAuthenticationAnswers[423],
        ...common,
      },
    },
    {
      operationId: 'DeclineSigning',
      method: 'post',
      path: '/signing/decline',
      tags: ['Signing'],
      summary: 'Decline to sign or approve',
      description: `A signer or approver declines with a reason: the envelope becomes \`declined\` and its owner is told. ${checkOrder}`,
      security: signing,
      request: { body: jsonRequestBody(declineSigningRequest, { example: { reason: 'The start date is wrong.' } }) },
      responses: {
        200: viewOk('The envelope is declined.'),
        ...bodyErrors('`reason` is missing, empty or over 1000 characters (`validation-failed`), or the body is not JSON (`malformed-json`).'),
        401: invalidToken,
        403: problem(403, `Only a signer or an approver can decline (\`role-cannot-act\`). ${actionAuthenticationAnswers[403]}`, ['role-cannot-act', 'authentication-required']),
        409: actionConflicts,
        423: actionAuthenticationAnswers[423],
        ...common,
      },
    },
    {
      operationId: 'ResendInvitation',
      method: 'post',
      path: '/envelopes/{id}/recipients/{recipientId}/resend',
      tags: ['Envelopes'],
      summary: 'Send a recipient a new signing link',
      description:
        'For a recipient whose turn it is and who has not acted, while the envelope is `sent`: a new signing link replaces the old one (refused from then on, for reading and acting) and a new invitation e-mail is queued. No body.',
      security: [{ [bearerAuth]: [] }],
      request: { params: recipientParams },
      responses: {
        202: {
          description: 'The invitation is queued; the recipient as the envelope now shows it (`lastEmail` `invitation`, `queued`).',
          headers: {
            'Cache-Control': cacheControlNoStore(),
            ETag: { description: 'Strong ETag of the envelope after the change.', required: true, schema: { type: 'string' } },
          },
          content: {
            'application/json': {
              schema: signerResponse,
              example: {
                id: ids.signer,
                recipientId: ids.signer,
                email: 'bob@example.com',
                name: 'Bob Builder',
                role: 'signer',
                routingOrder: 1,
                status: 'sent',
                actedAt: null,
                declineReason: null,
                lastEmail: { type: 'invitation', status: 'queued', at: '2026-11-22T10:18:40.512Z' },
                locale: null,
                delivery: ['email'],
                authentication: { method: 'none' },
              },
            },
          },
        },
        401: unauthorized,
        404: recipientNotFound,
        409: problem(
          409,
          'The envelope is a draft (`envelope-not-sent`) or closed (`envelope-closed`), the recipient is a `cc` (`recipient-is-cc`), has acted (`already-acted`) or is waiting for its turn (`not-your-turn`).',
          ['envelope-not-sent', 'envelope-closed', 'recipient-is-cc', 'already-acted', 'not-your-turn', 'envelope-contended'],
        ),
        ...common,
      },
    },
  ];
}

/** Problems signing adds to operations registered by `document.ts`, by operationId and status. */
const envelopeProblems: Record<string, Record<number, { slugs: Slug[]; sentence: string }>> = {
  UpdateEnvelope: {
    409: { slugs: ['envelope-locked'], sentence: 'A sent envelope\'s signers, fields and settings cannot change (`envelope-locked`).' },
    422: { slugs: ['field-outside-document'], sentence: 'Sending: a field is on a page the document does not have (`field-outside-document`).' },
  },
  PatchEnvelope: {
    409: { slugs: ['envelope-locked'], sentence: 'A sent envelope\'s signers, fields and settings cannot change (`envelope-locked`).' },
    422: { slugs: ['field-outside-document'], sentence: 'Sending: a field is on a page the document does not have (`field-outside-document`).' },
  },
  CompleteEnvelope: {
    409: {
      slugs: ['recipients-pending', 'envelope-has-fields'],
      sentence: 'A sent envelope completes once every recipient who must act has acted (`recipients-pending` names the others); a draft with fields must be sent instead (`envelope-has-fields`).',
    },
  },
};

/**
 * Registers the operations of `document.ts` (`existing`, with signing's problems added to their 409
 * and 422 answers; the originals are left as they are), the signing-token scheme and the operations
 * above.
 */
export function registerOperationsWithSigning(registry: OpenAPIRegistry, existing: Operation[], bearerAuth: string): void {
  registry.registerComponent('securitySchemes', SIGNING_AUTH, {
    type: 'http',
    scheme: 'bearer',
    description:
      'The signing token of a recipient\'s link (`<PUBLIC_BASE_URL>/api/sign#<token>`, 43 base64url characters), sent as `Authorization: Bearer <token>`. Only the recipient\'s endpoints accept it.',
  });
  for (const operation of existing) registry.registerPath(withSigningProblems(operation));
  for (const operation of operations(bearerAuth)) registry.registerPath(operation);
}

function withSigningProblems<Op extends Operation>(operation: Op): Op {
  const additions = envelopeProblems[operation.operationId];
  if (additions === undefined) return operation;
  const responses = { ...operation.responses };
  for (const [status, addition] of Object.entries(additions)) {
    const response = responses[status] as ResponseConfig | undefined;
    const content = response?.content?.['application/problem+json'];
    if (response === undefined || content === undefined || !('schema' in content)) continue;
    const added = problem(Number(status), addition.sentence, addition.slugs).content?.['application/problem+json'];
    const examples = { ...content.examples, ...(added !== undefined && 'examples' in added ? added.examples : {}) };
    responses[status] = { ...response, description: `${response.description} ${addition.sentence}`, content: { ...response.content, 'application/problem+json': { ...content, examples } } };
  }
  return { ...operation, responses };
}

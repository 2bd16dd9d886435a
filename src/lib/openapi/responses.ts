/**
 * Response bodies as zod schemas, for the OpenAPI document (`GET /api/openapi.json`) and for the
 * end-to-end tests, which validate every response against that document.
 *
 * The service builds its responses from the TypeScript types beside the code that owns them
 * ({@link EnvelopeView}, {@link AuditEvent}, {@link UploadTicket}, {@link LoginResult},
 * {@link ProblemDetails}); the checks at the bottom of this file make the build fail when a schema and
 * its type disagree on a field name or a field's type, so the document cannot drift from the code.
 * Strict objects (`additionalProperties: false`): a response that leaks a stored field (`blobName`,
 * `version`, `passwordHash`) fails validation.
 */
import { z } from 'zod';
import type { LoginResult } from '../auth/accounts.js';
import type { UploadTicket } from '../envelopes/createUpload.js';
import { ENVELOPE_STATUSES, SIGNER_ROLES, type AuditEvent, type EnvelopeView } from '../envelopes/model.js';
import type { ProblemDetails } from '../http/problem.js';

/** ISO 8601 UTC with milliseconds (CONTRACT §1). */
const timestamp = z.iso.datetime({ precision: 3 }).meta({ description: 'ISO 8601 UTC with milliseconds.', examples: ['2026-11-22T10:15:30.123Z'] });
/** UUID version 7 (RFC 9562 §5.7): envelope and user identifiers (CONTRACT §1). */
const uuidV7 = z.uuid({ version: 'v7' }).meta({ description: 'UUID version 7 (time-ordered).' });
/** Lower-case hex SHA-256. */
const sha256Hex = z
  .string()
  .regex(/^[0-9a-f]{64}$/)
  .meta({ description: 'Lower-case hex SHA-256.', examples: ['9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08'] });
/** A read-only SAS URL of a blob, valid 15 minutes from the response (CONTRACT §3). */
const readUrl = z.url().meta({ description: 'Read-only SAS URL of the blob, valid 15 minutes from the response.' });

export const envelopeStatus = z.enum(ENVELOPE_STATUSES).meta({ id: 'EnvelopeStatus', description: 'Lifecycle state.' });
export const signerRole = z.enum(SIGNER_ROLES).meta({ id: 'SignerRole', description: 'What the recipient does with the envelope.' });

/** A signer as responses show it: `recipientId` always equals `id` (CONTRACT §3). */
export const signerResponse = z
  .strictObject({
    id: z.uuid().meta({ description: 'Assigned by the service; send it back to keep the signer\'s identity.' }),
    recipientId: z.uuid().meta({ description: 'Always equal to `id`.' }),
    email: z.email(),
    name: z.string().min(1).max(200),
    role: signerRole,
  })
  .meta({ id: 'Signer', description: 'A recipient of the envelope.' });

/** The envelope in every response (CONTRACT §3 table). */
export const envelopeResponse = z
  .strictObject({
    id: uuidV7,
    status: envelopeStatus,
    ownerId: z.uuid().meta({ description: 'The owner\'s userId.' }),
    documentName: z.string().meta({ description: 'The uploaded file\'s name.' }),
    documentUrl: readUrl.meta({ description: 'Read-only SAS URL of the original document, valid 15 minutes from the response.' }),
    signers: z.array(signerResponse).meta({ description: '`[]` when none.' }),
    createdAt: timestamp,
    updatedAt: timestamp,
    completedAt: timestamp.nullable().meta({ description: '`null` until completed.' }),
    signedUrl: readUrl.nullable().meta({ description: 'Read-only SAS URL of the sealed PDF, valid 15 minutes; `null` until completed.' }),
    hash: sha256Hex.nullable().meta({ description: 'SHA-256 of the sealed PDF; `null` until completed.' }),
  })
  .meta({ id: 'Envelope', description: 'An envelope: one document, its signers and its state.' });

export const envelopeListResponse = z.array(envelopeResponse).meta({ id: 'EnvelopeList', description: 'The caller\'s envelopes, newest first.' });

/** 201 of `POST /api/GetUploadUrl` (CONTRACT §4). */
export const uploadTicketResponse = z
  .strictObject({
    uploadUrl: z.url().meta({
      description:
        'SAS URL with create and write permission on this one blob. Send `PUT <uploadUrl>` with the PDF as body and the headers ' +
        '`x-ms-blob-type: BlockBlob` and `Content-Type: application/pdf`; Blob storage answers 201.',
    }),
    envelopeId: uuidV7,
    blobName: z.string().meta({ description: '`<envelopeId>/<filename>` in the container `documents`.' }),
    expiresAt: timestamp.meta({ description: 'When `uploadUrl` stops working (`UPLOAD_URL_TTL_SECONDS` after the response).' }),
  })
  .meta({ id: 'UploadTicket', description: 'Where to upload the document of a new draft envelope.' });

/** 200 of `POST /api/envelopes/{id}/complete` (CONTRACT §6). */
export const completeResponse = z
  .strictObject({
    message: z.string(),
    signedUrl: readUrl.meta({ description: 'Read-only SAS URL of the sealed PDF, valid 15 minutes from the response.' }),
    hash: sha256Hex.meta({ description: 'SHA-256 of the sealed PDF: the same on every retry.' }),
  })
  .meta({ id: 'CompletionResult', description: 'The sealed document.' });

const addedOrRemoved = z.array(z.strictObject({ id: z.uuid(), email: z.email() }));
const auditBase = {
  sequence: z.int().min(1).meta({ description: '1, 2, 3, ... per envelope, without gaps.' }),
  at: timestamp,
  actorId: z.uuid().nullable(),
  ip: z.string().nullable().meta({ description: 'The client address as the request gave it; `null` when absent.' }),
  userAgent: z.string().nullable().meta({ description: 'The `User-Agent` header (at most 1024 characters); `null` when absent.' }),
};
const statusChange = z.strictObject({ from: envelopeStatus, to: envelopeStatus });

/** One audit event (CONTRACT §10): the shape of `details` follows `type`. */
export const auditEventResponse = z
  .discriminatedUnion('type', [
    z.strictObject({ ...auditBase, type: z.literal('envelope.created'), details: z.strictObject({ documentName: z.string(), blobName: z.string() }) }),
    z.strictObject({
      ...auditBase,
      type: z.literal('envelope.signers_replaced'),
      details: z.strictObject({ added: addedOrRemoved, removed: addedOrRemoved }),
    }),
    z.strictObject({ ...auditBase, type: z.literal('envelope.sent'), details: statusChange }),
    z.strictObject({ ...auditBase, type: z.literal('envelope.voided'), details: statusChange }),
    z.strictObject({ ...auditBase, type: z.literal('envelope.completed'), details: z.strictObject({ originalSha256: sha256Hex, sealedSha256: sha256Hex }) }),
  ])
  .meta({ id: 'AuditEvent', description: 'One successful change of an envelope.' });

export const auditTrailResponse = z.array(auditEventResponse).meta({ id: 'AuditTrail', description: 'An envelope\'s audit events, oldest first.' });

/** 200 of `GET /api/verify/{sha256}` (CONTRACT §10). */
export const sealVerificationResponse = z
  .strictObject({ envelopeId: uuidV7, completedAt: timestamp, documentName: z.string() })
  .meta({ id: 'SealVerification', description: 'What the sealed PDF\'s own certificate page says, and nothing else.' });

/** 201 of `POST /api/Register` (CONTRACT §2). */
export const registerResponse = z
  .strictObject({ message: z.string(), userId: uuidV7 })
  .meta({ id: 'RegisterResult', description: 'The new account.' });

/** 200 of `POST /api/Login` (CONTRACT §2). */
export const loginResponse = z
  .strictObject({
    token: z
      .string()
      .regex(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/)
      .meta({ description: 'Access token: a JWT (HS256, `typ: at+jwt`), sent as `Authorization: Bearer <token>`; valid `JWT_TTL_SECONDS` (default 3600).' }),
    user: z.strictObject({ userId: uuidV7, email: z.email(), role: z.enum(['user']) }).meta({ id: 'User' }),
  })
  .meta({ id: 'LoginResult', description: 'An access token and the account it belongs to.' });

/** 200 of `GET /api/health` (CONTRACT §9). */
export const healthResponse = z.strictObject({ status: z.literal('ok') }).meta({ id: 'Health' });

/** Every error response: RFC 9457 problem details (CONTRACT §1). */
export const problemResponseSchema = z
  .strictObject({
    type: z.string().meta({ description: 'Stable URI naming the problem, `urn:problem:<slug>`; the slugs are named in each response\'s description.' }),
    title: z.string().meta({ description: 'The HTTP status\'s reason phrase.' }),
    status: z.int().min(400).max(599).meta({ description: 'The HTTP status code, repeated.' }),
    detail: z.string().min(1).meta({ description: 'What went wrong, in a sentence a person understands.' }),
    errors: z
      .array(z.strictObject({ path: z.string().meta({ examples: ['signers.0.email'] }), message: z.string() }))
      .optional()
      .meta({ description: 'For validation failures: one entry per complaint, `path` in dotted form.' }),
    correlationId: z.uuid().optional().meta({ description: 'For 500: quote it when reporting the fault; the log has the same id.' }),
  })
  .meta({ id: 'Problem', description: 'RFC 9457 problem details (`application/problem+json`).' });

// Compile-time ties between the schemas above and the types the service answers with: each schema's
// output must be assignable to its type, and both must name the same fields.
type SameKeys<A, B> = [Exclude<keyof A, keyof B>, Exclude<keyof B, keyof A>] extends [never, never] ? true : false;
type Matches<Schema extends z.ZodType, Type> = z.output<Schema> extends Type ? SameKeys<z.output<Schema>, Type> : false;
const matches = <T extends true>(value: T): T => value;
matches<Matches<typeof envelopeResponse, EnvelopeView>>(true);
matches<Matches<typeof signerResponse, EnvelopeView['signers'][number]>>(true);
matches<Matches<typeof auditEventResponse, AuditEvent>>(true);
matches<Matches<typeof uploadTicketResponse, UploadTicket>>(true);
matches<Matches<typeof loginResponse, LoginResult>>(true);
matches<Matches<typeof problemResponseSchema, ProblemDetails>>(true);

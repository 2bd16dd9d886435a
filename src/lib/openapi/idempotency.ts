/**
 * Idempotency keys in the OpenAPI document (docs/api.md#idempotency; `src/lib/http/idempotency.ts`): every
 * owner `POST` (an operation the owner's credential opens) gets the optional `Idempotency-Key` request header,
 * the `Idempotent-Replayed` header on the answers that can be replayed (2xx and 4xx), and the problems
 * a key can give (400 `invalid-idempotency-key`, 409 `idempotency-key-in-use` and, except for the
 * operations in {@link OPERATIONS_NEVER_OUTCOME_UNKNOWN}, `idempotency-outcome-unknown`, 422
 * `idempotency-key-reused`). The operations in
 * {@link OPERATIONS_REFUSING_IDEMPOTENCY_KEYS} get 400 `idempotency-not-supported` instead.
 *
 * Applied to the generated document, so that it reaches every operation, whichever module describes
 * it, the same way the code reaches every function through `register.ts`.
 */
import { problemExampleValue } from './responses.js';
import {
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENCY_KEY_RETENTION_SECONDS,
  IDEMPOTENT_REPLAYED_HEADER,
  IN_USE_RETRY_AFTER_SECONDS,
  MAX_IDEMPOTENCY_KEY_LENGTH,
} from '../http/idempotency.js';

/**
 * The operations registered with `answerHoldsSecret: true` (`register.ts`): their answers hold a secret
 * that is never stored. A test holds this list to the registered functions.
 */
export const OPERATIONS_REFUSING_IDEMPOTENCY_KEYS: readonly string[] = ['CreateApiKey', 'CreateRecipientView', 'CreateWebhook'];

/**
 * The operations registered with `idempotency: 'claim-in-transaction'` or `'resumable'` (`register.ts`):
 * a retry after a crash replays their answer or finishes their one creation, so they never answer
 * `idempotency-outcome-unknown` (docs/api.md#idempotency). A test holds this list to the registered functions.
 */
export const OPERATIONS_NEVER_OUTCOME_UNKNOWN: readonly string[] = ['CreateBulkJob', 'CreateEnvelopeFromTemplate', 'CreateOrganizationInvitation', 'CreateTemplate', 'GetUploadUrl'];

const problemJson = 'application/problem+json';
const hours = IDEMPOTENCY_KEY_RETENTION_SECONDS / 3600;

const keyParameter = {
  name: IDEMPOTENCY_KEY_HEADER,
  in: 'header',
  required: false,
  description: `Makes the request safe to retry (IETF \`Idempotency-Key\` header draft): the first request with a key runs; its answer, if 2xx or 4xx (except 429), is kept ${hours} hours for this owner and key, and a later request with the same key, method, path and body bytes gets that answer byte for byte with \`${IDEMPOTENT_REPLAYED_HEADER}: true\`, changing nothing. 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} printable ASCII characters; a UUID is a good choice.`,
  schema: { type: 'string', minLength: 1, maxLength: MAX_IDEMPOTENCY_KEY_LENGTH, pattern: `^[ -~]{1,${MAX_IDEMPOTENCY_KEY_LENGTH}}$` },
  example: '5f1d3c8e-2b7a-4e6f-9c0d-1a2b3c4d5e6f',
};

const replayedHeader = {
  description: `\`true\` when this answer is the kept answer of an earlier request with the same \`${IDEMPOTENCY_KEY_HEADER}\` (nothing ran this time); absent otherwise.`,
  required: false,
  schema: { type: 'string', const: 'true' },
};

const retryAfterHeader = {
  description: `Seconds to wait before retrying (\`idempotency-key-in-use\`: ${IN_USE_RETRY_AFTER_SECONDS}).`,
  required: false,
  schema: { type: 'string', pattern: '^[0-9]+$' },
};

interface ProblemExample {
  status: number;
  slug: string;
  detail: string;
  /** Appended to the response's description. */
  says: string;
}

const examples = {
  invalid: {
    status: 400,
    slug: 'invalid-idempotency-key',
    detail: `${IDEMPOTENCY_KEY_HEADER} must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} printable ASCII characters (U+0020 to U+007E).`,
    says: `\`${IDEMPOTENCY_KEY_HEADER}\` is empty, longer than ${MAX_IDEMPOTENCY_KEY_LENGTH} characters or not printable ASCII (\`invalid-idempotency-key\`).`,
  },
  notSupported: {
    status: 400,
    slug: 'idempotency-not-supported',
    detail: `This endpoint does not take ${IDEMPOTENCY_KEY_HEADER}: its answer is never stored, so it cannot be replayed. Send the request without it.`,
    says: `The request carries \`${IDEMPOTENCY_KEY_HEADER}\`, which this endpoint refuses: its answer holds a secret that is never stored (\`idempotency-not-supported\`).`,
  },
  inUse: {
    status: 409,
    slug: 'idempotency-key-in-use',
    detail: `A request with this ${IDEMPOTENCY_KEY_HEADER} is still running; retry after Retry-After seconds to get its answer.`,
    says: `The first request with this \`${IDEMPOTENCY_KEY_HEADER}\` is still running, on this or another instance (\`idempotency-key-in-use\`, with \`Retry-After\`).`,
  },
  outcomeUnknown: {
    status: 409,
    slug: 'idempotency-outcome-unknown',
    detail: `The request sent with this ${IDEMPOTENCY_KEY_HEADER} at 2026-11-22T10:15:30.123Z was interrupted before its answer was stored, so whether it made its change is unknown; it is never run again with this key. Read the resource to see whether the change was made, and use a new key to make it.`,
    says: `The first request with this key was interrupted (its instance stopped) before its answer was stored: it is never run again with this key; read the resource and use a new key (\`idempotency-outcome-unknown\`).`,
  },
  reused: {
    status: 422,
    slug: 'idempotency-key-reused',
    detail: `This ${IDEMPOTENCY_KEY_HEADER} was first used for another request (POST /api/GetUploadUrl with another body, or another method or path); use a new key for a new request.`,
    says: `This \`${IDEMPOTENCY_KEY_HEADER}\` was first used with another method, path or body (\`idempotency-key-reused\`).`,
  },
} satisfies Record<string, ProblemExample>;

// `any`: the generated document is walked as plain JSON, whose shape the OpenAPI types do not follow here.
type Json = Record<string, any>;

/**
 * Adds the idempotency key's header, answers and problems to every owner `POST` of `document` (an
 * OpenAPI 3.1 document as generated, plain JSON), in place.
 * @param ownerScheme the security scheme of the owner's credential: operations that accept it are the owner's
 * @param problemSchema the schema of problem details (`{$ref: ...}`) the document's other problems use
 */
export function describeIdempotencyKeys(document: Json, ownerScheme: string, problemSchema: Json): void {
  for (const pathItem of Object.values(document.paths as Record<string, Json>)) {
    const operation = pathItem.post as Json | undefined;
    if (operation === undefined || !isOwnerOperation(operation, ownerScheme)) continue;
    const responses = operation.responses as Json;
    if (OPERATIONS_REFUSING_IDEMPOTENCY_KEYS.includes(operation.operationId as string)) {
      addProblem(responses, examples.notSupported, problemSchema);
      continue;
    }
    operation.parameters = [...((operation.parameters as Json[] | undefined) ?? []), keyParameter];
    const outcomeUnknown = OPERATIONS_NEVER_OUTCOME_UNKNOWN.includes(operation.operationId as string) ? [] : [examples.outcomeUnknown];
    for (const example of [examples.invalid, examples.inUse, ...outcomeUnknown, examples.reused]) addProblem(responses, example, problemSchema);
    (responses['409'] as Json).headers = { ...(responses['409'] as Json).headers, 'Retry-After': retryAfterHeader };
    for (const [status, response] of Object.entries(responses as Record<string, Json>)) {
      if (status === '429' || !/^[24]/.test(status)) continue;
      response.headers = { ...response.headers, [IDEMPOTENT_REPLAYED_HEADER]: replayedHeader };
    }
  }
}

/** Whether the operation accepts the owner's credential (security scheme `ownerScheme`). */
function isOwnerOperation(operation: Json, ownerScheme: string): boolean {
  const security = operation.security as Json[] | undefined;
  return security !== undefined && security.some((requirement) => Object.hasOwn(requirement, ownerScheme));
}

/** Adds `example` to the response of its status, creating the response if the operation had none. */
function addProblem(responses: Json, example: ProblemExample, problemSchema: Json): void {
  const key = String(example.status);
  const value = problemExampleValue(example.slug, example.status, { detail: example.detail });
  const existing = responses[key] as Json | undefined;
  if (existing === undefined) {
    responses[key] = { description: example.says, content: { [problemJson]: { schema: problemSchema, examples: { [example.slug]: { summary: example.slug, value } } } } };
    return;
  }
  existing.description = `${existing.description as string} ${example.says}`;
  const media = ((existing.content as Json)[problemJson] ??= { schema: problemSchema }) as Json;
  media.examples = { ...media.examples, [example.slug]: { summary: example.slug, value } };
}

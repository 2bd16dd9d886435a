/**
 * Request shapes of the envelope endpoints (docs/api.md#the-envelope, docs/api.md#create-an-envelope-and-upload-its-document, docs/api.md#lifecycle, docs/api.md#list-envelopes). Strict: unknown fields
 * are refused, so a client can never set `ownerId`, `hash`, `createdAt`, ... (mass assignment).
 */
import { z } from 'zod';
import { acceptableCharacterPattern, acceptableText, characters, emailAddress, requestTimestamp, text, trimmedText, wholeNumber } from '../text.js';
import { DELIVERIES, type Delivery, ENVELOPE_STATUSES, FIELD_SOURCES, FIELD_TYPES, OUTPUTS, SIGNER_ROLES, SIGNING_ORDERS } from './model.js';
import { authenticationInput } from './authenticationSettings.js';
import { ATTACHMENT_TYPES, fieldRuleProblems, MAX_ATTACHMENT_BYTES, MAX_DROPDOWN_OPTION, MAX_DROPDOWN_OPTIONS, MAX_PATTERN, MAX_TEXT_LENGTH, type FieldRules } from './fieldRules.js';
import { envelopeLocaleInput, recipientLocaleInput } from '../i18n/schema.js';
import { MAX_PHONE_INPUT, parsePhone } from '../phone.js';

/** At most this many signers on one envelope (docs/api.md#the-envelope). */
export const MAX_SIGNERS = 100;
/** At most this many fields on one envelope (docs/api.md#fields). */
export const MAX_FIELDS = 500;
/** Highest page number a field may name; the frozen document's page count is checked at send (docs/api.md#fields). */
export const MAX_FIELD_PAGE = 100_000;
/** Longest field label, characters (docs/api.md#fields). */
export const MAX_FIELD_LABEL = 100;
/** Highest routing order (docs/api.md#the-envelope). */
export const MAX_ROUTING_ORDER = 100;
/** Longest `expiresAt` ahead of now, days (docs/api.md#the-envelope). */
export const MAX_EXPIRY_DAYS = 365;
/** `remindEveryDays` bounds (docs/api.md#the-envelope). */
export const MIN_REMIND_EVERY_DAYS = 1;
export const MAX_REMIND_EVERY_DAYS = 30;
/** Longest signer name, characters (docs/api.md#the-envelope). */
export const MAX_SIGNER_NAME = 200;
/** Longest document file name, characters (docs/api.md#create-an-envelope-and-upload-its-document). */
export const MAX_FILENAME = 200;
/** Longest reason for voiding, characters ([docs/api.md#update-an-envelope](../../../docs/api.md#update-an-envelope)). */
export const MAX_VOIDED_REASON = 500;

const signerId = characters(1, 100).meta({
  description: 'The id of a current signer keeps that identity; any other value, or none, gets a new UUID.',
});

/** JSON Schema `pattern` of the filename rules below (`src/lib/text.ts`: the document accepts exactly what they accept). */
const FILENAME_PATTERN = `^(?!\\.\\.)(?!\\s)${acceptableCharacterPattern('\\\\/')}{1,${MAX_FILENAME - 4}}\\.[Pp][Dd][Ff]$`;
/** JSON Schema `pattern` of what `createEnvelopeUpload` takes for a PDF (anything else is 415, not 400). */
const PDF_MIMETYPE_PATTERN = '^\\s*[Aa][Pp][Pp][Ll][Ii][Cc][Aa][Tt][Ii][Oo][Nn]/[Pp][Dd][Ff]\\s*(?:;[\\s\\S]*)?$';

/** The deliveries a recipient may have (docs/api.md#delivery), each as stored and shown. */
const DELIVERY_LISTS: readonly (readonly Delivery[])[] = [['email'], ['sms'], ['email', 'sms'], ['embedded']];

/**
 * A recipient's `delivery` (docs/api.md#delivery): a list, `["email"]`, `["sms"]`, `["email", "sms"]`
 * (in any order, kept as written here) or `["embedded"]`. A single word is read as a list of one, as
 * requests written before text messages send it.
 */
export const deliveryInput = z
  .preprocess(
    (value) => (typeof value === 'string' ? [value] : value),
    z
      .array(z.enum(DELIVERIES, { error: `must be one of ${DELIVERIES.join(', ')}` }), { error: 'must be an array' })
      .transform((list, context) => {
        const found = DELIVERY_LISTS.find((allowed) => allowed.length === list.length && allowed.every((channel) => list.includes(channel)));
        if (found === undefined) {
          context.addIssue({ code: 'custom', message: 'must be ["email"], ["sms"], ["email", "sms"] or ["embedded"]' });
          return z.NEVER;
        }
        return [...found];
      }),
  )
  .optional()
  .meta({
    // A list, or a single word read as a list of one: `type` and `items` name both forms so that
    // whatever the generator derives from the list merges into a schema that still admits the word.
    type: ['array', 'string'],
    items: { type: 'string', enum: [...DELIVERIES] },
    anyOf: [
      { type: 'array', items: { type: 'string', enum: [...DELIVERIES] }, minItems: 1, maxItems: 2, uniqueItems: true },
      { type: 'string', enum: [...DELIVERIES] },
    ],
    description:
      'How the signing link reaches the recipient: `["email"]` (default): invitations and reminders by e-mail; `["sms"]`: by text message to `phone`; `["email", "sms"]`: both; `["embedded"]`: the recipient signs inside your application through `POST /api/envelopes/{id}/recipients/{recipientId}/views` and gets no e-mail (only the completed one with `notifyOnCompletion`). `sms` needs `phone` (400 naming `phone` otherwise). Other combinations are refused (400), a rule JSON Schema cannot state; a single word is read as a list of one.',
    examples: [['email', 'sms']],
  });

/** A recipient's mobile number (docs/api.md#phone-numbers), normalised to E.164. */
export const phoneInput = z
  .string({ error: 'must be a phone number in international form (+ and country code)' })
  .transform((value, context) => {
    const parsed = parsePhone(value);
    if (!parsed.ok) {
      context.addIssue({ code: 'custom', message: parsed.message });
      return z.NEVER;
    }
    return parsed.e164;
  })
  .optional()
  .meta({
    type: 'string',
    maxLength: MAX_PHONE_INPUT,
    description:
      'A mobile number in international form (`+` and the country code; spaces, dots, dashes and brackets allowed), stored and shown in E.164 (`+4915123456789`). Refused (400 naming the field): text that is not a number, an unknown country code, a number its country does not allow, a landline and a premium-rate number.',
    examples: ['+49 151 23456789'],
  });

/**
 * The checks across a recipient's delivery properties (docs/api.md#delivery): `sms` delivery and `sms`
 * authentication (docs/api.md#signer-authentication) need `phone`, `notifyOnCompletion` is for embedded recipients.
 */
export function refineDelivery(
  signer: { delivery?: Delivery[] | undefined; phone?: string | undefined; notifyOnCompletion?: boolean | undefined; authentication?: { method: string } | undefined },
  context: z.RefinementCtx,
): void {
  if (signer.delivery?.includes('sms') === true && signer.phone === undefined) {
    context.addIssue({ code: 'custom', path: ['phone'], message: 'is required when delivery includes sms' });
  } else if (signer.authentication?.method === 'sms' && signer.phone === undefined) {
    context.addIssue({ code: 'custom', path: ['phone'], message: 'is required with authentication method sms (the one-time codes go to it)' });
  }
  if (signer.notifyOnCompletion === true && signer.delivery?.includes('embedded') !== true) {
    context.addIssue({ code: 'custom', path: ['notifyOnCompletion'], message: 'is for embedded recipients only (delivery: ["embedded"]); e-mail recipients always get the completed e-mail' });
  }
}

export const signerInput = z
  .strictObject({
    id: signerId.optional(),
    recipientId: signerId.optional(),
    email: emailAddress('Trimmed, then a valid address of at most 254 characters, then lower-cased; unique within the envelope.', 'bob@example.com'),
    name: trimmedText(MAX_SIGNER_NAME).meta({
      description: `1 to ${MAX_SIGNER_NAME} characters after trimming; no control characters, line or paragraph separators or unpaired surrogates.`,
      examples: ['Bob Builder'],
    }),
    role: z.enum(SIGNER_ROLES, { error: `must be one of ${SIGNER_ROLES.join(', ')}` }).default('signer'),
    routingOrder: wholeNumber(1, MAX_ROUTING_ORDER)
      .default(1)
      .meta({ description: 'With `signingOrder: sequential`, recipients act by ascending routing order, those with the same number together.' }),
    authentication: authenticationInput.optional(),
    locale: recipientLocaleInput,
    // How the link reaches the recipient (docs/api.md#delivery) and its phone (docs/api.md#phone-numbers).
    delivery: deliveryInput,
    phone: phoneInput,
    notifyOnCompletion: z
      .boolean({ error: 'must be true or false' })
      .optional()
      .meta({ description: 'Embedded recipients only (400 otherwise when `true`): send it the completed e-mail. Default `false`.' }),
  })
  .superRefine(refineDelivery)
  .refine((signer) => signer.id === undefined || signer.recipientId === undefined || signer.id === signer.recipientId, {
    message: 'must equal id when both are sent',
    path: ['recipientId'],
  })
  .meta({
    id: 'SignerInput',
    description: 'A signer in a request: `id` or `recipientId` names an existing signer. When both are sent they must be equal (400 otherwise), a rule JSON Schema cannot state.',
  });
export type SignerInput = z.infer<typeof signerInput>;

/**
 * `null` and `{}` entries are dropped before validation (docs/api.md#recipients): a preprocess step rather than
 * a transform of `unknown[]`, so that refusals name the signer's field (`signers.0.email`).
 *
 * The document states the list as JSON Schema sees the body, before the drop: items are `null`, `{}`
 * or a `SignerInput`, and at most 100 items are signers (`maxContains` over the non-empty objects),
 * so that a list of 100 signers and some `null`s passes the document as it passes the service. The
 * count is checked here rather than with `.max()`, whose `maxItems` would count the dropped entries.
 */
const signerList = z
  .preprocess(
    (entries) =>
      Array.isArray(entries)
        ? entries.filter((entry) => entry !== null && !(typeof entry === 'object' && !Array.isArray(entry) && Object.keys(entry).length === 0))
        : entries,
    z
      .array(signerInput, { error: 'must be an array' })
      .superRefine((signers, context) => {
        if (signers.length > MAX_SIGNERS) context.addIssue({ code: 'custom', path: [], message: `must hold at most ${MAX_SIGNERS} signers` });
        const seen = new Map<string, number>();
        // One signer's identity cannot be kept by two entries (docs/api.md#the-envelope: ids identify signers).
        const seenIds = new Map<string, number>();
        signers.forEach((signer, index) => {
          const first = seen.get(signer.email);
          if (first !== undefined) {
            context.addIssue({ code: 'custom', path: [index, 'email'], message: `repeats the e-mail address of signer ${first}` });
          } else {
            seen.set(signer.email, index);
          }
          const id = signer.id ?? signer.recipientId;
          if (id === undefined) return;
          const firstWithId = seenIds.get(id);
          if (firstWithId !== undefined) {
            context.addIssue({ code: 'custom', path: [index, signer.id === undefined ? 'recipientId' : 'id'], message: `repeats the id of signer ${firstWithId}` });
          } else {
            seenIds.set(id, index);
          }
        });
      }),
  )
  .meta({
    type: 'array',
    items: { anyOf: [{ type: 'null' }, { type: 'object', maxProperties: 0 }, { $ref: '#/components/schemas/SignerInput' }] },
    contains: { type: 'object', minProperties: 1 },
    minContains: 0,
    maxContains: MAX_SIGNERS,
    description:
      `Replaces the whole list. \`null\` and \`{}\` entries are dropped; at most ${MAX_SIGNERS} signers remain. ` +
      'E-mail addresses (compared after trimming and lower-casing) and ids must be unique within the list (400 otherwise), a rule JSON Schema cannot state.',
  });

export const fieldId = z
  .string()
  .min(1, 'must not be empty')
  .max(100, 'must be at most 100 characters')
  .meta({ description: 'The id of a current field keeps that identity; a new UUID is taken as the new field\'s id; anything else, or none, gets a new UUID.' });

const fraction = (name: string) =>
  z
    .number({ error: 'must be a number from 0 to 1' })
    .min(0, 'must be a number from 0 to 1')
    .max(1, 'must be a number from 0 to 1')
    .meta({ description: `${name}: a fraction 0 to 1 of the page as a viewer displays it (crop box, after /Rotate), origin top-left.` });

/** Tolerance of `x + width <= 1` and `y + height <= 1` for binary fractions (0.1 + 0.9). */
const EDGE_TOLERANCE = 1e-9;

/**
 * The properties every field has, whoever fills it: an envelope's field names its recipient
 * (`recipientId`), a template's its role (`roleId`). Shared so both accept the same types and values.
 */
export const fieldProperties = {
  type: z.enum(FIELD_TYPES, { error: `must be one of ${FIELD_TYPES.join(', ')}` }),
  page: wholeNumber(1, MAX_FIELD_PAGE)
    .meta({ description: '1-based page of the document; at send it must exist (else 422 `field-outside-document`).' }),
  x: fraction('Left edge'),
  y: fraction('Top edge'),
  width: fraction('Width').refine((value) => value > 0, 'must be greater than 0').meta({ exclusiveMinimum: 0 }),
  height: fraction('Height').refine((value) => value > 0, 'must be greater than 0').meta({ exclusiveMinimum: 0 }),
  required: z.boolean({ error: 'must be true or false' }).default(true),
  label: text(0, MAX_FIELD_LABEL)
    .nullable()
    .optional()
    .meta({
      description: `At most ${MAX_FIELD_LABEL} characters; no control characters, line or paragraph separators or unpaired surrogates. The field's accessible name on the signing page.`,
    }),
  ...fieldRuleProperties(),
};

/** Longest form field name a detected field carries, characters. */
export const MAX_FORM_FIELD_NAME = 1000;

/**
 * Where a detected field came from (docs/api.md#fields-from-the-document), kept when a client sends back the fields it
 * read; for envelope and template fields alike. A field placed by hand has neither.
 */
export const detectedFieldProperties = {
  source: z
    .enum(FIELD_SOURCES, { error: `must be one of ${FIELD_SOURCES.join(', ')}` })
    .optional()
    .meta({
      description:
        'Set by field detection, absent for fields placed by hand. `textTag`: the field was made from a text tag, whose text is covered (painted white) in the frozen copy when the envelope is sent, so that neither the signing page nor the sealed document shows it. `formField`: at sealing the document\'s form field `formFieldName` (and its widgets) is removed and the value drawn in its place.',
    }),
  formFieldName: z
    .string()
    .min(1, 'must not be empty')
    .max(MAX_FORM_FIELD_NAME, `must be at most ${MAX_FORM_FIELD_NAME} characters`)
    .optional()
    .meta({ description: 'With `source: "formField"` only: the fully qualified name of the document\'s form field this field replaces.' }),
};

/**
 * The value rules and prefilled value of a field (types `number`, `date`, `dropdown`, and `text`'s
 * constraints); how they combine is checked by {@link refineField}.
 */
function fieldRuleProperties() {
  const length = (name: string) =>
    wholeNumber(0, MAX_TEXT_LENGTH)
      .nullable()
      .optional()
      .meta({ description: `\`text\` only: the ${name} number of characters of a non-empty value (0 to ${MAX_TEXT_LENGTH}).` });
  const bound = (name: string) =>
    z
      .number({ error: 'must be a JSON number' })
      .refine(Number.isFinite, 'must be a finite number')
      .nullable()
      .optional()
      .meta({ description: `\`number\` only: the ${name} value allowed (a JSON number).` });
  return {
    options: z
      .array(text(1, MAX_DROPDOWN_OPTION), { error: 'must be an array of strings' })
      .min(1, `must hold 1 to ${MAX_DROPDOWN_OPTIONS} options`)
      .max(MAX_DROPDOWN_OPTIONS, `must hold 1 to ${MAX_DROPDOWN_OPTIONS} options`)
      .nullable()
      .optional()
      .meta({ description: `\`dropdown\` only, and required there: 1 to ${MAX_DROPDOWN_OPTIONS} distinct choices of 1 to ${MAX_DROPDOWN_OPTION} characters; the value is one of them.` }),
    min: bound('smallest'),
    max: bound('largest'),
    minLength: length('smallest'),
    maxLength: length('largest'),
    pattern: characters(1, MAX_PATTERN)
      .nullable()
      .optional()
      .meta({
        description: `\`text\` only: a regular expression in RE2 syntax (no look-around, no back-references), 1 to ${MAX_PATTERN} characters, that a non-empty value must match whole (as if written \`^(?:pattern)$\`). Evaluated in linear time. One that does not compile, or whose estimated compiled size passes the limit (counted repetitions multiply what they repeat; see the pattern limits in the API reference), is refused (400).`,
        examples: ['[A-Z]{2}[0-9]{6}'],
      }),
    value: z
      .union([text(0, MAX_TEXT_LENGTH), z.boolean()], { error: 'must be a string (a boolean for a checkbox)' })
      .nullable()
      .optional()
      .meta({
        description:
          'The owner\'s prefilled value, not on `signature` or `initials` fields (only the recipient signs) nor on `date_signed`, `name` or `email` fields (the service fills them in): 400 naming the field\'s `value`. `checkbox` true or false; `number` a string such as `"12.50"`; `date` `YYYY-MM-DD`; `dropdown` one of `options`; `text` a string obeying the field\'s rules. Drawn in the sealed PDF. Without `readOnly` it is a default the recipient may change, and counts as the value when the recipient sends none.',
      }),
    readOnly: z
      .boolean({ error: 'must be true or false' })
      .optional()
      .meta({ description: '`true`: the recipient sees `value` and cannot change it (a value sent for it is refused). Needs a `value`.' }),
      accept: z
      .array(z.enum(ATTACHMENT_TYPES, { error: `must be one of ${ATTACHMENT_TYPES.join(', ')}` }), { error: 'must be an array of media types' })
      .min(1, `must hold 1 to ${ATTACHMENT_TYPES.length} media types`)
      .max(ATTACHMENT_TYPES.length, `must hold 1 to ${ATTACHMENT_TYPES.length} media types`)
      .nullable()
      .optional()
      .meta({ description: `\`attachment\` only: the media types the recipient may upload, distinct, among ${ATTACHMENT_TYPES.join(', ')}; absent: all three.` }),
    maxBytes: wholeNumber(1, MAX_ATTACHMENT_BYTES)
      .nullable()
      .optional()
      .meta({ description: `\`attachment\` and \`image\` only: the largest upload, bytes, 1 to ${MAX_ATTACHMENT_BYTES} (10 MiB); absent: ${MAX_ATTACHMENT_BYTES}. A larger upload is 413.` }),
  };
}

/**
 * The checks across a field's properties, for envelope and template fields alike: it fits the page;
 * a form field's name goes with `source: formField`; its rules suit its type and each other, its
 * pattern compiles (RE2), its prefilled value obeys them, `readOnly` comes with a value (`fieldRules.ts`).
 */
export function refineField(
  field: { x: number; y: number; width: number; height: number; source?: string | undefined; formFieldName?: string | undefined } & FieldRules,
  context: z.RefinementCtx,
): void {
  if (field.x + field.width > 1 + EDGE_TOLERANCE) context.addIssue({ code: 'custom', path: ['width'], message: 'x + width must be at most 1' });
  if (field.y + field.height > 1 + EDGE_TOLERANCE) context.addIssue({ code: 'custom', path: ['height'], message: 'y + height must be at most 1' });
  if (field.source === 'formField' && field.formFieldName === undefined) context.addIssue({ code: 'custom', path: ['formFieldName'], message: 'is required with source formField' });
  if (field.source !== 'formField' && field.formFieldName !== undefined) context.addIssue({ code: 'custom', path: ['formFieldName'], message: 'goes only with source formField' });
  for (const [property, message] of fieldRuleProblems(field)) context.addIssue({ code: 'custom', path: [property], message });
}

export const fieldInput = z
  .strictObject({
    id: fieldId.optional(),
    recipientId: signerId.meta({ description: 'The signer (role `signer`) who fills the field: the id of a signer of the envelope, or of one in the same request.' }),
    documentId: characters(1, 100)
      .optional()
      .meta({ description: 'The document the field is on (an `id` of the envelope\'s `documents`); default the first document. `page` counts within that document.' }),
    ...fieldProperties,
    ...detectedFieldProperties,
  })
  .superRefine(refineField)
  .meta({ description: 'A place on the document that a signer fills.' });
export type FieldInput = z.infer<typeof fieldInput>;

const fieldList = z
  .array(fieldInput, { error: 'must be an array' })
  .max(MAX_FIELDS, `must hold at most ${MAX_FIELDS} fields`)
  .superRefine((fields, context) => {
    const seenIds = new Map<string, number>();
    fields.forEach((field, index) => {
      if (field.id === undefined) return;
      const first = seenIds.get(field.id);
      if (first !== undefined) context.addIssue({ code: 'custom', path: [index, 'id'], message: `repeats the id of field ${first}` });
      else seenIds.set(field.id, index);
    });
  })
  .meta({ description: `Replaces the whole list: at most ${MAX_FIELDS}, ids unique.` });

export const updateEnvelopeRequest = z.strictObject({
  signers: signerList.optional(),
  fields: fieldList.optional(),
  signingOrder: z
    .enum(SIGNING_ORDERS, { error: `must be one of ${SIGNING_ORDERS.join(', ')}` })
    .optional()
    .meta({ description: '`parallel`: every recipient is invited at send; `sequential`: by ascending `routingOrder`, the next group once the previous one has acted.' }),
  expiresAt: requestTimestamp
    .nullable()
    .optional()
    .meta({ description: `When the sent envelope expires: in the future and at most ${MAX_EXPIRY_DAYS} days ahead (and still in the future at send); \`null\` clears it. Unset at send: send time + ENVELOPE_TTL_DAYS.` }),
  remindEveryDays: wholeNumber(MIN_REMIND_EVERY_DAYS, MAX_REMIND_EVERY_DAYS, { orNull: true })
    .nullable()
    .optional()
    .meta({ description: 'Remind recipients who have not acted every this many days after their invitation (at most 5 times); `null`: never.' }),
  locale: envelopeLocaleInput,
  allowReassign: z
    .boolean({ error: 'must be true or false' })
    .optional()
    .meta({ description: 'Let signers and approvers hand their part to someone else (`POST /api/signing/reassign`). Default `false`; a setting, locked once sent.' }),
  output: z
    .enum(OUTPUTS, { error: `must be one of ${OUTPUTS.join(', ')}` })
    .optional()
    .meta({ description: 'What completion seals: `separate` (default), each document as its own sealed PDF with the certificate of completion appended; `combined`, one PDF of every document in order, then the certificate. A setting, locked once sent.' }),
  status: z
    .enum(ENVELOPE_STATUSES, { error: `must be one of ${ENVELOPE_STATUSES.join(', ')}` })
    .optional()
    .meta({ description: 'The status to move to: `sent` or `voided`. The current status of a `draft` or `sent` envelope changes nothing. Completing is `POST /api/envelopes/{id}/complete`.' }),
  voidedReason: trimmedText(MAX_VOIDED_REASON)
    .optional()
    .meta({
      description:
        `Why the envelope is voided, only with \`status: "voided"\` (optional there): 1 to ${MAX_VOIDED_REASON} characters after trimming, on one line: no control characters (line breaks and tabs included), line or paragraph separators or unpaired surrogates. ` +
        'The envelope shows it as `voidedReason`; the audit event and the `envelope.voided` webhook carry it as `reason`, and the e-mail to the recipients quotes it.',
      examples: ['The price changed; a new contract follows.'],
    }),
});
export type UpdateEnvelopeRequest = z.infer<typeof updateEnvelopeRequest>;

export const uploadRequest = z.strictObject({
  filename: z
    .string({ error: 'is required' })
    .check(acceptableText())
    .min(1, 'is required')
    .refine((name) => [...name].length <= MAX_FILENAME, `must be at most ${MAX_FILENAME} characters`)
    .refine((name) => !/[\\/]/.test(name), 'must not contain path separators')
    .refine((name) => name !== '..' && !name.startsWith('..'), 'must not start with ..')
    .refine((name) => name.trim() === name, 'must not start or end with white space')
    .refine((name) => /\.pdf$/i.test(name) && name.length > 4, 'must end in .pdf')
    .meta({
      minLength: 5,
      maxLength: MAX_FILENAME,
      pattern: FILENAME_PATTERN,
      description: `5 to ${MAX_FILENAME} characters ending in \`.pdf\` (any case): no path separators (\`/\`, \`\\\`), no control characters (U+0000 to U+001F, U+007F to U+009F), no leading \`..\`, no leading white space.`,
      examples: ['contract.pdf'],
    }),
  mimetype: characters(1, 255).meta({
    pattern: PDF_MIMETYPE_PATTERN,
    description:
      '`application/pdf`, in any case, with optional white space and parameters (`application/pdf; charset=binary`). The service answers any other value of 1 to 255 characters with 415 `unsupported-document-type` rather than 400.',
    examples: ['application/pdf'],
  }),
});
export type UploadRequest = z.infer<typeof uploadRequest>;

/** Highest `order` a document may be given; the envelope's count of documents is checked when applied (docs/api.md#change-or-remove-a-document). */
export const MAX_DOCUMENT_ORDER = 100;

/** `PATCH /api/envelopes/{id}/documents/{documentId}` (docs/api.md#change-or-remove-a-document); templates take the same. */
export const updateDocumentRequest = z.strictObject({
  name: trimmedText(MAX_FILENAME)
    .optional()
    .meta({
      description: `The name shown for the document (on the signing page, the certificate and in the download): 1 to ${MAX_FILENAME} characters after trimming; no control characters, line or paragraph separators or unpaired surrogates. Its blob keeps the name it was uploaded with.`,
      examples: ['House rules.pdf'],
    }),
  order: z
    .int({ error: `must be a whole number from 1 to the number of documents` })
    .min(1, 'must be a whole number from 1 to the number of documents')
    .max(MAX_DOCUMENT_ORDER, 'must be a whole number from 1 to the number of documents')
    .optional()
    .meta({ description: 'The position to move the document to, 1 (first) to the number of documents; the others keep their relative order. The first document is the one the envelope\'s own `documentName`, `documentUrl`, `documentSha256` and `pageCount` describe.' }),
});
export type UpdateDocumentRequest = z.infer<typeof updateDocumentRequest>;

/** Largest `limit` of a list query ([docs/api.md#list-envelopes](../../../docs/api.md#list-envelopes)). */
export const MAX_LIST_LIMIT = 100;
/** Most items a list answers without `limit`. */
export const DEFAULT_LIST_PAGE = 1000;

/** Whose envelopes a list holds (docs/api.md#list-envelopes). */
export const ENVELOPE_LIST_SCOPES = ['mine', 'organization'] as const;

/** Query of the envelope list (docs/api.md#list-envelopes). */
export const listEnvelopesQuery = z.strictObject({
  scope: z
    .enum(ENVELOPE_LIST_SCOPES, { error: `must be one of ${ENVELOPE_LIST_SCOPES.join(', ')}` })
    .optional()
    .meta({
      description:
        '`mine` (default): the caller\'s own envelopes. `organization`: every envelope of the caller\'s organization (roles owner, admin and viewer; a sender gets 403 `forbidden-role`).',
    }),
  status: z
    .enum(ENVELOPE_STATUSES, { error: `must be one of ${ENVELOPE_STATUSES.join(', ')}` })
    .optional()
    .meta({ description: 'Only envelopes in this state.' }),
  limit: z
    // A query string holds text: digits only (at most four, leading zeros allowed: "0050" is 50) are
    // read as the number they write; anything else stays text, which the integer check refuses.
    .preprocess(
      (value) => (typeof value === 'string' && /^[0-9]{1,4}$/.test(value) ? Number(value) : value),
      wholeNumber(1, MAX_LIST_LIMIT),
    )
    .optional()
    .meta({
      description: `Page size, a whole number from 1 to ${MAX_LIST_LIMIT} (digits only, at most four: \`0050\` is 50). Without it a page holds up to ${DEFAULT_LIST_PAGE} items.`,
      examples: [50],
    }),
  cursor: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,200}$/, 'is not a cursor this service issued')
    .optional()
    .meta({
      description:
        'Opaque: copy it from the `Link: <...>; rel="next"` header of the previous page. A cursor issued for another `status` filter, or never issued, gets 400 `invalid-cursor`.',
    }),
});
export type ListEnvelopesQuery = z.infer<typeof listEnvelopesQuery>;

/** Query of the purge log (docs/api.md#the-purge-log): `limit` and `cursor` as for envelopes (docs/api.md#list-envelopes). */
export const listPurgesQuery = z.strictObject({ limit: listEnvelopesQuery.shape.limit, cursor: listEnvelopesQuery.shape.cursor });
export type ListPurgesQuery = z.infer<typeof listPurgesQuery>;

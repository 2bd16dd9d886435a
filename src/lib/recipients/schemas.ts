/**
 * Request shapes of the recipient's API (docs/api.md#fields, docs/api.md#the-recipients-api). Strict, as every request body: unknown
 * fields are refused. Which values fit which fields is checked against the envelope (`recipientActions.ts`).
 */
import { z } from 'zod';
import { text, trimmedText } from '../text.js';
import { localeSchema } from '../i18n/schema.js';

/** Longest typed signature, characters (docs/api.md#fields). */
export const MAX_TYPED_SIGNATURE = 100;
/** Strokes of a drawn signature: 1 to 50, each of 2 to 1000 points, at most 5000 points in all (docs/api.md#fields). */
export const MAX_STROKES = 50;
export const MAX_STROKE_POINTS = 1000;
export const MAX_SIGNATURE_POINTS = 5000;
/** Longest text value, characters (docs/api.md#fields). */
export const MAX_TEXT_VALUE = 500;
/** Longest decline reason, characters (docs/api.md#the-recipients-api). */
export const MAX_DECLINE_REASON = 1000;


const coordinate = z
  .number({ error: 'must be a number from 0 to 1' })
  .min(0, 'must be a number from 0 to 1')
  .max(1, 'must be a number from 0 to 1');

export const typedSignature = z
  .strictObject({
    typed: trimmedText(MAX_TYPED_SIGNATURE).meta({
      description: `The signature as typed, 1 to ${MAX_TYPED_SIGNATURE} characters after trimming; no control characters, line or paragraph separators or unpaired surrogates. Drawn in a handwriting-style font.`,
      examples: ['Ada Lovelace'],
    }),
  })
  .meta({ id: 'TypedSignature' });

export const drawnSignature = z
  .strictObject({
    strokes: z
      .array(
        z
          .array(z.array(coordinate, { error: 'must be a point [x, y]' }).length(2, 'must be a point [x, y]'), { error: 'must be an array of [x, y] points' })
          .min(2, 'must have at least 2 points')
          .max(MAX_STROKE_POINTS, `must have at most ${MAX_STROKE_POINTS} points`),
        { error: 'must be an array of strokes' },
      )
      .min(1, 'must have at least 1 stroke')
      .max(MAX_STROKES, `must have at most ${MAX_STROKES} strokes`)
      .refine((strokes) => strokes.reduce((sum, stroke) => sum + stroke.length, 0) <= MAX_SIGNATURE_POINTS, `must have at most ${MAX_SIGNATURE_POINTS} points in all`)
      .meta({
        description: `Ink strokes: 1 to ${MAX_STROKES} strokes of 2 to ${MAX_STROKE_POINTS} points, at most ${MAX_SIGNATURE_POINTS} points in all; each point [x, y] in fractions 0 to 1 of the field's rectangle, origin top-left.`,
      }),
  })
  .meta({ id: 'DrawnSignature' });

/** A signature or initials value: typed or drawn (docs/api.md#fields). */
export const signatureValue = z.union([typedSignature, drawnSignature]).meta({ id: 'SignatureValue', description: 'A signature, typed or drawn.' });
export type SignatureInput = z.infer<typeof signatureValue>;

/** The value of an `attachment` or `image` field: a file uploaded to it (docs/api.md#files-from-signers). */
export const attachmentReference = z
  .strictObject({
    attachmentId: z.string({ error: 'is required' }).min(1, 'is required').max(100, 'must be at most 100 characters').meta({ description: 'The `attachmentId` that `POST /api/signing/attachments` answered for this field.' }),
  })
  .meta({ id: 'AttachmentReference', description: 'A file the recipient uploaded to this field.' });

export const fieldValueInput = z
  .strictObject({
    fieldId: z.string({ error: 'is required' }).min(1, 'is required').max(100, 'must be at most 100 characters').meta({ description: 'A field of this recipient.' }),
    value: z
      .union([
        signatureValue,
        attachmentReference,
        text(0, MAX_TEXT_VALUE),
        z.boolean(),
      ], { error: 'must be a signature ({typed} or {strokes}), {attachmentId}, a string or a boolean' })
      .meta({
        description: `\`signature\`/\`initials\`: {typed} or {strokes}; \`text\`: a string of at most ${MAX_TEXT_VALUE} characters without control characters, line or paragraph separators or unpaired surrogates (non-empty when required); \`checkbox\`: true or false (true when required); \`number\`: a string such as \`"12.50"\` (a JSON number is refused) within the field's \`min\` and \`max\`; \`date\`: \`YYYY-MM-DD\`; \`dropdown\`: one of the field's \`options\`; \`attachment\`, \`image\`: \`{attachmentId}\` of the recipient's upload to that field; \`text\` also obeys the field's \`minLength\`, \`maxLength\` and \`pattern\`. An empty string leaves an optional field empty. \`date_signed\`, \`name\`, \`email\` and read-only fields take no value.`,
      }),
  })
  .meta({ id: 'FieldValue', description: 'The value of one field.' });

export const completeSigningRequest = z
  .strictObject({
    consent: z
      .literal(true, { error: 'must be true: the recipient agrees to sign electronically' })
      .meta({ description: 'Must be `true`: the recipient agrees to sign (approve, confirm) electronically.' }),
    locale: localeSchema
      .optional()
      .meta({
        description: 'The language in which the page showed the disclosure agreed to (`GET /api/signing/disclosure?locale=`), when the recipient switched the page to another language; absent: the recipient\'s `locale` (else the envelope\'s). The disclosure of that locale is the one recorded.',
        examples: ['ja'],
      }),
    values: z
      .array(fieldValueInput, { error: 'must be an array' })
      .max(500, 'must hold at most 500 values')
      .default([])
      .meta({ description: 'A signer: a value for each of its required fields (optional ones may be left out). Others: empty.' }),
    signature: signatureValue
      .optional()
      .meta({
        description: 'A signer\'s adopted signature, shown on the certificate of completion. Default: its first signature (else initials) value, else its name, typed.',
      }),
  })
  .meta({ id: 'CompleteSigningRequest', description: 'Sign, approve or confirm having viewed the envelope.' });
export type CompleteSigningRequest = z.infer<typeof completeSigningRequest>;

export const declineSigningRequest = z
  .strictObject({
    reason: trimmedText(MAX_DECLINE_REASON).meta({
      description: `Why the recipient declines, 1 to ${MAX_DECLINE_REASON} characters after trimming, on one line: no control characters (line breaks and tabs included), line or paragraph separators or unpaired surrogates. The owner receives it.`,
      examples: ['The start date is wrong.'],
    }),
  })
  .meta({ id: 'DeclineSigningRequest', description: 'Decline to sign or approve.' });
export type DeclineSigningRequest = z.infer<typeof declineSigningRequest>;

/** The query of `GET /api/disclosure` and `GET /api/signing/disclosure` (docs/api.md#consent-to-electronic-signatures). */
export const disclosureQuery = z.strictObject({
  locale: localeSchema
    .optional()
    .meta({ description: 'The language of the disclosure; absent: `en` for `GET /api/disclosure`, the recipient\'s `locale` (else the envelope\'s) for `GET /api/signing/disclosure`.', examples: ['ja'] }),
});
export type DisclosureQuery = z.infer<typeof disclosureQuery>;

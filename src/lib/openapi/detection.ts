/**
 * Field detection in the OpenAPI document (docs/api.md#fields-from-the-document): {@link registerDetectionOperations} adds
 * `POST /envelopes/{id}/fields/detect` and `POST /templates/{id}/fields/detect`. Their fields are
 * `./responses.ts`'s `Field` and `./templates.ts`'s `TemplateField`, tied at compile time to the stored fields.
 */
import type { OpenAPIRegistry, ResponseConfig } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { MAX_FIELDS } from '../envelopes/schemas.js';
import { DETECT_BOUNDS } from '../pdf/index.js';
import { documentProblems, ifMatch, internalError, ownedIdParam, ownerProblems, storageUnavailable, unauthorized, type Operation } from './common.js';
import { fieldResponse, problemResponses, type ProblemExample } from './responses.js';
import { templateFieldResponse } from './templates.js';

export const detectFieldsResponse = z
  .strictObject({
    fields: z.array(fieldResponse).max(MAX_FIELDS).meta({ description: 'The envelope\'s fields now: those detected, in page order (top to bottom, then left to right); `[]` when the document has neither tags nor form fields.' }),
    textTags: z.int().min(0).meta({ description: 'Text tags found.' }),
    formFields: z.int().min(0).meta({ description: 'Form field widgets found.' }),
  })
  .meta({ id: 'DetectedFields', description: 'The fields that replaced the envelope\'s, and what they came from.' });

export const detectTemplateFieldsResponse = z
  .strictObject({
    fields: z.array(templateFieldResponse).max(MAX_FIELDS).meta({ description: 'The template\'s fields now: those detected, in page order (top to bottom, then left to right); `[]` when the document has neither tags nor form fields.' }),
    textTags: detectFieldsResponse.shape.textTags,
    formFields: detectFieldsResponse.shape.formFields,
  })
  .meta({ id: 'DetectedTemplateFields', description: 'The fields that replaced the template\'s, and what they came from.' });

const ids = { envelope: '0193a5d1-4e2f-7a3b-9c4d-5e6f7a8b9c0d', field: '0193a5d1-5a10-7c3b-8d4e-6f7a8b9c0d1e', signer: '0193a5d1-4e30-7b1c-8d2e-3f4a5b6c7d8e', template: '0193a5d1-4e2f-7a3b-9c4d-5e6f7a8b9c1f', role: '0193a5d1-4e31-7b1c-8d2e-3f4a5b6c7d9f' };

/** The problems of detection in an envelope, by slug, with the `detail` the code sends. */
const envelopeProblems = {
  ...ownerProblems,
  ...documentProblems,
  'envelope-not-found': {},
  'envelope-locked': { detail: 'The envelope is sent: its fields can no longer change (what was sent is what gets signed). Void it and start again.' },
  'envelope-closed': { detail: 'The envelope is completed; it can no longer be changed.' },
  'no-signer': { detail: 'The form field "Signature1" on page 2 cannot be given to anyone: names no signer: the envelope has no signer with role signer. Add a signer first; nothing was changed.' },
  'envelope-contended': {},
  'etag-mismatch': { detail: 'The envelope has changed since the ETag in If-Match; read it again.' },
  'text-tag-invalid': {
    detail: 'The text tag {{sign;r=1}}, on page 3, names an unknown type "sign" (one of signature, initials, date_signed, name, email, text, checkbox, number, date, dropdown). Nothing was changed.',
    errors: [{ path: 'pages.3', message: '{{sign;r=1}} names an unknown type "sign" (one of signature, initials, date_signed, name, email, text, checkbox, number, date, dropdown)' }],
  },
  'too-many-fields': { detail: `The document holds 612 text tags and form fields; an envelope has at most ${MAX_FIELDS} fields. Nothing was changed.` },
  'document-too-complex': {
    detail: `Reading the document's text took longer than ${DETECT_BOUNDS.timeoutMs / 1000} seconds (stopped at page 812 of 1400). Fields were not detected; place them by hand or split the document.`,
  },
} satisfies Record<string, ProblemExample>;

/** The problems of detection in a template: those of an envelope, with the template's own words where they differ. */
const templateProblems = {
  ...envelopeProblems,
  'template-not-found': {},
  'invalid-transition': { detail: 'The template is active: its document is frozen, so fields are detected only in a draft template\'s upload. Place fields by hand, or create a new template.' },
  'no-signer': { detail: 'The form field "Signature1" on page 2 cannot be given to anyone: names no role: the template has no role with role signer. Add a signer first; nothing was changed.' },
  'template-contended': {},
  'etag-mismatch': {},
  'text-tag-invalid': {
    detail: 'The text tag {{signature;r=Tenant}}, on page 3, names no role of this template (its roles: "Landlord", "Client"). Nothing was changed.',
    errors: [{ path: 'pages.3', message: '{{signature;r=Tenant}} names no role of this template (its roles: "Landlord", "Client")' }],
  },
} satisfies Record<string, ProblemExample>;

const TAG_SYNTAX =
  'Text tags are text in the page content: `{{type;r=WHO;required=false;label=Text;options=a|b|c}}`. `type` is a field type (`signature`, `initials`, `date_signed`, `name`, `email`, `text`, `checkbox`, `number`, `date`, `dropdown`); the keys after it are optional, in any order, each at most once: `r` the recipient\'s 1-based position in `signers` (it must have the role `signer`; default: the first signer whose role is `signer`), `required` `true` (default) or `false`, `label` at most 100 characters, `options` (a `dropdown`\'s, required for it and only for it: 1 to 50, separated by `|`). ' +
  'Tags are read from the text a PDF text engine extracts, so a tag split across fonts or text operators, or on a rotated or cropped page, is found. A tag\'s field covers the tag\'s box (its font\'s ascent to descent), at least 0.02 of the page high (grown downward), and is marked `source: "textTag"`: at sealing its rectangle is painted opaque white before the value, also when it stays empty, so the tag never shows. Write tags in the colour of the text, or in white to keep them invisible before sealing too. ' +
  'The document\'s form fields become fields too: unsigned signature fields `signature`, text fields `text`, check boxes `checkbox`, choice fields `dropdown` with their options, at their widgets\' rectangles, their name as `label`, required as the form says (signatures always), for the first signer; they are marked `source: "formField"` with `formFieldName`: at sealing that form field is removed and the value drawn in its place.';

/** The slugs both tables have, which {@link detectOperation} names itself. */
type DetectionSlug = keyof typeof envelopeProblems & keyof typeof templateProblems;

/** What differs between detection in an envelope and in a template. */
interface DetectionTarget {
  operationId: string;
  noun: 'envelope' | 'template';
  tag: string;
  summary: string;
  description: string;
  id: string;
  /** What a text tag's `r` names: a recipient of the envelope, a role of the template. */
  taggedBy: 'recipient' | 'role';
  schema: z.ZodType;
  /** One detected field of the 200 example. */
  field: Record<string, unknown>;
  /** The problem builder of the target's table of examples. */
  problem: (status: number, description: string, slugs: DetectionSlug[]) => ResponseConfig;
  /** The 404 and 409 answers, whose slugs are the target's own. */
  notFound: ResponseConfig;
  conflict: ResponseConfig;
}

/** `POST /{envelopes|templates}/{id}/fields/detect`: the operation of one target, its answers worded for it. */
function detectOperation(target: DetectionTarget): Operation {
  const { noun, problem } = target;
  return {
    operationId: target.operationId,
    method: 'post',
    path: `/${noun}s/{id}/fields/detect`,
    tags: [target.tag],
    summary: target.summary,
    description: target.description,
    security: [{ bearerAuth: [] }],
    request: { params: ownedIdParam(noun, target.id), headers: ifMatch },
    responses: {
      200: {
        description: `The fields found, now the ${noun}'s.`,
        headers: { ETag: { description: `Strong ETag of the ${noun} version now stored.`, required: true, schema: { type: 'string' } } },
        content: { 'application/json': { schema: target.schema, example: { fields: [target.field], textTags: 1, formFields: 0 } } },
      },
      401: unauthorized,
      404: target.notFound,
      409: target.conflict,
      412: problem(412, `\`If-Match\` names another version of the ${noun} (\`etag-mismatch\`): read it again.`, ['etag-mismatch']),
      413: problem(413, 'The uploaded document is larger than `MAX_DOCUMENT_BYTES` (`document-too-large`).', ['document-too-large']),
      415: problem(415, 'The uploaded document is not a PDF (`document-not-pdf`).', ['document-not-pdf']),
      422: problem(
        422,
        `A text tag names an unknown type, ${target.taggedBy} or key, or has a bad value (\`text-tag-invalid\`: \`errors\` names each tag, path \`pages.<n>\`); more than 500 tags and form fields (\`too-many-fields\`); the document cannot be parsed (\`document-damaged\`), needs a password (\`document-encrypted\`), is over the detection bounds (\`document-too-complex\`) or is a storage copy, not an upload (\`document-copied\`). Nothing was changed.`,
        ['text-tag-invalid', 'too-many-fields', 'document-damaged', 'document-encrypted', 'document-too-complex', 'document-copied'],
      ),
      503: storageUnavailable,
      500: internalError,
    },
  };
}

const envelopeProblem = problemResponses(envelopeProblems);
const templateProblem = problemResponses(templateProblems);
const detectedField = { type: 'signature', page: 2, x: 0.1176, y: 0.7421, width: 0.2402, height: 0.02, required: true, label: null, source: 'textTag' };

const operations: Operation[] = [
  detectOperation({
    operationId: 'DetectEnvelopeFields',
    noun: 'envelope',
    tag: 'Envelopes',
    summary: 'Place the fields the document asks for (text tags and form fields)',
    description:
      `Replaces the fields of a draft envelope with those its uploaded document places itself, in page order, and counts what it found; records the same audit event as a \`fields\` update (\`envelope.fields_replaced\`). A document with neither tags nor form fields gives zero fields (200). Any invalid tag refuses the whole request (422 \`text-tag-invalid\`, naming each tag and its page) and changes nothing. No body. ${TAG_SYNTAX} ` +
      `Detection reads at most ${DETECT_BOUNDS.maxPages} pages within ${DETECT_BOUNDS.timeoutMs / 1000} s and the service's document limits (30 s, 512 MiB), else 422 \`document-too-complex\`.`,
    id: ids.envelope,
    taggedBy: 'recipient',
    schema: detectFieldsResponse,
    field: { id: ids.field, recipientId: ids.signer, ...detectedField },
    problem: envelopeProblem,
    notFound: envelopeProblem(404, 'No envelope with this id, or another owner\'s (the same answer).', ['envelope-not-found']),
    conflict: envelopeProblem(
      409,
      'The envelope is sent (`envelope-locked`) or closed (`envelope-closed`), its document is not uploaded yet (`document-not-uploaded`), the document has form fields but the envelope no signer to give them to (`no-signer`), or concurrent requests kept it busy (`envelope-contended`).',
      ['envelope-locked', 'envelope-closed', 'document-not-uploaded', 'no-signer', 'envelope-contended'],
    ),
  }),
  detectOperation({
    operationId: 'DetectTemplateFields',
    noun: 'template',
    tag: 'Templates',
    summary: 'Place a template\'s fields from its document (text tags naming roles, form fields)',
    description:
      `Replaces the fields of a draft template with those its uploaded document places itself, in page order, and counts what it found, as for an envelope (\`POST /envelopes/{id}/fields/detect\`), with one difference: a tag's \`r\` names a role of the template by its \`name\` (compared without regard to case, e.g. \`{{signature;r=Client}}\`), which must have the role \`signer\`; without \`r\`, and for every form field, the first role whose role is \`signer\`. Any invalid tag refuses the whole request (422 \`text-tag-invalid\`) and changes nothing. No body. ` +
      'The fields keep `source` and `formFieldName`; envelopes made from the template inherit them, so at sealing a tag\'s rectangle is painted white and a form field is replaced by its value. An active template\'s document is frozen: detection is refused (409 `invalid-transition`); its fields can still be changed with `PUT`/`PATCH`.',
    id: ids.template,
    taggedBy: 'role',
    schema: detectTemplateFieldsResponse,
    field: { id: ids.field, roleId: ids.role, ...detectedField },
    problem: templateProblem,
    notFound: templateProblem(404, 'No template with this id, or another organization\'s (the same answer).', ['template-not-found']),
    conflict: templateProblem(
      409,
      'The template is active, its document frozen (`invalid-transition`), its document is not uploaded yet (`document-not-uploaded`), the document has form fields but the template no role of role `signer` to give them to (`no-signer`), or concurrent requests kept it busy (`template-contended`).',
      ['invalid-transition', 'document-not-uploaded', 'no-signer', 'template-contended'],
    ),
  }),
];

/** Adds the detection operations to `registry`. */
export function registerDetectionOperations(registry: OpenAPIRegistry): void {
  for (const operation of operations) registry.registerPath(operation);
}

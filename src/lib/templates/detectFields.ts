/**
 * Detect Fields of a template (docs/api.md#fields-from-the-document): `POST /api/templates/{id}/fields/detect` replaces a
 * draft template's fields with those its uploaded documents place themselves (every document, one
 * after the other, as for an envelope: docs/api.md#documents-of-a-template), with the envelope's
 * detection (`envelopes/textTags.ts`: text tags and form fields). A tag's `r=` names a role by its
 * name (without regard to case), which must have the role `signer`; without `r`, and for form fields,
 * the first role whose role is `signer`. The fields keep `source`/`formFieldName`, which envelopes
 * made from the template inherit (form field removal at sealing).
 */
import { AppError } from '../errors.js';
import { readDocument } from '../envelopes/document.js';
import { documentsOf } from '../envelopes/documents.js';
import { ifMatchSatisfied } from '../envelopes/lifecycle.js';
import type { Actor } from '../envelopes/model.js';
import { detectAndReplaceFields, type DetectionResult } from '../envelopes/detectAndReplace.js';
import type { AssigneeLookup, DetectedField } from '../envelopes/textTags.js';
import type { Services } from '../services.js';
import { templateETag, type TemplateRecord, type TemplateRole } from './model.js';
import type { TemplateFieldInput } from './schemas.js';
import { updateTemplate } from './update.js';
import { readTemplateFor } from './access.js';
import { problem } from '../problems.js';

export interface DetectTemplateFieldsOptions {
  services: Services;
  templateId: string;
  actor: Actor;
  /** The request's `If-Match` header, or `null`. */
  ifMatch: string | null;
}

/**
 * Reads the draft template's upload (the checks of docs/api.md#create-an-envelope-and-upload-its-document), finds its text tags and form fields,
 * and replaces the template's fields with them, in page order (`envelopes/detectAndReplace.ts`). A
 * document with neither gives zero fields (not an error).
 * @throws AppError 404 `template-not-found`; 403 `forbidden-role` (a template the caller may not
 *   change, `access.ts`); 409 `invalid-transition` (the template is active: its
 *   document is frozen), `document-not-uploaded`, `no-signer` (form fields but no role of role
 *   signer), `template-contended`; 412 `etag-mismatch`; 413/415/422 as the upload checks; 422
 *   `text-tag-invalid`, `too-many-fields`, `document-damaged`, `document-encrypted`, `document-too-complex`
 */
export async function detectTemplateFields({ services, templateId, actor, ifMatch }: DetectTemplateFieldsOptions): Promise<DetectionResult<TemplateRecord>> {
  return detectAndReplaceFields<TemplateRecord, TemplateRole>(
    {
      read: async () => {
        const record = (await readTemplateFor(services, actor, templateId, 'change')).record;
        if (!ifMatchSatisfied(ifMatch, templateETag(record))) throw etagMismatch();
        if (record.status !== 'draft') {
          throw problem('invalidTransition', { detail: 'The template is active: its document is frozen, so fields are detected only in a draft template\'s upload. Place fields by hand, or create a new template.' });
        }
        return record;
      },
      etag: templateETag,
      document: (record) => readDocument({ services, record, uploads: services.storage.containers.templates }),
      documents: (record) => {
        const documents = documentsOf(record);
        const uploads = services.storage.containers.templates;
        return documents.length === 1 ? null : documents.map((document) => ({ ...document, read: async () => await readDocument({ services, record: document, uploads }) }));
      },
      assignee: (record, who) => roleNamed(record.roles, who),
      replaceFields: (fields, version) => updateTemplate({ services, templateId, request: { fields: fields.map(toFieldInput) }, actor, ifMatch: version }),
      contended: () => problem('templateContended'),
    },
    ifMatch,
  );
}

/**
 * The role a tag's `r=` names (docs/api.md#fields-from-the-document): by name, without regard to case, and of role
 * `signer`; none given, the first role whose role is `signer`.
 */
export function roleNamed(roles: readonly TemplateRole[], who: string | undefined): AssigneeLookup<TemplateRole> {
  if (who === undefined) {
    const first = roles.find((role) => role.role === 'signer');
    return first === undefined ? { error: 'names no role: the template has no role with role signer' } : { assignee: first };
  }
  const wanted = who.toLowerCase();
  const role = roles.find((candidate) => candidate.name.toLowerCase() === wanted);
  if (role === undefined) return { error: `names no role of this template (its roles: ${roles.map((candidate) => `"${candidate.name}"`).join(', ') || 'none'})` };
  if (role.role !== 'signer') return { error: `names role "${role.name}", whose role is ${role.role}; only a role of role signer fills fields` };
  return { assignee: role };
}

function etagMismatch(): AppError {
  return problem('etagMismatch');
}

/** A detected field as the template's fields update takes it. */
function toFieldInput(field: DetectedField<TemplateRole>): TemplateFieldInput {
  const { assignee, options, ...rest } = field;
  return {
    ...rest,
    // As for envelopes: the tag parser accepts every tag type; the field model's list decides what is stored.
    type: rest.type as TemplateFieldInput['type'],
    roleId: assignee.id,
    ...(options === undefined ? {} : { options }),
  };
}

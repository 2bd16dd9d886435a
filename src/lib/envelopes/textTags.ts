/**
 * Fields from the document (CONTRACT §15.2), for envelopes and templates alike: the text tags and
 * form fields that `detectDocumentFields` (`pdf/detectFields.ts`) found, turned into fields.
 *
 * Tag syntax: `{{type;key=value;...}}`. `type` is a field type (`signature`, `initials`,
 * `date_signed`, `name`, `email`, `text`, `checkbox`, `number`, `date`, `dropdown`); the keys,
 * optional and in any order, each at most once:
 * - `r`: who fills the field. The caller decides what it names ({@link DetectFieldsOptions.assignee}):
 *   a 1-based position in the envelope's `signers`, or a template role's name. Default: the first
 *   signer (first role).
 * - `required`: `true` (default) or `false`.
 * - `label`: the field's label, at most 100 characters (no `;` or `}`).
 * - `options`: a `dropdown`'s options, `a|b|c`, 1 to 50 of at most 100 characters each; required
 *   for `dropdown` and refused for every other type.
 * Spaces around the type, the keys and the values are ignored, and so are spaces inside the type, a
 * key, `r` and `required` (a text engine may insert one where a tag is split across text operators). Anything else (an unknown type, key or
 * recipient, a repeated key, a bad value) refuses the whole detection with 422
 * `text-tag-invalid` (the catalogue's `textTagInvalid`), naming the page and the tag.
 */
import type { FieldError } from '../errors.js';
import { detectDocumentFields, type FoundFormField, type FoundTextTag, type Rectangle } from '../pdf/index.js';
import { FIELD_TYPES } from './model.js';
import { MAX_FIELD_LABEL, MAX_FIELDS } from './schemas.js';
import { problem } from '../problems.js';

/**
 * The types a tag may name: those of CONTRACT §11.2 and §15.3. `number`, `date` and `dropdown`
 * are listed here as well as wherever the field model lists its types, so tags name them either way.
 */
export const TAG_FIELD_TYPES: readonly string[] = [...new Set<string>([...FIELD_TYPES, 'number', 'date', 'dropdown'])];

/** The keys a tag may carry after its type. */
export const TAG_KEYS = ['r', 'required', 'label', 'options'] as const;

/** Most options of a `dropdown`, and the longest option, characters (CONTRACT §15.3). */
export const MAX_DROPDOWN_OPTIONS = 50;
export const MAX_DROPDOWN_OPTION_LENGTH = 100;

/** A field found in the document, before it is given an id: who fills it is the caller's answer. */
export interface DetectedField<Assignee> {
  assignee: Assignee;
  type: string;
  /** 1-based page. */
  page: number;
  x: number;
  y: number;
  width: number;
  height: number;
  required: boolean;
  label: string | null;
  /** A `dropdown`'s options. */
  options?: string[];
  source: 'textTag' | 'formField';
  /** With `source: 'formField'`: the form field's fully qualified name. */
  formFieldName?: string;
}

/** What detection found: the fields in page order, and how many came from tags and from the form. */
export interface DetectedFields<Assignee> {
  fields: DetectedField<Assignee>[];
  textTags: number;
  formFields: number;
}

/** What an assignee lookup answers: the assignee, or why `r=` names none (a sentence end: "names no signer"). */
export type AssigneeLookup<Assignee> = { assignee: Assignee } | { error: string };

export interface DetectFieldsOptions<Assignee> {
  /** The PDF bytes (checked by the caller: size limit, `%PDF-` header). */
  document: Uint8Array;
  /**
   * Who fills a field: `who` is a tag's `r=` value as written (trimmed), or `undefined` for a tag
   * without `r` and for every form field ("the first signer" or "the first role").
   */
  assignee: (who: string | undefined) => AssigneeLookup<Assignee>;
  signal?: AbortSignal;
}

/**
 * Finds the fields of a document (module comment): its text tags and its form's fields, merged in
 * page order (top to bottom, then left to right, within a page).
 * @throws AppError 422 `text-tag-invalid` naming every bad tag with its page (`errors`: path
 *   `pages.<n>`), 422 `too-many-fields` when over 500 fields, and what `detectDocumentFields` throws
 */
export async function detectFields<Assignee>({ document, assignee, signal }: DetectFieldsOptions<Assignee>): Promise<DetectedFields<Assignee>> {
  const found = await detectDocumentFields({ document, ...(signal === undefined ? {} : { signal }) });
  const errors: FieldError[] = [];
  const fields: DetectedField<Assignee>[] = [];
  for (const tag of found.textTags) {
    const parsed = parseTextTag(tag, assignee);
    if ('error' in parsed) errors.push({ path: `pages.${tag.page}`, message: `{{${tag.text}}} ${parsed.error}` });
    else fields.push(parsed);
  }
  if (errors.length > 0) {
    const first = errors[0]!;
    throw problem('textTagInvalid', { detail: `The text tag ${first.message.replace(/\}\} /, '}}, on page ' + first.path.slice('pages.'.length) + ', ')}.${errors.length > 1 ? ` ${errors.length - 1} more tag${errors.length === 2 ? ' is' : 's are'} invalid (see errors).` : ''} Nothing was changed.`, errors });
  }
  for (const formField of found.formFields) {
    const field = fromFormField(formField, assignee);
    if ('error' in field) {
      throw problem('noSigner', { detail: `The form field "${formField.name}" on page ${formField.page} cannot be given to anyone: ${field.error}. Add a signer first; nothing was changed.` });
    }
    fields.push(field);
  }
  fields.sort((one, other) => one.page - other.page || one.y - other.y || one.x - other.x);
  if (fields.length > MAX_FIELDS) {
    throw problem('tooManyFields', { detail: `The document holds ${fields.length} text tags and form fields; an envelope has at most ${MAX_FIELDS} fields. Nothing was changed.` });
  }
  return { fields, textTags: found.textTags.length, formFields: found.formFields.length };
}

/** A tag as a field, or why it is invalid (a sentence end, "names an unknown type foo"). */
export function parseTextTag<Assignee>(tag: FoundTextTag, assignee: DetectFieldsOptions<Assignee>['assignee']): DetectedField<Assignee> | { error: string } {
  const [head = '', ...parts] = tag.text.split(';');
  // A text engine may put a space where a tag is split across text operators ("{{sig nature}}"):
  // names and the values of r and required hold no spaces, so every space in them is dropped.
  const type = head.replace(/\s+/g, '');
  if (!TAG_FIELD_TYPES.includes(type)) return { error: `names an unknown type "${type}" (one of ${TAG_FIELD_TYPES.join(', ')})` };
  const values = new Map<string, string>();
  for (const part of parts) {
    if (part.trim() === '') continue;
    const equals = part.indexOf('=');
    const key = (equals < 0 ? part : part.slice(0, equals)).replace(/\s+/g, '');
    if (!(TAG_KEYS as readonly string[]).includes(key)) return { error: `has an unknown key "${key}" (keys: ${TAG_KEYS.join(', ')})` };
    if (equals < 0) return { error: `gives no value to ${key} (write ${key}=...)` };
    if (values.has(key)) return { error: `repeats the key ${key}` };
    const value = part.slice(equals + 1).trim();
    values.set(key, key === 'r' || key === 'required' ? value.replace(/\s+/g, '') : value);
  }
  const who = values.get('r');
  const lookup = assignee(who);
  if ('error' in lookup) return { error: `r=${who ?? ''} ${lookup.error}` };
  let required = true;
  const requiredValue = values.get('required');
  if (requiredValue !== undefined) {
    if (requiredValue !== 'true' && requiredValue !== 'false') return { error: `has required=${requiredValue}; it must be true or false` };
    required = requiredValue === 'true';
  }
  const label = values.get('label');
  if (label !== undefined && (Array.from(label).length > MAX_FIELD_LABEL || /[\p{Cc}\u2028\u2029]/u.test(label))) {
    return { error: `has a label longer than ${MAX_FIELD_LABEL} characters or with control characters` };
  }
  const optionsValue = values.get('options');
  let options: string[] | undefined;
  if (type === 'dropdown') {
    if (optionsValue === undefined) return { error: 'is a dropdown without options (add options=a|b|c)' };
    options = optionsValue.split('|').map((option) => option.trim());
    if (options.length > MAX_DROPDOWN_OPTIONS || options.some((option) => option === '' || Array.from(option).length > MAX_DROPDOWN_OPTION_LENGTH)) {
      return { error: `needs 1 to ${MAX_DROPDOWN_OPTIONS} options, each 1 to ${MAX_DROPDOWN_OPTION_LENGTH} characters` };
    }
  } else if (optionsValue !== undefined) {
    return { error: `gives options to a ${type} field; only a dropdown has options` };
  }
  return {
    assignee: lookup.assignee,
    type,
    page: tag.page,
    ...tag.rect,
    required,
    label: label === undefined || label === '' ? null : label,
    ...(options === undefined ? {} : { options }),
    source: 'textTag',
  };
}

/** The field kinds a form field becomes (CONTRACT §15.2). */
const FORM_FIELD_TYPES: Record<FoundFormField['kind'], string> = { signature: 'signature', text: 'text', checkbox: 'checkbox', choice: 'dropdown' };

function fromFormField<Assignee>(formField: FoundFormField, assignee: DetectFieldsOptions<Assignee>['assignee']): DetectedField<Assignee> | { error: string } {
  const lookup = assignee(undefined);
  if ('error' in lookup) return lookup;
  const rect: Rectangle = formField.rect;
  const label = Array.from(formField.name.replace(/[\p{Cc}\u2028\u2029]/gu, ' ')).slice(0, MAX_FIELD_LABEL).join('');
  const options = formField.kind === 'choice' ? (formField.options ?? []).map((option) => Array.from(option).slice(0, MAX_DROPDOWN_OPTION_LENGTH).join('')).filter((option) => option.trim() !== '').slice(0, MAX_DROPDOWN_OPTIONS) : undefined;
  // A choice field without options cannot be a dropdown (it needs one): the recipient types the value.
  const asText = options !== undefined && options.length === 0;
  return {
    assignee: lookup.assignee,
    type: asText ? 'text' : FORM_FIELD_TYPES[formField.kind],
    page: formField.page,
    ...rect,
    // As the form says (its Required flag); a signature field is always to be signed.
    required: formField.kind === 'signature' || formField.required,
    label: label.trim() === '' ? null : label,
    ...(options === undefined || asText ? {} : { options }),
    source: 'formField',
    formFieldName: formField.name,
  };
}

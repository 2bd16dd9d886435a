/**
 * Fields from the document (docs/api.md#fields-from-the-document), for envelopes and templates alike: the text tags and
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
 * - `w`, `h`: the field's width and height; `x`, `y`: its offset from the tag's top-left (right and
 *   down; negative goes left and up). Each in points (`w=120`, any value of 1 and above) or as a
 *   fraction of the page's displayed width (`w`, `x`) or height (`h`, `y`) (`w=0.2`, below 1).
 *   Without them, the field sits at the tag's top-left and is as wide as the tag's text; a `signature`
 *   or `initials` field is 3 × the tag's line height tall, a `checkbox` a square of the tag's font
 *   size, any other field as tall as the tag's line (at least {@link MIN_TAG_HEIGHT} of the page).
 *   A field that these keys would put past the page's edge is refused; a field placed by default is
 *   moved back inside the page.
 * Spaces around the type, the keys and the values are ignored, and so are spaces inside the type, a
 * key, `r` and `required` (a text engine may insert one where a tag is split across text operators). Anything else (an unknown type, key or
 * recipient, a repeated key, a bad value) refuses the whole detection with 422
 * `text-tag-invalid` (the catalogue's `textTagInvalid`), naming the page and the tag.
 */
import type { FieldError } from '../errors.js';
import { detectDocumentFields, type FoundFormField, type FoundTextTag, type Rectangle } from '../pdf/index.js';
import { MIN_TAG_HEIGHT } from '../pdf/detectFields.js';
import { FIELD_TYPES, type Field } from './model.js';
import { MAX_FIELD_LABEL, MAX_FIELDS } from './schemas.js';
import { problem } from '../problems.js';

/**
 * The types a tag may name: those of docs/api.md#fields and docs/api.md#field-types-and-their-values. `number`, `date` and `dropdown`
 * are listed here as well as wherever the field model lists its types, so tags name them either way.
 * A signer's file (`attachment`, `image`, docs/api.md#files-from-signers) is placed by hand, never by a tag.
 */
export const TAG_FIELD_TYPES: readonly string[] = [...new Set<string>([...FIELD_TYPES, 'number', 'date', 'dropdown'])].filter((type) => type !== 'attachment' && type !== 'image');

/** The keys a tag may carry after its type. */
export const TAG_KEYS = ['r', 'required', 'label', 'options', 'w', 'h', 'x', 'y'] as const;

/** The height of a `signature` or `initials` field made from a tag without `h`, in the tag's line heights. */
export const SIGNATURE_LINE_HEIGHTS = 3;

/** Most options of a `dropdown`, and the longest option, characters (docs/api.md#field-types-and-their-values). */
export const MAX_DROPDOWN_OPTIONS = 50;
export const MAX_DROPDOWN_OPTION_LENGTH = 100;

/** A field found in the document, before it is given an id: who fills it is the caller's answer. */
export interface DetectedField<Assignee> extends Pick<Field, 'documentId' | 'page' | 'x' | 'y' | 'width' | 'height' | 'required' | 'label' | 'options' | 'formFieldName'> {
  assignee: Assignee;
  type: string;
  source: 'textTag' | 'formField';
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
    values.set(key, key === 'label' || key === 'options' ? value : value.replace(/\s+/g, ''));
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
  const placed = placeField(type, tag, values);
  if ('error' in placed) return placed;
  return {
    assignee: lookup.assignee,
    type,
    page: tag.page,
    ...placed,
    required,
    label: label === undefined || label === '' ? null : label,
    ...(options === undefined ? {} : { options }),
    source: 'textTag',
  };
}

/** A number: digits with an optional fraction, an optional sign. */
const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)$/;

/** Slack for rounding when checking that a field stays on its page, as a fraction of the page. */
const PAGE_EDGE_SLACK = 1e-6;

/** Fractions to 6 decimals, as detection gives them. */
const round6 = (value: number): number => Math.round(value * 1e6) / 1e6;

/**
 * Where a tag's field goes (module comment: `w`, `h`, `x`, `y` and the defaults), in fractions of the
 * displayed page, or why the tag cannot place it.
 */
function placeField(type: string, tag: FoundTextTag, values: ReadonlyMap<string, string>): Rectangle | { error: string } {
  const { bounds, pageWidth, pageHeight } = tag;
  const given: Partial<Record<'w' | 'h' | 'x' | 'y', number>> = {};
  for (const key of ['w', 'h', 'x', 'y'] as const) {
    const value = values.get(key);
    if (value === undefined) continue;
    const size = key === 'w' || key === 'h';
    const number = NUMBER.test(value) ? Number(value) : NaN;
    if (!Number.isFinite(number) || (size && number <= 0)) {
      return { error: `has ${key}=${value}; it must be ${size ? 'a size above 0' : 'an offset'} in points (${key}=${size ? 120 : 36}) or as a fraction of the page (${key}=${size ? '0.2' : '-0.05'})` };
    }
    const across = key === 'w' || key === 'x' ? pageWidth : pageHeight;
    given[key] = Math.abs(number) < 1 ? number : number / across;
  }
  // The tag's line: its text's box, at least as tall as a field made from a tag ever was.
  const lineHeight = Math.max(bounds.height, MIN_TAG_HEIGHT);
  let width: number;
  let height: number;
  if (type === 'checkbox') {
    // A square, in points: of the font size, or of whichever side the tag gives.
    const side = given.w !== undefined ? given.w * pageWidth : given.h !== undefined ? given.h * pageHeight : tag.fontSize;
    width = given.w ?? side / pageWidth;
    height = given.h ?? side / pageHeight;
  } else {
    width = given.w ?? bounds.width;
    height = given.h ?? (type === 'signature' || type === 'initials' ? SIGNATURE_LINE_HEIGHTS * lineHeight : lineHeight);
  }
  let x = bounds.x + (given.x ?? 0);
  let y = bounds.y + (given.y ?? 0);
  if (Object.keys(given).length > 0) {
    const edges = [
      x < -PAGE_EDGE_SLACK && 'left',
      y < -PAGE_EDGE_SLACK && 'top',
      x + width > 1 + PAGE_EDGE_SLACK && 'right',
      y + height > 1 + PAGE_EDGE_SLACK && 'bottom',
    ].filter((edge): edge is string => edge !== false);
    if (edges.length > 0) {
      return { error: `puts its field past the page's ${edges.join(' and ')} edge (the field would span x ${round6(x)} to ${round6(x + width)}, y ${round6(y)} to ${round6(y + height)} of the page); make w, h, x or y smaller` };
    }
  }
  width = Math.min(width, 1);
  height = Math.min(height, 1);
  x = Math.min(Math.max(x, 0), 1 - width);
  y = Math.min(Math.max(y, 0), 1 - height);
  return { x: round6(x), y: round6(y), width: round6(width), height: round6(height) };
}

/** The field kinds a form field becomes (docs/api.md#fields-from-the-document). */
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

/**
 * The rules of a field's value beyond its type (number bounds, dropdown options, text length and
 * pattern) and the owner's prefilled values (`value`, `readOnly`), shared by the field schemas
 * (envelope and template fields: the owner's prefilled value must obey them) and by the recipient's
 * complete request (`recipients/recipientActions.ts`), so that both judge a value the same way.
 *
 * Patterns are run by RE2 (`patternEngine.ts`), a linear-time engine: a user's pattern never reaches
 * JavaScript's backtracking `RegExp`, so `(a+)+$` on a long value costs linear time, not exponential.
 */
import { characterCount } from '../text.js';
import type { Field } from './model.js';
import { checkPattern, MAX_PATTERN_SIZE, PatternTooComplexError, patternMatches } from './patternEngine.js';

/** Most options of a `dropdown` field, and the longest option, characters. */
export const MAX_DROPDOWN_OPTIONS = 50;
export const MAX_DROPDOWN_OPTION = 100;
/** Longest `text` value, characters; `maxLength` is at most this. */
export const MAX_TEXT_LENGTH = 500;
/** Longest `pattern`, characters. */
export const MAX_PATTERN = 200;
/** Longest `number` value, characters. */
export const MAX_NUMBER_LENGTH = 40;
/** The shape of a `number` value: optional minus, digits, optional decimal point and digits (`"12.50"`, `"-3"`). */
export const NUMBER_PATTERN = '^-?[0-9]+(\\.[0-9]+)?$';
/** The shape of a `date` value: `YYYY-MM-DD` (ISO 8601 calendar date). */
export const DATE_PATTERN = '^[0-9]{4}-[0-9]{2}-[0-9]{2}$';

/** The media types an `attachment` field may take (docs/api.md#files-from-signers); `image` fields take the last two. */
export const ATTACHMENT_TYPES = ['application/pdf', 'image/jpeg', 'image/png'] as const;
export type AttachmentType = (typeof ATTACHMENT_TYPES)[number];
/** The media types of an `image` field (docs/api.md#files-from-signers). */
export const IMAGE_TYPES: readonly AttachmentType[] = ['image/jpeg', 'image/png'];
/** The largest upload of an `attachment` or `image` field, bytes (10 MiB), and its `maxBytes` default (docs/api.md#files-from-signers). */
export const MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024;
/** Types whose value is a file the recipient uploads (docs/api.md#files-from-signers): never prefilled. */
export const FILE_TYPES: ReadonlySet<string> = new Set(['attachment', 'image']);

const NUMBER = new RegExp(NUMBER_PATTERN);
const DATE = new RegExp(DATE_PATTERN);

/** Types whose value the service fills in (the recipient and the owner give none: a prefilled value is refused). */
export const SERVICE_FILLED_TYPES: ReadonlySet<string> = new Set(['date_signed', 'name', 'email']);
/** Types whose value is a signature: never prefilled. */
export const SIGNATURE_TYPES: ReadonlySet<string> = new Set(['signature', 'initials']);

/** The rule properties a field may carry (all optional; which apply depends on `type`). */
export interface FieldRules {
  type: string;
  required?: boolean;
  options?: string[] | null | undefined;
  min?: number | null | undefined;
  max?: number | null | undefined;
  minLength?: number | null | undefined;
  maxLength?: number | null | undefined;
  pattern?: string | null | undefined;
  value?: string | boolean | null | undefined;
  readOnly?: boolean | undefined;
  accept?: readonly string[] | null | undefined;
  maxBytes?: number | null | undefined;
}

/**
 * Why `pattern` cannot be a field's pattern, or `null` when it can: RE2 syntax, compiled alone and as
 * `^(?:pattern)$` with the `u` flag, within the engine's size limit. The message is the service's own
 * (see docs/api.md#pattern-limits); whatever patterns were checked before, anyone's, change nothing.
 */
export function patternRefusal(pattern: string): string | null {
  const refusal = checkPattern(pattern);
  if (refusal === null) return null;
  if (refusal.kind === 'syntax') return refusal.message;
  return `is too complex: its compiled form passes the limit of ${MAX_PATTERN_SIZE} units (a counted repetition such as {100} repeats what it applies to, and \\pL, . and [^...] weigh far more than ASCII characters; prefer + or * with maxLength)`;
}

/** Whether `value` is a real calendar date `YYYY-MM-DD` (proleptic Gregorian, as ISO 8601). */
function isCalendarDate(value: string): boolean {
  if (!DATE.test(value)) return false;
  const [year, month, day] = value.split('-').map(Number) as [number, number, number];
  const date = new Date(0);
  // setUTCFullYear, not Date.UTC: Date.UTC reads years 0 to 99 as 1900 to 1999.
  date.setUTCFullYear(year, month - 1, day);
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/**
 * The rules a value may break, with the `params` each carries beside its message (see
 * [Errors](../../../docs/api.md#errors)), so that a page can say it in the reader's language without
 * reading the English message.
 */
export type ValueRule = 'type' | 'required' | 'format' | 'min' | 'max' | 'minLength' | 'maxLength' | 'pattern' | 'options';

/** Why a value does not fit its field: the English `message`, and the `rule` it breaks with that rule's `params`. */
export interface ValueRefusal {
  message: string;
  rule: ValueRule;
  params: Record<string, string | number | string[]>;
}

/**
 * Why `value` does not fit `field` (its type, whether it is required and its rules), or `null` when it
 * does. An empty string is "no value": refused only when the field is required; the other rules
 * (bounds, lengths, pattern, options) apply to non-empty values.
 * @returns a message to follow the value's path (`must be at most 100`), the rule and its params
 */
export function valueRefusalOf(field: FieldRules, value: unknown): ValueRefusal | null {
  const refuse = (message: string, rule: ValueRule, params: ValueRefusal['params'] = {}): ValueRefusal => ({ message, rule, params });
  const required = field.required ?? true;
  switch (field.type) {
    case 'checkbox':
      if (typeof value !== 'boolean') return refuse('must be true or false', 'type', { type: 'boolean' });
      return required && !value ? refuse('must be true: the check box is required', 'required') : null;
    case 'attachment':
    case 'image':
      // docs/api.md#files-from-signers: `{attachmentId}` of an upload to this field; whose it is is checked against storage.
      if (value === '') return required ? refuse('must not be empty: the field is required', 'required') : null;
      return isAttachmentReference(value) ? null : refuse('must be {attachmentId} of a file uploaded with POST /api/signing/attachments', 'type', { type: 'attachment' });
    case 'text':
    case 'number':
    case 'date':
    case 'dropdown':
      break;
    default:
      return null;
  }
  if (typeof value !== 'string') return refuse(field.type === 'number' ? 'must be a string such as "12.50" (not a JSON number)' : 'must be a string', 'type', { type: 'string' });
  if (value.trim() === '') return required ? refuse('must not be empty: the field is required', 'required') : null;
  switch (field.type) {
    case 'number': {
      if (characterCount(value) > MAX_NUMBER_LENGTH || !NUMBER.test(value)) return refuse('must be a decimal number written as a string, such as "12.50" or "-3"', 'format', { format: 'number' });
      const number = Number(value);
      if (field.min != null && number < field.min) return refuse(`must be at least ${field.min}`, 'min', { min: field.min });
      if (field.max != null && number > field.max) return refuse(`must be at most ${field.max}`, 'max', { max: field.max });
      return null;
    }
    case 'date':
      return isCalendarDate(value) ? null : refuse('must be a date YYYY-MM-DD', 'format', { format: 'date' });
    case 'dropdown':
      return field.options?.includes(value) === true ? null : refuse(`must be one of the options: ${(field.options ?? []).join(', ')}`, 'options', { options: [...(field.options ?? [])] });
    default: {
      const length = characterCount(value);
      if (length > MAX_TEXT_LENGTH) return refuse(`must be at most ${MAX_TEXT_LENGTH} characters`, 'maxLength', { max: MAX_TEXT_LENGTH });
      if (field.minLength != null && length < field.minLength) return refuse(`must be at least ${field.minLength} characters`, 'minLength', { min: field.minLength });
      if (field.maxLength != null && length > field.maxLength) return refuse(`must be at most ${field.maxLength} characters`, 'maxLength', { max: field.maxLength });
      if (field.pattern != null && !matchesPattern(field.pattern, value)) return refuse(`must match the pattern ${field.pattern}`, 'pattern', { pattern: field.pattern });
      return null;
    }
  }
}

/** Whether `value` is `{attachmentId}` with a non-empty string id (docs/api.md#files-from-signers). */
function isAttachmentReference(value: unknown): value is { attachmentId: string } {
  return typeof value === 'object' && value !== null && typeof (value as { attachmentId?: unknown }).attachmentId === 'string' && (value as { attachmentId: string }).attachmentId !== '';
}

/** The message of {@link valueRefusalOf}, or `null` when `value` fits `field`. */
export function valueRefusal(field: FieldRules, value: unknown): string | null {
  return valueRefusalOf(field, value)?.message ?? null;
}

/**
 * Whether the whole of `value` matches `pattern`. A pattern the engine cannot run (saved before a limit
 * that now refuses it) is logged and treated as matching: the recipient's value was checked by every
 * other rule, and a recipient must never be stopped by the sender's pattern.
 */
function matchesPattern(pattern: string, value: string): boolean {
  try {
    return patternMatches(pattern, value);
  } catch (error) {
    if (!(error instanceof PatternTooComplexError)) throw error;
    console.warn(`Field rules: the pattern ${JSON.stringify(pattern)} cannot be run; the value is accepted without it`);
    return true;
  }
}

/**
 * The problems of a field's rule properties taken together (a field's own checks, beyond each
 * property's shape): which properties its type allows, bounds in order, a pattern that compiles, the
 * prefilled value fitting the field, `readOnly` only with a value.
 * @returns `[property, message]` pairs, empty when the field is consistent
 */
export function fieldRuleProblems(field: FieldRules): [keyof FieldRules, string][] {
  const problems: [keyof FieldRules, string][] = [];
  const only = (property: keyof FieldRules, types: string[]) => {
    if (field[property] != null && !types.includes(field.type)) problems.push([property, `is only for fields of type ${types.join(', ')}`]);
  };
  only('options', ['dropdown']);
  only('min', ['number']);
  only('max', ['number']);
  only('minLength', ['text']);
  only('maxLength', ['text']);
  only('pattern', ['text']);
  only('accept', ['attachment']);
  only('maxBytes', ['attachment', 'image']);
  if (field.accept != null) {
    const seen = new Set<string>();
    field.accept.forEach((type) => {
      if (seen.has(type)) problems.push(['accept', `repeats the media type ${type}`]);
      seen.add(type);
    });
  }
  if (field.type === 'dropdown' && (field.options == null || field.options.length === 0)) problems.push(['options', 'is required for a dropdown: 1 to 50 choices']);
  if (field.options != null) {
    const seen = new Set<string>();
    field.options.forEach((option) => {
      if (seen.has(option)) problems.push(['options', `repeats the option ${option}`]);
      seen.add(option);
    });
  }
  if (field.min != null && field.max != null && field.min > field.max) problems.push(['max', 'must not be less than min']);
  if (field.minLength != null && field.maxLength != null && field.minLength > field.maxLength) problems.push(['maxLength', 'must not be less than minLength']);
  const patternProblem = field.pattern == null ? null : patternRefusal(field.pattern);
  if (patternProblem !== null) problems.push(['pattern', patternProblem]);

  const prefilled = field.value != null && field.value !== '';
  if (prefilled && SIGNATURE_TYPES.has(field.type)) problems.push(['value', `cannot be prefilled on a ${field.type} field: only the recipient signs`]);
  else if (prefilled && FILE_TYPES.has(field.type)) problems.push(['value', `cannot be prefilled on an ${field.type} field: only the recipient uploads its file`]);
  else if (prefilled && SERVICE_FILLED_TYPES.has(field.type)) {
    // What the service fills in is evidence of the signing (docs/api.md#fields): never the owner's.
    problems.push(['value', `cannot be prefilled on a ${field.type} field: the service fills in ${serviceFilledWhat(field.type)}`]);
  } else if (prefilled && patternProblem === null) {
    const refusal = valueRefusal({ ...field, required: false }, field.value);
    if (refusal !== null) problems.push(['value', refusal]);
  }
  if (field.readOnly === true && !prefilled) problems.push(['readOnly', 'needs a value: a read-only field shows the value the owner gives']);
  return problems;
}

/** What the service fills in on a field of a type of {@link SERVICE_FILLED_TYPES}, for messages. */
export function serviceFilledWhat(type: string): string {
  return type === 'date_signed' ? 'the date of the signing' : `the recipient's ${type === 'name' ? 'name' : 'e-mail address'}`;
}

/**
 * The media types a file field takes (docs/api.md#files-from-signers): an `image` field's JPEG and
 * PNG, an `attachment` field's `accept` (default all of {@link ATTACHMENT_TYPES}).
 */
export function acceptedTypes(field: Pick<Field, 'type' | 'accept'>): readonly string[] {
  if (field.type === 'image') return IMAGE_TYPES;
  return field.accept ?? ATTACHMENT_TYPES;
}

/** Whether the owner gave the field a value (a default, or read-only); an empty string is none. */
export function hasPrefilledValue(field: Pick<Field, 'value'>): boolean {
  return field.value !== undefined && field.value !== '';
}

/** The rule properties of a stored field, copied from an input with only those that are set. */
export function storedRules(input: FieldRules): Pick<Field, 'options' | 'min' | 'max' | 'minLength' | 'maxLength' | 'pattern' | 'value' | 'readOnly' | 'accept' | 'maxBytes'> {
  const rules: Pick<Field, 'options' | 'min' | 'max' | 'minLength' | 'maxLength' | 'pattern' | 'value' | 'readOnly' | 'accept' | 'maxBytes'> = {};
  if (input.options != null) rules.options = [...input.options];
  if (input.min != null) rules.min = input.min;
  if (input.max != null) rules.max = input.max;
  if (input.minLength != null) rules.minLength = input.minLength;
  if (input.maxLength != null) rules.maxLength = input.maxLength;
  if (input.pattern != null) rules.pattern = input.pattern;
  if (input.value != null) rules.value = input.value;
  if (input.readOnly === true) rules.readOnly = true;
  if (input.accept != null) rules.accept = [...input.accept];
  if (input.maxBytes != null) rules.maxBytes = input.maxBytes;
  return rules;
}

/**
 * The rows of a bulk send (docs/api.md#bulk-send), from JSON or from CSV (docs/api.md#the-csv-file),
 * checked against the template before any job exists: each row becomes the use of the template it
 * amounts to (`POST /api/templates/{id}/envelopes`) and is checked by that use's own code
 * (`templates/createEnvelopeFromTemplate.ts` `envelopeUpdateFor`), so a row is refused exactly as its
 * use would be: a role missing, an invalid e-mail or phone, an unknown locale, a prefilled value
 * that breaks its field's rules. Every bad row is reported with its number (from 1, data rows only,
 * a CSV's header not counted) and what is wrong, naming the row's field (JSON) or the column (CSV).
 */
import { isAppError, type FieldError } from '../errors.js';
import { mustAct } from '../envelopes/model.js';
import { parseWith } from '../http/body.js';
import { problem } from '../problems.js';
import { envelopeUpdateFor } from '../templates/createEnvelopeFromTemplate.js';
import type { TemplateField, TemplateRecord } from '../templates/model.js';
import type { UseTemplateRequest } from '../templates/schemas.js';
import type { CsvTable } from './csv.js';
import { bulkRowInput, type BulkRowInput } from './schemas.js';

/** Most complaints one answer lists (the rows past them are bad too, the detail says how many). */
export const MAX_REPORTED_ERRORS = 1000;

/** The CSV columns of a role, after `<role name>.` (docs/api.md#the-csv-file). */
const ROLE_COLUMNS = ['email', 'name', 'locale', 'phone'] as const;
type RoleColumn = (typeof ROLE_COLUMNS)[number];

/** One row, checked: the use it amounts to, its metadata, and what its send e-mails and texts at once. */
export interface CheckedRow {
  row: number;
  request: UseTemplateRequest;
  metadata: Record<string, string> | null;
  /** Invitations its send queues at once, by channel (the quota's count, docs/api.md#rate-limits-and-quotas). */
  emails: number;
  texts: number;
}

/** A row as both kinds of input give it, before it is checked against the template. */
interface RowInput {
  row: number;
  input: BulkRowInput;
  /** How to name a place in the row: a JSON row's field path, or a CSV row's column. */
  name: (place: Place) => { field: string; column?: string };
}

/** A place in a row: a recipient's value (by index in `input.recipients`), a prefill key, or the row itself. */
type Place = { recipient: number; key: string } | { prefill: string } | { other: string };

/**
 * Checks JSON rows (each a `BulkRowInput`) against the template.
 * @throws AppError 400 `validation-failed` listing every bad row (see the module comment)
 */
export function checkJsonRows(template: TemplateRecord, rows: readonly unknown[], send: boolean, now: Date): CheckedRow[] {
  const errors: FieldError[] = [];
  const inputs: RowInput[] = [];
  rows.forEach((value, index) => {
    const row = index + 1;
    const input = parsedRow(row, value, errors);
    if (input === null) return;
    inputs.push({
      row,
      input,
      name: (place) => ({ field: 'recipient' in place ? `recipients.${place.recipient}.${place.key}` : 'prefill' in place ? `prefill.${place.prefill}` : place.other }),
    });
  });
  return checkRows(template, inputs, errors, send, now);
}

/**
 * Checks a CSV's rows against the template: its header first (every column known, each role's
 * `email` and `name` there), then each record.
 * @throws AppError 400 `validation-failed` naming an unknown or repeated column, a role without its
 *   columns, or every bad row (see the module comment)
 */
export function checkCsvRows(template: TemplateRecord, table: CsvTable, send: boolean, now: Date): CheckedRow[] {
  const columns = csvColumns(template, table.header);
  const errors: FieldError[] = [];
  const inputs: RowInput[] = [];
  table.records.forEach((cells, index) => {
    const row = index + 1;
    const recipients = template.roles.map((role) => ({ roleName: role.name }) as Record<string, string>);
    const prefill: Record<string, string | boolean> = {};
    const metadata: Record<string, string> = {};
    const basic: FieldError[] = [];
    columns.forEach((column, position) => {
      const cell = cells[position] ?? '';
      // An empty cell means "not given" (docs/api.md#the-csv-file).
      if (cell.trim() === '') return;
      if (column.kind === 'role') recipients[column.roleIndex]![column.key] = cell;
      else if (column.kind === 'field') prefill[column.label] = cellValue(column.fields, cell);
      else metadata[column.key] = cell;
    });
    template.roles.forEach((role, roleIndex) => {
      for (const key of ['email', 'name'] as const) {
        if (recipients[roleIndex]![key] === undefined) basic.push(rowError(row, { field: `${role.name}.${key}`, column: columnName(columns, roleIndex, key) }, `is empty: every row needs the ${key === 'email' ? 'e-mail address' : 'name'} of role "${role.name}"`));
      }
    });
    if (basic.length > 0) {
      errors.push(...basic);
      return;
    }
    const input = { recipients, ...(Object.keys(prefill).length > 0 ? { prefill } : {}), ...(Object.keys(metadata).length > 0 ? { metadata } : {}) };
    const parsed = parsedRow(row, input, errors);
    if (parsed === null) return;
    inputs.push({
      row,
      input: parsed,
      name: (place) => {
        const column =
          'recipient' in place
            ? columnName(columns, place.recipient, place.key)
            : 'prefill' in place
              ? (columns.find((candidate) => candidate.kind === 'field' && candidate.label === place.prefill)?.name ?? `field.${place.prefill}`)
              : undefined;
        return column === undefined ? { field: 'other' in place ? place.other : '' } : { field: column, column };
      },
    });
  });
  return checkRows(template, inputs, errors, send, now);
}

type Column =
  | { kind: 'role'; name: string; roleIndex: number; key: RoleColumn }
  | { kind: 'field'; name: string; label: string; fields: TemplateField[] }
  | { kind: 'metadata'; name: string; key: string };

/** The header's columns, each known. @throws AppError 400 `validation-failed` naming each bad column */
function csvColumns(template: TemplateRecord, header: string[]): Column[] {
  const errors: FieldError[] = [];
  const seen = new Map<string, number>();
  const columns = header.map((raw, position): Column | null => {
    const name = raw.trim();
    const column = (message: string): null => {
      errors.push({ path: `header.${position}`, field: name, column: name, message });
      return null;
    };
    const key = name.toLowerCase();
    if (seen.has(key)) return column(`repeats column ${seen.get(key)! + 1}`);
    seen.set(key, position);
    if (key.startsWith('field.')) {
      const label = name.slice('field.'.length).trim();
      const fields = template.fields.filter((field) => field.label !== null && field.label.trim().toLowerCase() === label.toLowerCase());
      if (fields.length === 0) return column(`names no field of the template: "${label}" is no field's label`);
      return { kind: 'field', name, label: fields[0]!.label!.trim(), fields };
    }
    if (key.startsWith('metadata.')) {
      const metadataKey = name.slice('metadata.'.length);
      if (metadataKey === '') return column('names no metadata key');
      return { kind: 'metadata', name, key: metadataKey };
    }
    const dot = name.lastIndexOf('.');
    const roleName = dot < 0 ? '' : name.slice(0, dot).trim().toLowerCase();
    const attribute = dot < 0 ? '' : name.slice(dot + 1).trim().toLowerCase();
    const roleIndex = template.roles.findIndex((role) => role.name.toLowerCase() === roleName);
    if (roleIndex < 0 || !(ROLE_COLUMNS as readonly string[]).includes(attribute)) {
      return column(`is not a known column: <role>.email, <role>.name, <role>.locale, <role>.phone (roles: ${template.roles.map((role) => role.name).join(', ')}), field.<label> or metadata.<key>`);
    }
    return { kind: 'role', name, roleIndex, key: attribute as RoleColumn };
  });
  template.roles.forEach((role, roleIndex) => {
    for (const key of ['email', 'name'] as const) {
      if (!columns.some((column) => column?.kind === 'role' && column.roleIndex === roleIndex && column.key === key)) {
        errors.push({ path: 'header', field: `${role.name}.${key}`, column: `${role.name}.${key}`, message: `is missing: role "${role.name}" needs the columns ${role.name}.email and ${role.name}.name` });
      }
    }
  });
  if (errors.length > 0) {
    throw problem('validationFailed', { detail: `The CSV header is invalid: ${errors[0]!.column} ${errors[0]!.message}.`, errors });
  }
  return columns as Column[];
}

/** The header's name of a role's column (as written), or `<role>.<key>` when absent. */
function columnName(columns: readonly Column[], roleIndex: number, key: string): string {
  return columns.find((column) => column.kind === 'role' && column.roleIndex === roleIndex && column.key === key)?.name ?? `role ${roleIndex + 1}.${key}`;
}

/** A CSV cell as a prefilled value: `true`/`false` for check boxes, text for every other type. */
function cellValue(fields: readonly TemplateField[], cell: string): string | boolean {
  if (fields.every((field) => field.type === 'checkbox')) {
    const text = cell.trim().toLowerCase();
    if (text === 'true') return true;
    if (text === 'false') return false;
  }
  return cell;
}

/** Each row as the use it amounts to, checked by the use's code; every complaint named by row. */
function checkRows(template: TemplateRecord, inputs: readonly RowInput[], errors: FieldError[], send: boolean, now: Date): CheckedRow[] {
  const checked: CheckedRow[] = [];
  for (const { row, input, name } of inputs) {
    const values: UseTemplateRequest['values'] = [];
    const labelOfValue: string[] = [];
    const unknown: FieldError[] = [];
    for (const [label, value] of Object.entries(input.prefill ?? {})) {
      const fields = template.fields.filter((field) => field.label !== null && field.label.trim().toLowerCase() === label.trim().toLowerCase());
      if (fields.length === 0) unknown.push(rowError(row, name({ prefill: label }), 'names no field of the template (prefill keys are the fields\' labels)'));
      for (const field of fields) {
        values.push({ fieldId: field.id, value });
        labelOfValue.push(label);
      }
    }
    if (unknown.length > 0) {
      errors.push(...unknown);
      continue;
    }
    const request: UseTemplateRequest = {
      recipients: input.recipients.map((recipient) => ({ ...recipient })) as UseTemplateRequest['recipients'],
      ...(values.length > 0 ? { values } : {}),
      send,
    };
    try {
      // No envelope exists yet: the template's id stands for its id (which document a field is on is not checked here).
      const update = envelopeUpdateFor(template, request, now, template.id);
      const signers = update.signers ?? [];
      const acting = signers.filter((signer) => mustAct(signer));
      const first = Math.min(...acting.map((signer) => signer.routingOrder ?? 1));
      const invited = send ? acting.filter((signer) => template.signingOrder === 'parallel' || (signer.routingOrder ?? 1) === first) : [];
      const channels = (signer: (typeof signers)[number]): string[] => (signer.delivery === undefined ? ['email'] : [signer.delivery].flat());
      checked.push({
        row,
        request,
        metadata: input.metadata ?? null,
        emails: invited.filter((signer) => channels(signer).includes('email')).length,
        texts: invited.filter((signer) => channels(signer).includes('sms')).length,
      });
    } catch (error) {
      if (!isAppError(error, 'bad_request') || error.errors === undefined) throw error;
      for (const { path, message } of error.errors) errors.push(rowError(row, name(placeOf(path, labelOfValue)), message));
    }
  }
  if (errors.length > 0) {
    // In row order (a row refused by its shape was noted before the rows checked against the template).
    errors.sort((a, b) => (a.row ?? 0) - (b.row ?? 0));
    const rows = new Set(errors.map((error) => error.row)).size;
    const first = errors[0]!;
    throw problem('validationFailed', {
      detail: `${rows} row${rows === 1 ? ' is' : 's are'} invalid; nothing was created. The first: row ${first.row}, ${first.field} ${first.message}.`,
      errors: errors.slice(0, MAX_REPORTED_ERRORS),
    });
  }
  return checked;
}

/** The place in the row a complaint of the use names (`recipients.1.email`, `values.0.value`). */
function placeOf(path: string, labelOfValue: readonly string[]): Place {
  const recipient = /^recipients\.(\d+)\.(.+)$/.exec(path);
  if (recipient !== null) return { recipient: Number(recipient[1]), key: recipient[2]! };
  const value = /^values\.(\d+)\./.exec(path);
  const label = value === null ? undefined : labelOfValue[Number(value[1])];
  if (label !== undefined) return { prefill: label };
  return { other: path };
}

/** A row's shape checked by `bulkRowInput`; `null`, with each complaint added to `errors`, when refused. */
function parsedRow(row: number, value: unknown, errors: FieldError[]): BulkRowInput | null {
  try {
    return parseWith(bulkRowInput, value, `row ${row}`);
  } catch (error) {
    if (!isAppError(error, 'bad_request') || error.errors === undefined) throw error;
    for (const { path, message } of error.errors) errors.push(rowError(row, { field: path }, message));
    return null;
  }
}

function rowError(row: number, named: { field: string; column?: string }, message: string): FieldError {
  return { path: `rows.${row}.${named.field}`, row, ...named, message };
}

/**
 * PDFs as other producers make them, for tests/pdf/producers.test.ts: the committed LibreOffice
 * fixtures (tests/fixtures/producers, made by its make-libreoffice-fixtures.sh), and files made at
 * test time with independent tools: a form filled by MuPDF (`mutool run`), a form whose values are
 * only in /V with the appearances removed and `/NeedAppearances true` (rewritten with qpdf's JSON),
 * and owner-password-only encryptions by qpdf.
 */
import { execFile } from 'node:child_process';
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/** The committed fixtures and the scripts that made them. */
export const producersDir = path.resolve(process.cwd(), 'tests/fixtures/producers');

/**
 * Fills the corpus's form_to_flatten.pdf with MuPDF (`mutool run mutool-fill-form.js`): Text1
 * "Filled by MuPDF", the date "11/22/2026", Check Box3 ticked, Dropdown7 "Infinity", Group3 on its
 * second button. MuPDF writes the changed appearances itself.
 */
export async function fillWithMutool(source: string, target: string): Promise<void> {
  await execFileAsync('mutool', ['run', path.join(producersDir, 'mutool-fill-form.js'), source, target]);
}

/** The owner-password-only encryptions qpdf writes: no user password, the owner's forbids every change. */
export const ownerRestrictions = {
  'AES-256 (R6)': ['256'],
  'AES-128 (R4)': ['128', '--use-aes=y'],
  'RC4-128 (R3)': ['128', '--use-aes=n'],
  'RC4-40 (R2)': ['40'],
} as const;

/**
 * Encrypts `source` with an owner password only (`qpdf --encrypt "" owner <bits> --modify=none`,
 * copying also denied for 128 and 256 bits). qpdf's warnings about the source (exit code 3) are accepted.
 */
export async function restrictWithQpdf(source: string, target: string, variant: keyof typeof ownerRestrictions): Promise<void> {
  const [bits, ...options] = ownerRestrictions[variant];
  const permissions = bits === '40' ? ['--modify=n', '--extract=n'] : ['--modify=none', '--extract=n'];
  try {
    await execFileAsync('qpdf', ['--allow-weak-crypto', '--encrypt', '', 'owner-secret', bits, ...options, ...permissions, '--', source, target]);
  } catch (error) {
    if ((error as { code?: unknown }).code !== 3) throw error;
  }
}

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
type JsonDict = { [key: string]: Json };

const isDict = (value: Json | undefined): value is JsonDict => value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * What {@link withNeedAppearances} sets: text and choice values by field name, check boxes and
 * radio groups by the state name their /V gets.
 */
export interface GeneratedValues {
  text: Record<string, string>;
  /** Check boxes: /V becomes the state, and the widget's state appearances are renamed to lower case (a /V of /Yes, states /yes and /Off). */
  checkbox: Record<string, string>;
  /** Check boxes: /V becomes the state, and the widgets lose /AP and /AS altogether. */
  bareCheckbox?: Record<string, string>;
  radio: Record<string, string>;
}

/**
 * Rewrites a form as a producer that leaves appearances to the viewer would: each field of
 * `values.text` gets the value in /V and loses its widgets' /AP; each check box of
 * `values.checkbox` gets /V /<state> while its appearance states are renamed to lower case and
 * /AS stays /Off; each check box of `values.bareCheckbox` gets /V and loses its widgets' /AP and
 * /AS; each radio group of `values.radio` gets /V /<state> with its buttons' /AS left
 * as they are; the AcroForm gets `/NeedAppearances true`. Done with qpdf's JSON (`--json-output`,
 * `--json-input`), independent of the library under test.
 */
export async function withNeedAppearances(source: string, target: string, values: GeneratedValues): Promise<void> {
  const { stdout } = await execFileAsync('qpdf', ['--json-output', source, '-'], { maxBuffer: 256 * 1024 * 1024, encoding: 'utf8' });
  const json = JSON.parse(stdout) as { qpdf: [JsonDict, Record<string, { value?: Json }>] };
  const objects = json.qpdf[1];
  const changed = new Map<string, JsonDict>();
  const dictOf = (key: string): JsonDict => {
    const value = changed.get(key) ?? objects[key]?.value;
    if (!isDict(value)) throw new Error(`${key} is not a dictionary.`);
    changed.set(key, value);
    return value;
  };
  const keyOf = (ref: Json | undefined): string => {
    if (typeof ref !== 'string' || !/ \d+ R$/.test(ref)) throw new Error(`Expected an indirect reference, got ${JSON.stringify(ref)}.`);
    return `obj:${ref}`;
  };
  const fieldKey = (name: string): string => {
    const key = Object.keys(objects).find((candidate) => {
      const value = objects[candidate]?.value;
      return isDict(value) && value['/T'] === `u:${name}`;
    });
    if (key === undefined) throw new Error(`No field ${name} in ${source}.`);
    return key;
  };
  const widgetsOf = (key: string): string[] => {
    const field = dictOf(key);
    return Array.isArray(field['/Kids']) ? field['/Kids'].map(keyOf) : [key];
  };

  for (const [name, value] of Object.entries(values.text)) {
    const key = fieldKey(name);
    dictOf(key)['/V'] = `u:${value}`;
    for (const widget of widgetsOf(key)) delete dictOf(widget)['/AP'];
  }
  for (const [name, state] of Object.entries(values.checkbox)) {
    const key = fieldKey(name);
    dictOf(key)['/V'] = `/${state}`;
    for (const widget of widgetsOf(key)) {
      const dict = dictOf(widget);
      const appearances = dict['/AP'];
      if (!isDict(appearances)) throw new Error(`Check box ${name} has no appearances.`);
      for (const kind of ['/N', '/D']) {
        const states = appearances[kind];
        if (!isDict(states)) continue;
        appearances[kind] = Object.fromEntries(Object.entries(states).map(([stateName, stream]) => [stateName === '/Off' ? stateName : stateName.toLowerCase(), stream]));
      }
      dict['/AS'] = '/Off';
    }
  }
  for (const [name, state] of Object.entries(values.bareCheckbox ?? {})) {
    const key = fieldKey(name);
    dictOf(key)['/V'] = `/${state}`;
    for (const widget of widgetsOf(key)) {
      delete dictOf(widget)['/AP'];
      delete dictOf(widget)['/AS'];
    }
  }
  for (const [name, state] of Object.entries(values.radio)) dictOf(fieldKey(name))['/V'] = `/${state}`;

  const trailer = objects.trailer?.value;
  const catalog = dictOf(keyOf(isDict(trailer) ? trailer['/Root'] : undefined));
  const acroForm = catalog['/AcroForm'];
  (isDict(acroForm) ? acroForm : dictOf(keyOf(acroForm)))['/NeedAppearances'] = true;

  for (const [key, value] of changed) objects[key] = { ...objects[key], value };
  // The whole document from JSON (--json-input): --update-from-json skips objects of a source's
  // incremental update sections (qpdf 11.3).
  const edited = `${target}.json`;
  await writeFile(edited, JSON.stringify(json));
  try {
    await execFileAsync('qpdf', ['--json-input', edited, target]);
  } catch (error) {
    if ((error as { code?: unknown }).code !== 3) throw error;
  } finally {
    await rm(edited, { force: true });
  }
}

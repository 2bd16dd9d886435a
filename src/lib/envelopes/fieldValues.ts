/**
 * The value each field of a signed recipient carries, exactly as the seal draws it (docs/api.md#what-completion-does step
 * 2, §11.2): what the signer sent, and for `date_signed`, `name` and `email` what the service fills in
 * (the UTC date of the signer's action, its name, its e-mail address), never an owner's value, even
 * one stored before such values were refused; the owner's prefilled value
 * when the signer sent none (a default), and a read-only prefilled value always, even before its
 * recipient signs. Empty optional text carries nothing. The seal draws these (`complete.ts`), and the signing page shows later recipients the
 * values given before them (`recipients/recipientView.ts`), so that what a signer sees is what gets sealed.
 */
import { SERVICE_FILLED_TYPES } from './fieldRules.js';
import type { EnvelopeRecord, Field, FieldValue, RecipientAction, Signer } from './model.js';

/** One field with the value its recipient gave (or the service filled in). */
export interface GivenValue {
  field: Field;
  signer: Signer;
  value: FieldValue['value'];
}

/**
 * The given values of every field whose recipient signed, in the order of `record.fields`.
 * @param actions the recorded actions by recipient id
 */
export function givenValues(record: Pick<EnvelopeRecord, 'fields' | 'signers'>, actions: Map<string, RecipientAction>): GivenValue[] {
  const given: GivenValue[] = [];
  for (const field of record.fields) {
    const signer = record.signers.find((candidate) => candidate.id === field.recipientId);
    if (signer === undefined) continue;
    // A read-only value is the owner's: drawn whether or not its recipient signed.
    if (field.readOnly === true && field.value !== undefined && !SERVICE_FILLED_TYPES.has(field.type)) {
      if (field.value !== '') given.push({ field, signer, value: field.value });
      continue;
    }
    const action = actions.get(field.recipientId);
    if (action === undefined || action.status !== 'signed') continue;
    let value: FieldValue['value'] | undefined;
    if (field.type === 'date_signed') value = action.at.slice(0, 10);
    else if (field.type === 'name') value = signer.name;
    else if (field.type === 'email') value = signer.email;
    else value = action.values.find((entry) => entry.fieldId === field.id)?.value ?? field.value;
    if (value === undefined || value === '') continue;
    given.push({ field, signer, value });
  }
  return given;
}

/**
 * Identifiers (docs/api.md#conventions): UUIDs; envelope ids (and every other id we mint) UUID version 7, which is
 * time-ordered (RFC 9562 §5.7).
 */
import { v7, validate } from 'uuid';

/** A new UUID version 7, monotonic within this process. */
export function uuidv7(): string {
  return v7();
}

/** Whether `value` is a UUID in canonical text form (any version). */
export function isUuid(value: string): boolean {
  return validate(value) && value === value.toLowerCase();
}

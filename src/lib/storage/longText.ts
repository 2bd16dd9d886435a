/**
 * Text longer than one Table Storage string property may hold (64 KiB, 32K UTF-16 code units), split
 * across numbered properties of the same entity (an entity holds up to 1 MiB).
 */

/** Longest part, UTF-16 code units: below the 32K limit with room to spare. */
export const CHUNK_CHARS = 30_000;

/**
 * Stores `text` as property `name`, or, when longer than one string property may be
 * ({@link CHUNK_CHARS}), as `name0`, `name1`, ... with their count in `nameParts`. Parts end on whole
 * code points, never between the two halves of a surrogate pair.
 */
export function writeLongText(entity: Record<string, unknown>, name: string, text: string): void {
  if (text.length <= CHUNK_CHARS) {
    entity[name] = text;
    return;
  }
  let parts = 0;
  for (let start = 0; start < text.length; parts++) {
    let end = Math.min(start + CHUNK_CHARS, text.length);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--;
    entity[`${name}${parts}`] = text.slice(start, end);
    start = end;
  }
  entity[`${name}Parts`] = parts;
}

/** Reads what {@link writeLongText} stored. */
export function readLongText(entity: Record<string, unknown>, name: string): string {
  const parts = entity[`${name}Parts`];
  if (parts === undefined) return String(entity[name]);
  let text = '';
  for (let index = 0; index < Number(parts); index++) text += String(entity[`${name}${index}`] ?? '');
  return text;
}

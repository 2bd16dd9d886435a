/**
 * The CSV file of a bulk send (docs/api.md#the-csv-file): RFC 4180 text, UTF-8 (a byte order mark is
 * passed over), fields in double quotes may hold commas, quotes (doubled) and line breaks; the first
 * record is the header. Parsed by `csv-parse`; records whose cells are all empty (a trailing line
 * break, a blank line) are passed over, and every other record must have as many cells as the header.
 *
 * A cell is text: one that starts with `=` (`=HYPERLINK(...)`) is accepted in a name as any other
 * text, and the service writes no CSV, so it never hands such a cell to a spreadsheet
 * (docs/api.md#the-csv-file).
 */
import { CsvError, parse } from 'csv-parse/sync';
import { problem } from '../problems.js';

/** The header and the data records of a CSV text, every cell as written (not trimmed). */
export interface CsvTable {
  header: string[];
  records: string[][];
}

/**
 * Parses a bulk send's CSV (see the module comment).
 * @throws AppError 400 `validation-failed` naming the line of malformed CSV (an unclosed quote, a
 *   record with another number of cells than the header) or a file without a header
 */
export function parseCsv(text: string): CsvTable {
  let table: string[][];
  try {
    // Line breaks CRLF, LF or CR, mixed (csv-parse would otherwise take the first one it meets for all).
    table = parse(text, { bom: true, record_delimiter: ['\r\n', '\n', '\r'], skip_empty_lines: true, skip_records_with_empty_values: true, relax_column_count: false }) as string[][];
  } catch (error) {
    if (error instanceof CsvError) {
      // Its message names the line (`Invalid Record Length: expect 2, got 1 on line 6`).
      throw problem('validationFailed', {
        detail: `The CSV is malformed: ${error.message}`,
        errors: [{ path: '(csv)', message: error.message }],
      });
    }
    throw error;
  }
  const [header, ...records] = table;
  if (header === undefined) throw problem('validationFailed', { detail: 'The CSV is empty: its first line must be the header (docs/api.md#the-csv-file).', errors: [{ path: '(csv)', message: 'has no header' }] });
  return { header, records };
}

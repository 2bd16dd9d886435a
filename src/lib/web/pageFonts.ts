/**
 * The fonts of the signing page for the scripts a system may lack (Arabic, Hebrew, Devanagari, Thai,
 * Chinese and Japanese, Korean), cut from the Noto fonts the seal draws with (`assets/fonts/`) so the
 * page stays light:
 *
 * - `font-<script>.ttf`: the page's text in that script. For alphabets and abugidas, the whole
 *   Unicode blocks of the script (with their joining forms and conjuncts); for Han, kana and Hangul,
 *   the characters of the page's catalogues and of the service's disclosures in that script (a name,
 *   document title or organisation's own disclosure with other characters falls back to the
 *   reader's system fonts).
 * - `names-<script>.ttf`: the few glyphs of the language switch's own names of the languages
 *   (`languageName` of each catalogue), so that listing every language costs a few kilobytes.
 *
 * `fonts.css` declares them with `unicode-range` (CSS Fonts 4 §4.5): a browser downloads a file only
 * when the page shows a character of its range, so an English page loads none of the text fonts.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { SUPPORTED_LOCALES } from '../i18n/locales.js';
import type { FontId } from '../pdf/fonts.js';

interface ScriptFont {
  /** The font it is cut from. */
  font: FontId;
  /** Its code point ranges, inclusive. */
  ranges: readonly (readonly [number, number])[];
  /** Whether the text font keeps every character of the ranges (else only the catalogues' own). */
  wholeRanges: boolean;
  /** Whether the script needs the font's shaping tables (joining, conjuncts, marks); Han, kana and precomposed Hangul do not. */
  shaping: boolean;
}

/** The scripts the page brings fonts for, by the name their files carry. */
export const SCRIPT_FONTS = {
  arabic: { font: 'arabic', ranges: [[0x0600, 0x06ff], [0x0750, 0x077f], [0x08a0, 0x08ff], [0xfb50, 0xfdff], [0xfe70, 0xfeff]], wholeRanges: true, shaping: true },
  hebrew: { font: 'hebrew', ranges: [[0x0590, 0x05ff], [0xfb1d, 0xfb4f]], wholeRanges: true, shaping: true },
  devanagari: { font: 'sans', ranges: [[0x0900, 0x097f], [0x1cd0, 0x1cff], [0xa8e0, 0xa8ff]], wholeRanges: true, shaping: true },
  thai: { font: 'thai', ranges: [[0x0e00, 0x0e7f]], wholeRanges: true, shaping: true },
  cjk: { font: 'cjk', ranges: [[0x3000, 0x30ff], [0x3400, 0x4dbf], [0x4e00, 0x9fff], [0xff00, 0xffef]], wholeRanges: false, shaping: false },
  hangul: { font: 'korean', ranges: [[0x1100, 0x11ff], [0x3130, 0x318f], [0xac00, 0xd7af]], wholeRanges: false, shaping: false },
} as const satisfies Record<string, ScriptFont>;
export type PageScript = keyof typeof SCRIPT_FONTS;

/** Characters shaping needs with any script: zero-width (non-)joiner, the dotted circle of a lone mark. */
const SHAPING_EXTRAS = [0x200c, 0x200d, 0x25cc];

const inRanges = (script: PageScript, codePoint: number): boolean => SCRIPT_FONTS[script].ranges.some(([low, high]) => codePoint >= low && codePoint <= high);

/**
 * The code points of the `sign` catalogues of every locale (`<localesDir>/<locale>/sign.json`),
 * messages or names only; the messages with the service's disclosure (`disclosure.json`), which the
 * page shows above its consent box.
 */
function catalogueCodePoints(localesDir: string, which: 'messages' | 'names'): Set<number> {
  const codePoints = new Set<number>();
  const read = (locale: string, namespace: string): Record<string, string> => JSON.parse(readFileSync(path.join(localesDir, locale, `${namespace}.json`), 'utf8')) as Record<string, string>;
  for (const locale of SUPPORTED_LOCALES) {
    const catalogue = read(locale, 'sign');
    const text = which === 'names' ? catalogue.languageName ?? '' : [...Object.values(catalogue), ...Object.values(read(locale, 'disclosure'))].join('');
    for (const char of text) codePoints.add(char.codePointAt(0)!);
  }
  return codePoints;
}

/**
 * The bytes of `names-<script>.ttf` or `font-<script>.ttf`.
 * @param localesDir the folder of the message catalogues
 */
export async function scriptFont(script: PageScript, kind: 'font' | 'names', localesDir: string): Promise<Buffer> {
  // The subsetter (and the PDF modules around it) loads only when a font is first asked for.
  const { subsetFontForWeb } = await import('../pdf/fontEmbedding.js');
  const spec = SCRIPT_FONTS[script];
  const codePoints: number[] = [...SHAPING_EXTRAS];
  if (kind === 'font' && spec.wholeRanges) {
    for (const [low, high] of spec.ranges) for (let codePoint = low; codePoint <= high; codePoint++) codePoints.push(codePoint);
  } else {
    for (const codePoint of catalogueCodePoints(localesDir, kind === 'names' ? 'names' : 'messages')) if (inRanges(script, codePoint)) codePoints.push(codePoint);
  }
  return Buffer.from(subsetFontForWeb(spec.font, codePoints, spec.shaping));
}

const hex = (value: number): string => value.toString(16).toUpperCase();

/**
 * `fonts.css`: the families `Sign Text` (the page's text) and `Sign Names` (the language switch),
 * one `@font-face` per script and family, each with its script's `unicode-range`; the files' URLs
 * are relative to the style sheet's own.
 */
export function fontFaces(): string {
  const rules: string[] = [];
  for (const [script, spec] of Object.entries(SCRIPT_FONTS)) {
    const range = spec.ranges.map(([low, high]) => `U+${hex(low)}-${hex(high)}`).join(', ');
    rules.push(`@font-face { font-family: "Sign Text"; src: url("font-${script}.ttf") format("truetype"); font-display: swap; unicode-range: ${range}; }`);
    rules.push(`@font-face { font-family: "Sign Names"; src: url("names-${script}.ttf") format("truetype"); font-display: swap; unicode-range: ${range}; }`);
  }
  return `/* The signing page's fonts for scripts a system may lack: see src/lib/web/pageFonts.ts. */\n${rules.join('\n')}\n`;
}

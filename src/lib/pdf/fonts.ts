/**
 * The fonts the service draws text with (certificate of completion, field values), vendored as
 * TrueType (glyf) files in `assets/fonts/` with their SIL Open Font Licences (see the README there:
 * an Azure Functions host has no system fonts). Only the glyphs a document uses are embedded
 * (`fontEmbedding.ts`); each file is read at most once per thread, when a text first needs it.
 *
 * Which font draws which characters (docs/api.md#evidence: every script a name may be written in):
 *
 * | font | scripts |
 * | --- | --- |
 * | Noto Sans (regular, bold) | Latin, Greek, Cyrillic, Devanagari, and common punctuation and digits |
 * | Noto Naskh Arabic | Arabic (joining, lam-alef and other ligatures, marks) |
 * | Noto Sans Hebrew | Hebrew |
 * | Noto Sans Bengali, Tamil, Telugu, Kannada, Malayalam, Gujarati, Gurmukhi, Oriya, Sinhala | those Indic scripts |
 * | Noto Sans Thai, Lao, Khmer, Myanmar | those scripts of South-East Asia |
 * | Noto Sans Armenian, Georgian, Ethiopic, Thaana | those scripts |
 * | Noto Sans SC | Chinese (Han), Japanese kana, Bopomofo |
 * | Noto Sans KR | Korean (Hangul) |
 * | Noto Emoji | emoji (monochrome outlines) |
 * | Caveat | typed signatures and initials (Latin, Cyrillic); other scripts fall back to the fonts above |
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The fonts the service can draw with. */
export type FontId =
  | 'sans'
  | 'sansBold'
  | 'arabic'
  | 'hebrew'
  | 'bengali'
  | 'tamil'
  | 'telugu'
  | 'kannada'
  | 'malayalam'
  | 'gujarati'
  | 'gurmukhi'
  | 'oriya'
  | 'sinhala'
  | 'thai'
  | 'lao'
  | 'khmer'
  | 'myanmar'
  | 'armenian'
  | 'georgian'
  | 'ethiopic'
  | 'thaana'
  | 'cjk'
  | 'korean'
  | 'emoji'
  | 'handwriting';

/** File names under `assets/fonts/`. */
export const FONT_FILES: Readonly<Record<FontId, string>> = {
  sans: 'NotoSans-Regular.ttf',
  sansBold: 'NotoSans-Bold.ttf',
  arabic: 'NotoNaskhArabic-Regular.ttf',
  hebrew: 'NotoSansHebrew-Regular.ttf',
  bengali: 'NotoSansBengali-Regular.ttf',
  tamil: 'NotoSansTamil-Regular.ttf',
  telugu: 'NotoSansTelugu-Regular.ttf',
  kannada: 'NotoSansKannada-Regular.ttf',
  malayalam: 'NotoSansMalayalam-Regular.ttf',
  gujarati: 'NotoSansGujarati-Regular.ttf',
  gurmukhi: 'NotoSansGurmukhi-Regular.ttf',
  oriya: 'NotoSansOriya-Regular.ttf',
  sinhala: 'NotoSansSinhala-Regular.ttf',
  thai: 'NotoSansThai-Regular.ttf',
  lao: 'NotoSansLao-Regular.ttf',
  khmer: 'NotoSansKhmer-Regular.ttf',
  myanmar: 'NotoSansMyanmar-Regular.ttf',
  armenian: 'NotoSansArmenian-Regular.ttf',
  georgian: 'NotoSansGeorgian-Regular.ttf',
  ethiopic: 'NotoSansEthiopic-Regular.ttf',
  thaana: 'NotoSansThaana-Regular.ttf',
  cjk: 'NotoSansSC-Regular.ttf',
  korean: 'NotoSansKR-Regular.ttf',
  emoji: 'NotoEmoji-Regular.ttf',
  handwriting: 'Caveat-Regular.ttf',
};

/**
 * Unicode scripts (as `\p{Script=...}` names) and the font that draws them. A script not listed
 * here is drawn by the first font of {@link FALLBACK_ORDER} that has its characters.
 */
export const SCRIPT_FONTS: Readonly<Record<string, FontId>> = {
  Latin: 'sans',
  Greek: 'sans',
  Cyrillic: 'sans',
  Devanagari: 'sans',
  Arabic: 'arabic',
  Hebrew: 'hebrew',
  Bengali: 'bengali',
  Tamil: 'tamil',
  Telugu: 'telugu',
  Kannada: 'kannada',
  Malayalam: 'malayalam',
  Gujarati: 'gujarati',
  Gurmukhi: 'gurmukhi',
  Oriya: 'oriya',
  Sinhala: 'sinhala',
  Thai: 'thai',
  Lao: 'lao',
  Khmer: 'khmer',
  Myanmar: 'myanmar',
  Armenian: 'armenian',
  Georgian: 'georgian',
  Ethiopic: 'ethiopic',
  Thaana: 'thaana',
  Han: 'cjk',
  Hiragana: 'cjk',
  Katakana: 'cjk',
  Bopomofo: 'cjk',
  Hangul: 'korean',
};

/**
 * The order in which fonts are tried for a character whose script has no font of its own
 * (symbols, unusual punctuation): small fonts first, the large CJK fonts last, so that they are
 * read only when nothing else has the character.
 */
export const FALLBACK_ORDER: readonly FontId[] = [
  'sans',
  'arabic',
  'hebrew',
  'bengali',
  'tamil',
  'telugu',
  'kannada',
  'malayalam',
  'gujarati',
  'gurmukhi',
  'oriya',
  'sinhala',
  'thai',
  'lao',
  'khmer',
  'myanmar',
  'armenian',
  'georgian',
  'ethiopic',
  'thaana',
  'emoji',
  'cjk',
  'korean',
];

/**
 * Scripts a primary font other than Noto Sans draws itself (where it has the glyph); everything
 * else goes to the script's own font. The handwriting font draws Latin and Cyrillic only, so that
 * a Greek or Arabic name is not drawn half in one font and half in another.
 */
export const PRIMARY_SCRIPTS: Readonly<Partial<Record<FontId, readonly string[]>>> = {
  handwriting: ['Latin', 'Cyrillic'],
  sansBold: ['Latin', 'Greek', 'Cyrillic', 'Devanagari'],
};

let fontDirectory: string | undefined;

/**
 * The folder of the vendored fonts: `assets/fonts/` of the package, found from this module's own
 * location (`src/lib/pdf` when run from sources, `dist/src/lib/pdf` when built), so that the
 * service finds them wherever the package is deployed.
 * @throws Error when the folder is missing (a deployment fault)
 */
export function fontsFolder(): string {
  if (fontDirectory !== undefined) return fontDirectory;
  let folder = path.dirname(fileURLToPath(import.meta.url));
  for (let level = 0; level < 8; level++) {
    const candidate = path.join(folder, 'assets', 'fonts');
    if (existsSync(path.join(candidate, FONT_FILES.sans))) {
      fontDirectory = candidate;
      return candidate;
    }
    folder = path.dirname(folder);
  }
  throw new Error('The font folder assets/fonts was not found above the service\'s modules: the deployment is incomplete.');
}

const loaded = new Map<FontId, Uint8Array>();

/**
 * The bytes of one font file, read on first use and kept for the life of the thread (a seal worker
 * reads each file at most once). @throws Error when the file is missing (a deployment fault)
 */
export function fontBytes(id: FontId): Uint8Array {
  let bytes = loaded.get(id);
  if (bytes === undefined) {
    bytes = new Uint8Array(readFileSync(path.join(fontsFolder(), FONT_FILES[id])));
    loaded.set(id, bytes);
  }
  return bytes;
}

/**
 * The fonts of the certificate-of-completion pages, shipped as npm packages (an Azure Functions
 * host has no system fonts) and embedded subsetted, so only the glyphs a certificate uses end up
 * in the sealed PDF.
 *
 * Coverage, tried in this order for every character (a fallback chain per glyph):
 * Noto Sans (Latin, Greek, Cyrillic), Noto Naskh Arabic, Noto Sans Hebrew, Noto Sans SC (Chinese,
 * Japanese kana). All are TrueType (glyf) fonts, which @libpdf/core can subset; the CJK font is read
 * from disk only when a certificate contains a character no other font has.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/** The fonts the certificate can use. */
export type FontId = 'latin' | 'latinBold' | 'arabic' | 'hebrew' | 'cjk';

/** Fallback order for a character that the face's own font lacks. */
export const FALLBACK_CHAIN: readonly FontId[] = ['arabic', 'hebrew', 'cjk'];

const require = createRequire(import.meta.url);

/**
 * The @embedpdf font packages export only their JavaScript entry (no subpath for the font files),
 * so their folder is found from that entry: `<package>/dist/index.cjs` → `<package>/fonts/<file>`.
 */
function embedpdfFont(packageName: string, file: string): () => string {
  return () => path.join(path.dirname(require.resolve(packageName)), '..', 'fonts', file);
}

const fontFiles: Record<FontId, () => string> = {
  latin: embedpdfFont('@embedpdf/fonts-latin', 'NotoSans-Regular.ttf'),
  latinBold: embedpdfFont('@embedpdf/fonts-latin', 'NotoSans-Bold.ttf'),
  arabic: embedpdfFont('@embedpdf/fonts-arabic', 'NotoNaskhArabic-Regular.ttf'),
  hebrew: embedpdfFont('@embedpdf/fonts-hebrew', 'NotoSansHebrew-Regular.ttf'),
  cjk: () => require.resolve('@expo-google-fonts/noto-sans-sc/400Regular/NotoSansSC_400Regular.ttf'),
};

const loaded = new Map<FontId, Uint8Array>();

/**
 * The bytes of one font file, read on first use and kept for the life of the thread (a seal worker
 * reads each file at most once). @throws Error when the font package is not installed (a deployment fault).
 */
export function fontBytes(id: FontId): Uint8Array {
  let bytes = loaded.get(id);
  if (bytes === undefined) {
    bytes = new Uint8Array(readFileSync(fontFiles[id]()));
    loaded.set(id, bytes);
  }
  return bytes;
}

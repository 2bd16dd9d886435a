/**
 * Appearances of multi-line text fields and list boxes whose text is printable Latin-1, made here
 * rather than by @libpdf/core's generator (docs/api.md#what-completion-does step 1, §17.4: a regenerated value keeps every
 * character and sits where viewers place it). The library's generator:
 * - draws a multi-line value in a bare Helvetica without an encoding when the form's font "cannot
 *   show" the value's line breaks, which is every multi-line value: the font then uses the standard
 *   encoding, where "ü", "ß", "é" and most accented letters have no glyph, and they disappear;
 * - starts the first line (and a list box's first row) less than one ascent below the top edge,
 *   where the border clips it, higher than any viewer does.
 *
 * So these fields are drawn in a simple font with WinAnsi encoding (the form's own font from its
 * `/DR`, when it is one, else the standard font it names, with that encoding), each character one
 * byte, laid out as poppler lays out the appearances it generates itself (MuPDF's are within a
 * point of it on the first line): text 2 points in from the left and right edges (plus the border
 * width of `/BS`), the first baseline 3 points plus one font size below the top edge, one font size
 * between baselines; a list box's rows 1.1 font sizes apart, the first baseline 1.1 font sizes below
 * the top, the selected rows on a highlight band (the colour Acrobat uses), from `/TI` on.
 * Fields with a rotation (`/MK /R`) are left to the library.
 */
import { PdfArray, PdfDict, PdfName, PdfNumber, PdfRef, PdfStream, PdfString, Standard14Font } from '@libpdf/core';
import type { ListBoxField, PDF, PDFForm, PdfObject, Standard14FontName, TextField } from '@libpdf/core';

type TerminalField = ReturnType<ReturnType<PDFForm['acroForm']>['getFields']>[number];
type Widget = ReturnType<TerminalField['getWidgets']>[number];
type Resolve = (ref: PdfRef) => PdfObject | null;

/** The highlight of a list box's selected rows: Acrobat's (RGB 153, 193, 218). */
const HIGHLIGHT = '0.6 0.757 0.855 rg';
/** Font size of a multi-line field or list box whose `/DA` says 0 (auto): the largest tried. */
const AUTO_SIZE_MAX = 12;
const AUTO_SIZE_MIN = 4;

const STANDARD_FONTS: readonly string[] = [
  'Courier', 'Courier-Bold', 'Courier-Oblique', 'Courier-BoldOblique', 'Helvetica', 'Helvetica-Bold', 'Helvetica-Oblique',
  'Helvetica-BoldOblique', 'Times-Roman', 'Times-Bold', 'Times-Italic', 'Times-BoldItalic',
];

/** The short names forms give the standard fonts in `/DR` (Acrobat's). */
const FORM_FONT_NAMES: Record<string, string> = { Helv: 'Helvetica', HeBo: 'Helvetica-Bold', TiRo: 'Times-Roman', TiBo: 'Times-Bold', Cour: 'Courier', CoBo: 'Courier-Bold' };

/** A font the appearance draws with: its resource (a reference to the form's, or a new dictionary) and its widths. */
interface WinAnsiFont {
  resource: PdfRef | PdfDict;
  /** Width of `text` at `size`, in points. */
  width: (text: string, size: number) => number;
}

/** What a field's default appearance (`/DA`) asks for. */
interface DefaultAppearance {
  fontName: string;
  /** 0: as large as fits. */
  size: number;
  /** The colour operator and its operands (`0 g`, `1 0 0 rg`, `0 0 0 1 k`), black when none. */
  colour: string;
}

/** Where the text of a multi-line field or a list box goes, in the widget's own space. */
interface Box {
  width: number;
  height: number;
  /** Background and border content, drawn first ('' for none). */
  frame: string;
  /** Border width from `/BS /W` (0 without `/BS`), inset of the text and the clip. */
  border: number;
}

/**
 * Gives every widget of a multi-line text field an appearance showing `value` (see the module comment).
 * @param frame background and border content of a widget (`/MK`), drawn under the text
 * @returns false, changing nothing, when a widget is rotated (the library's generator is used instead)
 */
export function drawMultilineText(pdf: PDF, field: TerminalField, value: string, frame: (widget: Widget) => string): boolean {
  const resolve: Resolve = (ref) => pdf.getObject(ref);
  const widgets = field.getWidgets();
  if (widgets.some(isRotated)) return false;
  const text = field as unknown as TextField;
  const appearance = defaultAppearance(pdf, field, resolve);
  const font = winAnsiFont(pdf, appearance.fontName, resolve);
  const align = Math.min(2, Math.max(0, text.alignment ?? 0));
  for (const widget of widgets) {
    const box = boxOf(widget, frame(widget));
    const inset = box.border + 2;
    const available = Math.max(1, box.width - 2 * inset);
    let size = appearance.size;
    let lines: string[];
    if (size > 0) {
      lines = wrap(value, available, size, font);
    } else {
      // As large as fits: the lines wrapped at each size must fit the height.
      size = AUTO_SIZE_MAX;
      lines = wrap(value, available, size, font);
      while (size > AUTO_SIZE_MIN && 3 + size * lines.length > box.height - box.border) {
        size -= 0.5;
        lines = wrap(value, available, size, font);
      }
    }
    let content = `${box.frame}/Tx BMC\nq\n${clip(box)}BT\n/F0 ${number(size)} Tf\n${appearance.colour}\n`;
    let previousX = 0;
    lines.forEach((line, index) => {
      const lineWidth = font.width(line, size);
      const x = align === 0 ? inset : align === 1 ? (box.width - lineWidth) / 2 : box.width - inset - lineWidth;
      const y = index === 0 ? box.height - 3 - size : -size;
      content += `${number(index === 0 ? x : x - previousX)} ${number(y)} Td\n${literal(line)} Tj\n`;
      previousX = x;
    });
    content += 'ET\nQ\nEMC\n';
    widget.setNormalAppearance(formXObject(box, content, font));
  }
  return true;
}

/**
 * Gives every widget of a list box an appearance showing its options from `/TI` on, the selected
 * ones on a highlight band (see the module comment).
 * @returns false, changing nothing, when a widget is rotated
 */
export function drawListBox(pdf: PDF, field: TerminalField, frame: (widget: Widget) => string): boolean {
  const resolve: Resolve = (ref) => pdf.getObject(ref);
  const widgets = field.getWidgets();
  if (widgets.some(isRotated)) return false;
  const listBox = field as unknown as ListBoxField;
  const options = listBox.getOptions();
  const selected = new Set(listBox.getValue());
  const top = Math.max(0, Math.min(options.length, listBox.getTopIndex()));
  const appearance = defaultAppearance(pdf, field, resolve);
  const font = winAnsiFont(pdf, appearance.fontName, resolve);
  const size = appearance.size > 0 ? appearance.size : AUTO_SIZE_MAX;
  const row = 1.1 * size;
  for (const widget of widgets) {
    const box = boxOf(widget, frame(widget));
    const inset = box.border + 2;
    let bands = '';
    let text = '';
    for (let index = top, line = 1; index < options.length; index++, line++) {
      const baseline = box.height - row * line;
      if (baseline + size < 0) break;
      const option = options[index]!;
      if (selected.has(option.value)) bands += `${number(box.border)} ${number(baseline - 0.22 * size)} ${number(box.width - 2 * box.border)} ${number(row)} re f\n`;
      text += `BT\n/F0 ${number(size)} Tf\n${appearance.colour}\n${number(inset)} ${number(baseline)} Td\n${literal(option.display)} Tj\nET\n`;
    }
    const highlight = bands === '' ? '' : `q ${HIGHLIGHT}\n${bands}Q\n`;
    widget.setNormalAppearance(formXObject(box, `${box.frame}/Tx BMC\nq\n${clip(box)}${highlight}${text}Q\nEMC\n`, font));
  }
  return true;
}

function isRotated(widget: Widget): boolean {
  const rotation = widget.getAppearanceCharacteristics()?.rotation ?? 0;
  return rotation % 360 !== 0;
}

function boxOf(widget: Widget, frame: string): Box {
  return { width: widget.width, height: widget.height, frame, border: widget.dict.has('BS') ? (widget.getBorderStyle()?.width ?? 1) : 0 };
}

function clip(box: Box): string {
  return `${number(box.border)} ${number(box.border)} ${number(box.width - 2 * box.border)} ${number(box.height - 2 * box.border)} re W n\n`;
}

function formXObject(box: Box, content: string, font: WinAnsiFont): PdfStream {
  return PdfStream.fromDict(
    {
      Type: PdfName.of('XObject'),
      Subtype: PdfName.of('Form'),
      BBox: PdfArray.of(PdfNumber.of(0), PdfNumber.of(0), PdfNumber.of(box.width), PdfNumber.of(box.height)),
      Resources: PdfDict.of({ Font: PdfDict.of({ F0: font.resource }) }),
    },
    new Uint8Array(Buffer.from(content, 'latin1')),
  );
}

/** A number as content-stream text: at most 3 decimals, no exponent. */
function number(value: number): string {
  return String(Number(value.toFixed(3)));
}

/** A literal string of WinAnsi bytes (printable Latin-1 is its own code; tabs become spaces), escaped (ISO 32000-1 §7.3.4.2). */
function literal(text: string): string {
  return `(${text.replace(/\t/g, ' ').replace(/[\\()]/g, (character) => `\\${character}`)})`;
}

/** Splits at line breaks, then wraps each paragraph at spaces (a word wider than the line breaks between characters). */
function wrap(value: string, available: number, size: number, font: WinAnsiFont): string[] {
  const lines: string[] = [];
  for (const paragraph of value.split(/\r\n|\r|\n/)) {
    let line = '';
    for (const word of paragraph.split(' ')) {
      const candidate = line === '' ? word : `${line} ${word}`;
      if (font.width(candidate, size) <= available || line === '' && font.width(word, size) <= available) {
        line = candidate;
        continue;
      }
      if (line !== '') lines.push(line);
      line = '';
      let rest = word;
      while (font.width(rest, size) > available && rest.length > 1) {
        let cut = rest.length - 1;
        while (cut > 1 && font.width(rest.slice(0, cut), size) > available) cut--;
        lines.push(rest.slice(0, cut));
        rest = rest.slice(cut);
      }
      line = rest;
    }
    lines.push(line);
  }
  return lines;
}

/** The field's `/DA` (inherited, else the form's): font name, size and colour. */
function defaultAppearance(pdf: PDF, field: TerminalField, resolve: Resolve): DefaultAppearance {
  let current: PdfDict | undefined = field.getDict();
  let da: PdfObject | undefined;
  for (let depth = 0; current !== undefined && da === undefined && depth < 64; depth++) {
    da = current.get('DA', resolve);
    current = current.getDict('Parent', resolve);
  }
  const text = da instanceof PdfString ? da.asString() : (pdf.getForm()?.acroForm().defaultAppearance ?? '');
  const font = /\/([^\s/]+)\s+(\d+(?:\.\d+)?)\s+Tf/.exec(text);
  const colours = [...text.matchAll(/((?:-?\d*\.?\d+\s+){1,4})(g|rg|k)(?=\s|$)/g)];
  const last = colours.at(-1);
  const operands = last?.[1]?.trim().split(/\s+/) ?? [];
  const expected = { g: 1, rg: 3, k: 4 }[(last?.[2] ?? 'g') as 'g' | 'rg' | 'k'];
  return {
    fontName: font?.[1] ?? 'Helv',
    size: Number(font?.[2] ?? 0),
    colour: last !== undefined && operands.length === expected ? `${operands.join(' ')} ${last[2]}` : '0 g',
  };
}

/**
 * The font for `name`: the form's `/DR` font when it is a simple font with WinAnsi encoding (drawn
 * by reference, measured by its `/Widths` or as the standard font it is); else a new dictionary for
 * the standard font it names or maps to (Helvetica when none), with WinAnsi encoding.
 */
function winAnsiFont(pdf: PDF, name: string, resolve: Resolve): WinAnsiFont {
  const acroForm = pdf.getCatalog().getDict('AcroForm', resolve);
  const entry = acroForm?.getDict('DR', resolve)?.getDict('Font', resolve)?.get(name);
  const dict = entry instanceof PdfRef ? resolve(entry) : entry;
  const baseFont = dict instanceof PdfDict ? (dict.getName('BaseFont', resolve)?.value ?? '').replace(/^[A-Z]{6}\+/, '') : '';
  const standardName = (STANDARD_FONTS.includes(baseFont) ? baseFont : (FORM_FONT_NAMES[name] ?? 'Helvetica')) as Standard14FontName;
  const standard = Standard14Font.of(standardName);
  const standardWidth = (text: string, size: number): number => standard.widthOfTextAtSize(text.replace(/\t/g, ' '), size);
  if (dict instanceof PdfDict && entry instanceof PdfRef && isWinAnsiSimpleFont(dict, resolve)) {
    const widths = dict.getArray('Widths', resolve);
    const first = dict.getNumber('FirstChar', resolve)?.value;
    if (widths !== undefined && first !== undefined) {
      const missing = dict.getDict('FontDescriptor', resolve)?.getNumber('MissingWidth', resolve)?.value ?? 0;
      const glyph = (code: number): number => {
        const value = widths.at(code - first, resolve);
        return value instanceof PdfNumber ? value.value : missing;
      };
      return { resource: entry, width: (text, size) => ([...text.replace(/\t/g, ' ')].reduce((sum, character) => sum + glyph(character.codePointAt(0)!), 0) * size) / 1000 };
    }
    if (STANDARD_FONTS.includes(baseFont)) return { resource: entry, width: standardWidth };
  }
  const resource = PdfDict.of({
    Type: PdfName.of('Font'),
    Subtype: PdfName.of('Type1'),
    BaseFont: PdfName.of(standardName),
    Encoding: PdfName.of('WinAnsiEncoding'),
  });
  return { resource, width: standardWidth };
}

/** A Type1 or TrueType font whose encoding is WinAnsi, without differences. */
function isWinAnsiSimpleFont(dict: PdfDict, resolve: Resolve): boolean {
  const subtype = dict.getName('Subtype', resolve)?.value;
  if (subtype !== 'Type1' && subtype !== 'TrueType') return false;
  const encoding = dict.get('Encoding', resolve);
  if (encoding instanceof PdfName) return encoding.value === 'WinAnsiEncoding';
  if (encoding instanceof PdfDict) return encoding.getName('BaseEncoding', resolve)?.value === 'WinAnsiEncoding' && !encoding.has('Differences');
  return false;
}

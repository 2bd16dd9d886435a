/**
 * The certificate-of-completion pages (docs/api.md#what-completion-does step 3 and §10), appended after the document,
 * each of the size and orientation of the document's last page as displayed (its crop box after
 * /Rotate): the envelope (id, document name, owner e-mail, the frozen document's SHA-256 and page
 * count, created, sent and completed times), one block per recipient that is never split across
 * pages (name, e-mail, role, routing order, final status, when they acted, IP address and user
 * agent, how they were identified, and a signer's signature as drawn or typed), then every audit
 * event with its time, type and actor's e-mail (`system` for the sweeper). Times read
 * `2026-11-22 13:37:06 UTC`. Every word comes from the `certificate` (and `common`) catalogue of the
 * envelope's locale, times in the locale's format naming UTC (docs/languages.md); raw event types stay.
 *
 * All of it is real, extractable text, shaped with HarfBuzz in the Noto fonts (`shaping.ts`). Long
 * values wrap (e-mail addresses and ids at `@`, `.` and `-` first); the content flows over as many
 * pages as it needs, each with a footer "Page i of n". Pages much smaller or larger than usual paper
 * are drawn at a proportional scale, so that the layout keeps its proportions.
 *
 * Runs only inside a seal worker (it uses @libpdf/core).
 */
import { PdfArray, PdfNumber, ops } from '@libpdf/core';
import type { PDF, PDFPage } from '@libpdf/core';
import type { Operator } from './pageGeometry.js';
import { inkOperators } from './ink.js';
import { displayedPage } from './pageGeometry.js';
import { TextPainter, layoutParagraph, layoutSingleLine } from './textLayout.js';
import type { Face, Line } from './textLayout.js';
import type { CertificateDocument, CertificateRecipient, CompletionCertificate, SignatureValue } from './types.js';
import { nameAndAddress } from '../nameAndAddress.js';
import { DEFAULT_LOCALE, RIGHT_TO_LEFT_LOCALES, formatTimestamp, translate } from '../i18n/index.js';
import type { Locale, MessageValues } from '../i18n/index.js';

const MARGIN = { left: 50, right: 50, top: 56, bottom: 58 };
const FOOTER_Y = 30;
const LABEL_WIDTH = 112;
const COLUMN_GAP = 8;
/** The shorter side of the logical page (what the layout is designed for) stays within these bounds. */
const SHORT_SIDE = { min: 480, max: 900 };
const SIGNATURE_BOX = { width: 220, height: 56 };

interface Style {
  face: Face;
  size: number;
  /** 0 black … 1 white; absent: black. */
  gray?: number;
}

const styles = {
  title: { face: 'bold', size: 18 },
  intro: { face: 'regular', size: 8.5, gray: 0.3 },
  heading: { face: 'bold', size: 12 },
  label: { face: 'bold', size: 8.5, gray: 0.35 },
  value: { face: 'regular', size: 9 },
  /** A SHA-256 in hex: 8 pt where 64 digits fit the value column, smaller on narrow pages. */
  digest: { face: 'regular', size: 8 },
  recipientName: { face: 'bold', size: 10.5 },
  caption: { face: 'regular', size: 7.5, gray: 0.4 },
  tableHead: { face: 'bold', size: 7.5, gray: 0.35 },
  tableCell: { face: 'regular', size: 7.5 },
  footer: { face: 'regular', size: 7, gray: 0.4 },
  /** An audit event's raw type, in small print under its sentence. */
  rawType: { face: 'regular', size: 6, gray: 0.45 },
} satisfies Record<string, Style>;

const lineHeight = (style: Style): number => style.size * 1.4;

/**
 * A time as the certificate prints it: `2026-11-22 13:37:06 UTC` (docs/api.md#evidence) in English, the
 * locale's numeric date and 24-hour time naming UTC otherwise (docs/languages.md), from an ISO 8601
 * timestamp; a value that is not one is printed as given.
 */
export function formatTime(timestamp: string, locale: string = DEFAULT_LOCALE): string {
  return formatTimestamp(locale, timestamp);
}

/** Something placed in the flow: its height, and how to draw it with its top at `top`. */
interface Row {
  height: number;
  draw(target: PageContent, top: number): void;
  /** The row as one row per line, for a row taller than a whole page (only text rows have it). */
  lines?: () => Row[];
}

/** One page being filled: its operators, in logical units, drawn all at once at the end. */
interface PageContent {
  page: PDFPage;
  operators: Operator[];
}

/** Places rows top to bottom, starting a new page whenever the next row (or block) does not fit. */
class Flow {
  readonly pages: PageContent[] = [];
  private y = 0;
  /** Rows repeated at the top of every new page (a table's header), while set. */
  repeatOnNewPage: Row[] = [];

  constructor(
    private readonly pdf: PDF,
    private readonly size: { width: number; height: number; logicalWidth: number; logicalHeight: number },
  ) {}

  private get contentHeight(): number {
    return this.size.logicalHeight - MARGIN.top - MARGIN.bottom;
  }

  private get current(): PageContent {
    return this.pages.at(-1) ?? this.newPage();
  }

  private newPage(): PageContent {
    const page = this.pdf.addPage({ width: this.size.width, height: this.size.height });
    // Explicit, so that nothing is inherited from the page tree (a /Rotate or /CropBox on the root
    // /Pages node would otherwise turn or cut the certificate).
    page.dict.set('CropBox', new PdfArray([0, 0, this.size.width, this.size.height].map((value) => PdfNumber.of(value))));
    page.dict.set('Rotate', PdfNumber.of(0));
    const content = { page, operators: [] };
    this.pages.push(content);
    this.y = this.size.logicalHeight - MARGIN.top;
    for (const row of this.repeatOnNewPage) this.draw(row);
    return content;
  }

  private remaining(): number {
    return this.pages.length === 0 ? 0 : this.y - MARGIN.bottom;
  }

  private draw(row: Row): void {
    row.draw(this.current, this.y);
    this.y -= row.height;
  }

  /** Vertical space, in points (dropped at the top of a page). */
  space(points: number): void {
    if (this.pages.length > 0 && this.y < this.size.logicalHeight - MARGIN.top) this.y -= points;
  }

  /** Starts a new page unless `points` of vertical space are left on this one. */
  keep(points: number): void {
    if (this.remaining() < points) this.newPage();
  }

  /**
   * Rows that stay together on one page (a recipient's block, docs/api.md#evidence), on a new page when they
   * do not fit on this one. Only a block taller than a whole page (which no realistic recipient
   * makes) is split, row by row.
   */
  block(rows: Row[]): void {
    const total = rows.reduce((sum, row) => sum + row.height, 0);
    if (total <= this.contentHeight) this.keep(total);
    for (const row of rows) this.row(row);
  }

  /** One row, on a new page when it does not fit on this one. */
  row(row: Row): void {
    if (row.height > this.contentHeight && row.lines !== undefined) {
      // Only an absurdly long value (a user agent of kilobytes) makes a row taller than a page: it
      // continues line by line on the next.
      for (const line of row.lines()) this.row(line);
      return;
    }
    if (this.remaining() < row.height) this.newPage();
    this.draw(row);
  }
}

/**
 * A column of a text row: laid-out lines at an x offset from the start margin (the left one, the
 * right one on a right-to-left certificate), `width` points wide.
 */
interface Cell {
  x: number;
  width: number;
  lines: Line[];
  style: Style;
}

/**
 * Draws the certificate onto new pages. Holds the painter (fonts) and the logical page width.
 */
class CertificateWriter {
  readonly flow: Flow;
  private readonly contentWidth: number;
  /** Arabic and Hebrew certificates are laid out right to left (docs/languages.md). */
  readonly rtl: boolean;

  constructor(
    private readonly painter: TextPainter,
    pdf: PDF,
    size: { width: number; height: number; logicalWidth: number; logicalHeight: number },
    /** The certificate's locale (docs/languages.md). */
    readonly locale: string,
  ) {
    this.flow = new Flow(pdf, size);
    this.contentWidth = size.logicalWidth - MARGIN.left - MARGIN.right;
    this.rtl = RIGHT_TO_LEFT_LOCALES.includes(locale as Locale);
  }


  /**
   * Where a cell's line starts on the page: at the cell's start, which for a right-to-left locale is
   * its right edge (the layout is mirrored: columns from the right, lines aligned right).
   */
  lineX(c: Cell, line: Line): number {
    if (!this.rtl) return MARGIN.left + c.x;
    return MARGIN.left + this.contentWidth - c.x - line.width * c.style.size;
  }

  /** A message of the `certificate` catalogue in the certificate's locale. */
  t(key: string, values?: MessageValues): string {
    return translate(this.locale, 'certificate', key, values);
  }

  time(timestamp: string): string {
    return formatTimestamp(this.locale, timestamp);
  }

  cell(text: string, style: Style, x: number, width: number): Cell {
    return { x, width, lines: layoutParagraph(text, { face: style.face, size: style.size, maxWidth: width }), style };
  }

  /** A row of cells side by side, as tall as its tallest cell plus `gap`. */
  textRow(cells: Cell[], gap = 0): Row {
    const lines = Math.max(...cells.map((c) => c.lines.length));
    const step = Math.max(...cells.map((c) => lineHeight(c.style)));
    return {
      height: lines * step + gap,
      draw: (target, top) => {
        for (const c of cells) {
          c.lines.forEach((line, index) => {
            if (line.runs.length === 0) return;
            const baseline = top - index * step - step * 0.76;
            target.operators.push(
              ...this.painter.lineOperators(target.page, line, { x: this.lineX(c, line), y: baseline, size: c.style.size, gray: c.style.gray ?? 0 }),
            );
          });
        }
      },
      lines: () =>
        Array.from({ length: lines }, (_, index) =>
          this.textRow(
            cells.map((c) => ({ ...c, lines: c.lines.slice(index, index + 1) })),
            index === lines - 1 ? gap : 0,
          ),
        ),
    };
  }

  full(text: string, style: Style, gap = 0): Row {
    return this.textRow([this.cell(text, style, 0, this.contentWidth)], gap);
  }

  field(label: string, value: string, valueStyle: Style = styles.value): Row {
    return this.textRow(
      [this.cell(label, styles.label, 0, LABEL_WIDTH - COLUMN_GAP), this.cell(value, valueStyle, LABEL_WIDTH, this.contentWidth - LABEL_WIDTH)],
      2.5,
    );
  }

  /** A field whose value (a hex digest) stays on one line: smaller type on a narrow page. */
  digestField(label: string, value: string): Row {
    const valueWidth = this.contentWidth - LABEL_WIDTH;
    const width = layoutSingleLine(value, styles.digest.face).width;
    const size = width > 0 ? Math.min(styles.digest.size, valueWidth / width) : styles.digest.size;
    return this.field(label, value, { ...styles.digest, size });
  }

  /**
   * Two short fields side by side: the first in the label and value columns, the second from the
   * middle of the value column. Used where both values are short (role and routing order, status
   * and time), so that a recipient's block stays compact.
   */
  fieldPair(first: [string, string], second: [string, string]): Row {
    const valueWidth = this.contentWidth - LABEL_WIDTH;
    const secondX = LABEL_WIDTH + Math.round(valueWidth * 0.4);
    const secondLabelWidth = 84;
    return this.textRow(
      [
        this.cell(first[0], styles.label, 0, LABEL_WIDTH - COLUMN_GAP),
        this.cell(first[1], styles.value, LABEL_WIDTH, secondX - LABEL_WIDTH - COLUMN_GAP),
        this.cell(second[0], styles.label, secondX, secondLabelWidth - COLUMN_GAP),
        this.cell(second[1], styles.value, secondX + secondLabelWidth, this.contentWidth - secondX - secondLabelWidth),
      ],
      2.5,
    );
  }

  rule(): Row {
    return {
      height: 7,
      draw: (target, top) => {
        const y = top - 2.5;
        target.operators.push(
          ops.pushGraphicsState(),
          ops.setStrokingGray(0.75),
          ops.setLineWidth(0.5),
          ops.moveTo(MARGIN.left, y),
          ops.lineTo(MARGIN.left + this.contentWidth, y),
          ops.stroke(),
          ops.popGraphicsState(),
        );
      },
    };
  }

  heading(text: string): void {
    this.flow.space(14);
    const heading = this.full(text, styles.heading, 2);
    const rule = this.rule();
    // A heading never ends a page: it stays with at least a few lines of what follows.
    this.flow.keep(heading.height + rule.height + 3 * lineHeight(styles.value));
    this.flow.row(heading);
    this.flow.row(rule);
  }

  /** The "Signature" row: the signature as drawn (vector strokes) or typed (handwriting font) in a box. */
  signatureRow(signature: SignatureValue): Row {
    const width = Math.min(SIGNATURE_BOX.width, this.contentWidth - LABEL_WIDTH);
    const height = SIGNATURE_BOX.height;
    const label = this.cell(this.t('label.signature'), styles.label, 0, LABEL_WIDTH - COLUMN_GAP);
    const typed = 'typed' in signature ? layoutSingleLine(signature.typed, 'handwriting') : undefined;
    // "Handwriting font" only when the handwriting face drew every glyph: the scripts it lacks (Arabic,
    // Han, ...) fall back to the plain Noto faces, and then the caption says "typed" alone.
    const caption = typed === undefined ? this.t('signature.drawn') : this.t(inHandwriting(typed) ? 'signature.typed' : 'signature.typedPlain');
    const captionCell = this.cell(caption, styles.caption, LABEL_WIDTH, this.contentWidth - LABEL_WIDTH);
    const captionHeight = captionCell.lines.length * lineHeight(styles.caption);
    return {
      height: height + captionHeight + 6,
      draw: (target, top) => {
        this.textRow([label]).draw(target, top);
        const box = { x: this.rtl ? MARGIN.left + this.contentWidth - LABEL_WIDTH - width : MARGIN.left + LABEL_WIDTH, y: top - height, width, height };
        target.operators.push(
          ops.pushGraphicsState(),
          ops.setStrokingGray(0.7),
          ops.setLineWidth(0.5),
          ops.moveTo(box.x, box.y + 0.5),
          ops.lineTo(box.x + box.width, box.y + 0.5),
          ops.stroke(),
          ops.popGraphicsState(),
        );
        if (typed !== undefined) {
          if (typed.width > 0) {
            const size = Math.min(height * 0.6, (width * 0.96) / typed.width);
            target.operators.push(
              ...this.painter.lineOperators(target.page, typed, { x: box.x + 2, y: box.y + height * 0.3, size, gray: 0 }),
            );
          }
        } else if ('strokes' in signature) {
          target.operators.push(
            ops.pushGraphicsState(),
            ops.rectangle(box.x, box.y, box.width, box.height),
            ops.clip(),
            ops.endPath(),
            ...inkOperators(signature.strokes, box, Math.max(0.6, height * 0.03)),
            ops.popGraphicsState(),
          );
        }
        this.textRow([captionCell]).draw(target, top - height - 3);
      },
    };
  }

  recipientBlock(recipient: CertificateRecipient, index: number): Row[] {
    // Room for "100." in bold.
    const numberWidth = 30;
    const rows: Row[] = [
      this.textRow(
        [
          this.cell(`${index + 1}.`, styles.recipientName, 0, numberWidth),
          this.cell(recipient.name, styles.recipientName, numberWidth, this.contentWidth - numberWidth),
        ],
        3,
      ),
      this.field(this.t('label.email'), recipient.email),
      this.fieldPair([this.t('label.role'), translate(this.locale, 'common', `role.${recipient.role}`)], [this.t('label.routingOrder'), String(recipient.routingOrder)]),
      this.fieldPair([this.t('label.status'), translate(this.locale, 'common', `status.${recipient.status}`)], [this.t('label.acted'), recipient.actedAt === null ? '—' : this.time(recipient.actedAt)]),
      this.field(this.t('label.ip'), recipient.ip ?? '—'),
      this.field(this.t('label.userAgent'), recipient.userAgent === null ? '—' : this.t('userAgent.reported', { userAgent: recipient.userAgent })),
      this.field(this.t('label.identifiedBy'), recipient.identification ?? '—'),
      ...(recipient.language === undefined ? [] : [this.field(this.t('label.language'), recipient.language ?? '—')]),
      this.field(
        this.t('label.consent'),
        recipient.consent === null ? '—' : this.t('consent.agreed', { role: recipient.role, time: this.time(recipient.consent.at), version: recipient.consent.version }),
      ),
      this.field(this.t('label.recipientId'), recipient.id),
    ];
    if (recipient.role === 'signer') {
      rows.push(recipient.signature === null ? this.field(this.t('label.signature'), '—') : this.signatureRow(recipient.signature));
    }
    // The space after the block belongs to it, so that the next block starts clear of it.
    rows.push({ height: 10, draw: () => undefined });
    return rows;
  }

  auditTable(events: CompletionCertificate['events']): void {
    // Columns, in points from the left margin: the time column holds `2026-11-22 13:37:06 UTC` on one
    // line, the IP column an IPv4 address (an IPv6 one wraps); what happened gets the rest, its
    // sentence first and the raw event type under it in small print.
    const ipWidth = 74;
    const columns = { sequence: 0, time: 24, what: 134, ip: this.contentWidth - ipWidth };
    const tableRow = (values: [string, string, string, string], style: Style, type?: string): Row => {
      const what = this.cell(values[2], style, columns.what, columns.ip - columns.what - COLUMN_GAP);
      const cells = [
        this.cell(values[0], style, columns.sequence, columns.time - columns.sequence - COLUMN_GAP),
        this.cell(values[1], style, columns.time, columns.what - columns.time - COLUMN_GAP),
        what,
        this.cell(values[3], style, columns.ip, ipWidth),
      ];
      if (type === undefined) return this.textRow(cells, 3);
      const main = this.textRow(cells);
      const raw = this.textRow([this.cell(type, styles.rawType, columns.what, columns.ip - columns.what - COLUMN_GAP)], 3);
      return { height: main.height + raw.height, draw: (target, top) => (main.draw(target, top), raw.draw(target, top - main.height)) };
    };
    if (events.length === 0) {
      this.flow.row(this.full(this.t('audit.none'), styles.value));
      return;
    }
    const header = tableRow(['#', this.t('audit.time'), this.t('audit.what'), this.t('audit.ip')], styles.tableHead);
    this.flow.row(header);
    this.flow.repeatOnNewPage = [header];
    for (const event of events) {
      this.flow.row(tableRow([String(event.sequence), this.time(event.at), event.sentence, event.ip ?? '—'], styles.tableCell, event.type));
    }
    this.flow.repeatOnNewPage = [];
  }
}

/**
 * A document's hashes, what was removed from it and its pages: as uploaded and as frozen after
 * cleaning when the upload's hash is known (docs/api.md#evidence), else the frozen hash alone.
 */
function documentFacts(writer: CertificateWriter, document: Omit<CertificateDocument, 'name'>): void {
  const { flow } = writer;
  const t = writer.t.bind(writer);
  if (typeof document.uploadSha256 === 'string') {
    flow.row(writer.digestField(t('label.uploadSha256'), document.uploadSha256));
    flow.row(writer.digestField(t('label.frozenSha256'), document.documentSha256));
    flow.row(writer.field(t('label.removed'), document.removed.length === 0 ? t('removed.none') : document.removed.join(', ')));
  } else {
    flow.row(writer.digestField(t('label.documentSha256'), document.documentSha256));
  }
  flow.row(writer.field(t('label.pages'), String(document.pageCount)));
}

/**
 * Appends the certificate-of-completion pages to `pdf`, each the displayed size of its last page
 * (before the certificate), and embeds the fonts they use (subsetted).
 * @param originalPageCount pages of the document before the certificate (at least 1)
 * @returns the number of pages appended (at least 1)
 */
export function appendCertificatePages(pdf: PDF, certificate: CompletionCertificate, originalPageCount: number): number {
  const last = pdf.getPage(originalPageCount - 1);
  let displayed = last === null ? { width: 612, height: 792 } : displayedPage(pdf, last);
  // A degenerate page box (empty, or not finite): US Letter, as viewers assume for a page without one.
  if (!(displayed.width >= 1 && displayed.height >= 1 && Number.isFinite(displayed.width * displayed.height))) displayed = { width: 612, height: 792 };
  const width = Math.round(displayed.width * 100) / 100;
  const height = Math.round(displayed.height * 100) / 100;
  const shortSide = Math.min(width, height);
  const scale = shortSide < SHORT_SIDE.min ? shortSide / SHORT_SIDE.min : shortSide > SHORT_SIDE.max ? shortSide / SHORT_SIDE.max : 1;
  const size = { width, height, logicalWidth: width / scale, logicalHeight: height / scale };

  const painter = new TextPainter(pdf);
  const writer = new CertificateWriter(painter, pdf, size, certificate.locale ?? DEFAULT_LOCALE);
  const { flow } = writer;
  const t = writer.t.bind(writer);
  const time = writer.time.bind(writer);

  flow.row(writer.full(t('title'), styles.title, 6));
  flow.row(writer.full(t('intro'), styles.intro, 8));

  writer.heading(t('heading.envelope'));
  flow.row(writer.field(t('label.envelopeId'), certificate.envelopeId));
  const documents = certificate.documents ?? [];
  if (documents.length > 1) {
    // Several documents (docs/api.md#several-documents): each with its own facts, numbered in order.
    flow.row(writer.field(t('label.owner'), nameAndAddress(certificate.ownerName, certificate.ownerEmail)));
    documents.forEach((document, index) => {
      flow.row(writer.field(t('label.document'), `${index + 1}. ${document.name}`));
      documentFacts(writer, document);
    });
  } else {
    flow.row(writer.field(t('label.document'), certificate.documentName));
    flow.row(writer.field(t('label.owner'), nameAndAddress(certificate.ownerName, certificate.ownerEmail)));
    documentFacts(writer, { documentSha256: certificate.documentSha256, uploadSha256: certificate.uploadSha256 ?? null, removed: certificate.removed ?? [], pageCount: certificate.pageCount });
  }
  flow.row(writer.field(t('label.created'), time(certificate.createdAt)));
  flow.row(writer.field(t('label.sent'), certificate.sentAt === null ? t('sent.never') : time(certificate.sentAt)));
  flow.row(writer.field(t('label.completed'), time(certificate.completedAt)));

  const attachments = certificate.attachments ?? [];
  if (attachments.length > 0) {
    // The signers' files (docs/api.md#files-from-signers), embedded in this PDF: what each is, and whose.
    writer.heading(t('heading.attachments', { count: attachments.length }));
    attachments.forEach((file, index) => {
      flow.row(writer.field(t('label.attachment'), `${index + 1}. ${file.name}`));
      flow.row(writer.field(t('label.field'), file.field));
      flow.row(writer.fieldPair([t('label.type'), file.contentType], [t('label.size'), t('size.bytes', { bytes: file.size })]));
      flow.row(writer.digestField('SHA-256', file.sha256));
      flow.row(writer.field(t('label.uploaded'), `${file.uploadedBy}, ${time(file.uploadedAt)}`));
    });
  }

  writer.heading(t('heading.recipients', { count: certificate.recipients.length }));
  if (certificate.recipients.length === 0) flow.row(writer.full(t('recipients.none'), styles.value));
  certificate.recipients.forEach((recipient, index) => flow.block(writer.recipientBlock(recipient, index)));

  if (certificate.disclosures.length > 0) {
    writer.heading(t('heading.consent'));
    const [only] = certificate.disclosures;
    // One version: the sentence says everyone agreed to it; several: each says which it is.
    for (const disclosure of certificate.disclosures) {
      const intro = certificate.disclosures.length === 1 && only !== undefined ? t('consent.intro', { version: only.version }) : t('consent.introVersion', { version: disclosure.version, language: disclosure.language });
      flow.row(writer.full(intro, styles.intro, 4));
      // An organisation's text may hold line breaks: each line is a paragraph of its own.
      for (const line of disclosure.text.split(/\r\n|\r|\n/)) if (line.trim() !== '') flow.row(writer.full(line, styles.value, 4));
    }
  }

  writer.heading(t('heading.audit', { count: certificate.events.length }));
  writer.auditTable(certificate.events);
  // The last event's hash: the head of the chain sealed into the file as `audit.json` (docs/api.md#chained-audit-trail).
  if (certificate.auditHead !== undefined) flow.row(writer.digestField(t('label.auditHead'), certificate.auditHead));

  const total = flow.pages.length;
  flow.pages.forEach((content, index) => {
    const [footer] = layoutParagraph(t('footer', { envelopeId: certificate.envelopeId, page: index + 1, total }), {
      face: styles.footer.face,
      size: styles.footer.size,
      maxWidth: size.logicalWidth - MARGIN.left - MARGIN.right,
    });
    if (footer !== undefined) {
      const x = writer.rtl ? size.logicalWidth - MARGIN.right - footer.width * styles.footer.size : MARGIN.left;
      content.operators.push(...painter.lineOperators(content.page, footer, { x, y: FOOTER_Y, size: styles.footer.size, gray: styles.footer.gray }));
    }
    content.page.drawOperators(
      scale === 1
        ? content.operators
        : [ops.pushGraphicsState(), ops.concatMatrix(scale, 0, 0, scale, 0, 0), ...content.operators, ops.popGraphicsState()],
    );
  });
  painter.finish();
  return total;
}

/** Whether every glyph of a laid-out line is the handwriting face's (none fell back to another font). */
function inHandwriting(line: Line): boolean {
  return line.runs.every((run) => run.font === 'handwriting' || run.glyphs.every((glyph) => isSpace(run.text, glyph.cluster)));
}

/** Whether the character at `offset` of `text` is white space (drawn by whichever font, with no ink). */
function isSpace(text: string, offset: number): boolean {
  return /\s/u.test(String.fromCodePoint(text.codePointAt(offset) ?? 0x20));
}

/**
 * The certificate-of-completion pages (CONTRACT §6 step 2 and §10): envelope id, document name,
 * owner e-mail, every signer's name, e-mail, role and id, the created and completed times, the
 * original document's SHA-256, and every audit event so far with its type and time. All of it is
 * real text. Long values wrap, and the content flows over as many A4 pages as it needs, each
 * with a footer "Page i of n".
 *
 * Runs only inside a seal worker (it uses @libpdf/core).
 */
import { grayscale } from '@libpdf/core';
import type { PDF, PDFPage } from '@libpdf/core';
import type { CompletionCertificate } from './types.js';
import { TextPainter, layoutParagraph } from './textLayout.js';
import type { Face, Line } from './textLayout.js';

/** A4 portrait, in points. */
const PAGE = { width: 595.28, height: 841.89 };
const MARGIN = { left: 56, right: 56, top: 60, bottom: 64 };
const CONTENT_WIDTH = PAGE.width - MARGIN.left - MARGIN.right;
const FOOTER_Y = 36;
const LABEL_WIDTH = 128;
const COLUMN_GAP = 8;

interface Style {
  face: Face;
  size: number;
  /** 0 black … 1 white. */
  gray: number;
}

const styles = {
  title: { face: 'bold', size: 18, gray: 0 },
  intro: { face: 'regular', size: 9, gray: 0.3 },
  heading: { face: 'bold', size: 12, gray: 0 },
  label: { face: 'bold', size: 9, gray: 0.35 },
  value: { face: 'regular', size: 9.5, gray: 0 },
  /** 64 hex digits fit one line at this size whatever the digits (the widest is under 0.62 em). */
  digest: { face: 'regular', size: 8.5, gray: 0 },
  signerName: { face: 'bold', size: 10.5, gray: 0 },
  tableHead: { face: 'bold', size: 8, gray: 0.35 },
  tableCell: { face: 'regular', size: 8, gray: 0 },
  footer: { face: 'regular', size: 7.5, gray: 0.4 },
} satisfies Record<string, Style>;

const lineHeight = (style: Style): number => style.size * 1.35;

/** One column of a row: laid-out lines at an x offset from the left margin. */
interface Cell {
  x: number;
  lines: Line[];
  style: Style;
}

function cell(text: string, style: Style, x: number, width: number): Cell {
  return { x, lines: layoutParagraph(text, { face: style.face, size: style.size, maxWidth: width }), style };
}

/** Places rows top to bottom, starting a new page whenever the next row does not fit. */
class Flow {
  readonly pages: PDFPage[] = [];
  private y = 0;

  constructor(
    private readonly pdf: PDF,
    private readonly painter: TextPainter,
  ) {}

  private get page(): PDFPage {
    const page = this.pages.at(-1);
    if (page !== undefined) return page;
    return this.newPage();
  }

  private newPage(): PDFPage {
    const page = this.pdf.addPage({ width: PAGE.width, height: PAGE.height });
    this.pages.push(page);
    this.y = PAGE.height - MARGIN.top;
    return page;
  }

  private remaining(): number {
    return this.pages.length === 0 ? 0 : this.y - MARGIN.bottom;
  }

  /** Vertical space, in points (dropped at the top of a page). */
  space(points: number): void {
    if (this.pages.length > 0 && this.y < PAGE.height - MARGIN.top) this.y -= points;
  }

  /** Starts a new page unless `points` of vertical space are left on this one. */
  keep(points: number): void {
    if (this.remaining() < points) this.newPage();
  }

  /**
   * A row of cells side by side, advancing by its tallest cell. Kept on one page when it fits on
   * one; a row taller than a whole page continues line by line on the next.
   */
  row(cells: Cell[], gap = 0): void {
    const step = Math.max(...cells.map((c) => lineHeight(c.style)));
    const count = Math.max(...cells.map((c) => c.lines.length));
    if (count * step <= PAGE.height - MARGIN.top - MARGIN.bottom) this.keep(count * step);
    for (let index = 0; index < count; index++) {
      if (this.remaining() < step) this.newPage();
      const page = this.page;
      const baseline = this.y - step * 0.8;
      for (const c of cells) {
        const line = c.lines[index];
        if (line !== undefined && line.glyphs.length > 0) {
          this.painter.drawLine(page, line, { x: MARGIN.left + c.x, y: baseline, size: c.style.size, gray: c.style.gray });
        }
      }
      this.y -= step;
    }
    this.y -= gap;
  }

  /** A thin horizontal rule across the content width. */
  rule(): void {
    if (this.remaining() < 6) return;
    const y = this.y - 2;
    this.page.drawLine({
      start: { x: MARGIN.left, y },
      end: { x: PAGE.width - MARGIN.right, y },
      thickness: 0.5,
      color: grayscale(0.75),
    });
    this.y -= 6;
  }
}

/**
 * Appends the certificate-of-completion pages to `pdf`.
 * @param originalPageCount pages of the document before the certificate
 * @returns the number of pages appended (at least 1)
 */
export function appendCertificatePages(pdf: PDF, certificate: CompletionCertificate, originalPageCount: number): number {
  const painter = new TextPainter(pdf);
  const flow = new Flow(pdf, painter);
  const full = (text: string, style: Style): Cell => cell(text, style, 0, CONTENT_WIDTH);
  const field = (label: string, value: string, valueStyle: Style = styles.value): void =>
    flow.row(
      [
        cell(label, styles.label, 0, LABEL_WIDTH - COLUMN_GAP),
        cell(value, valueStyle, LABEL_WIDTH, CONTENT_WIDTH - LABEL_WIDTH),
      ],
      2,
    );
  const heading = (text: string): void => {
    flow.space(14);
    flow.keep(lineHeight(styles.heading) + 6 + 3 * lineHeight(styles.value));
    flow.row([full(text, styles.heading)], 2);
    flow.rule();
  };

  flow.row([full('Certificate of completion', styles.title)], 6);
  flow.row(
    [
      full(
        'This page was added by the envelope service when the envelope was completed. The document before it ' +
          '(its form fields flattened into the page content) and this certificate are sealed together with the ' +
          "service's PAdES signature: any change to either breaks the seal.",
        styles.intro,
      ),
    ],
    10,
  );

  heading('Envelope');
  field('Envelope ID', certificate.envelopeId);
  field('Document', certificate.documentName);
  field('Owner', certificate.ownerEmail);
  field('Created', certificate.createdAt);
  field('Completed', certificate.completedAt);
  field('Original SHA-256', certificate.documentSha256, styles.digest);
  field('Original pages', String(originalPageCount));

  heading(`Signers (${certificate.recipients.length})`);
  if (certificate.recipients.length === 0) flow.row([full('No signers.', styles.value)]);
  certificate.recipients.forEach((signer, index) => {
    flow.keep(lineHeight(styles.signerName) + 3 * lineHeight(styles.value));
    flow.row([cell(`${index + 1}.`, styles.signerName, 0, 24), cell(signer.name, styles.signerName, 24, CONTENT_WIDTH - 24)], 2);
    field('E-mail', signer.email);
    field('Role', signer.role);
    field('Signer ID', signer.id);
    flow.space(6);
  });

  heading(`Audit trail (${certificate.events.length} ${certificate.events.length === 1 ? 'event' : 'events'})`);
  // Points from the left margin. The actor column holds a UUID on one line whatever its digits (36
  // characters of the widest hex digits, `b` and `d`, at 8 pt need about 168 pt); the time column an
  // ISO 8601 timestamp, the type column `envelope.signers_replaced`.
  const columns = { sequence: 0, time: 26, type: 150, actor: 292 };
  const tableRow = (values: [string, string, string, string], style: Style): void =>
    flow.row(
      [
        cell(values[0], style, columns.sequence, columns.time - columns.sequence - COLUMN_GAP),
        cell(values[1], style, columns.time, columns.type - columns.time - COLUMN_GAP),
        cell(values[2], style, columns.type, columns.actor - columns.type - COLUMN_GAP),
        cell(values[3], style, columns.actor, CONTENT_WIDTH - columns.actor),
      ],
      3,
    );
  if (certificate.events.length === 0) {
    flow.row([full('No events.', styles.value)]);
  } else {
    tableRow(['#', 'Time (UTC)', 'Event', 'Actor'], styles.tableHead);
    for (const event of certificate.events) {
      tableRow([String(event.sequence), event.at, event.type, event.actorEmail ?? 'system'], styles.tableCell);
    }
  }

  const total = flow.pages.length;
  flow.pages.forEach((page, index) => {
    const [footer] = layoutParagraph(
      `Certificate of completion · Envelope ${certificate.envelopeId} · Page ${index + 1} of ${total}`,
      { face: styles.footer.face, size: styles.footer.size, maxWidth: CONTENT_WIDTH },
    );
    if (footer !== undefined) {
      painter.drawLine(page, footer, { x: MARGIN.left, y: FOOTER_Y, size: styles.footer.size, gray: styles.footer.gray });
    }
  });
  return total;
}

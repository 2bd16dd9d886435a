/**
 * Small PDFs with chosen page geometry (media box, crop box offset from it, /Rotate, attributes
 * inherited from the page tree), written byte by byte so that nothing but the file decides what a
 * reader sees. Every page is covered with a pattern (grey stripes, a black grid and a label in
 * Helvetica), so that any change to a page shows in its rendering.
 */
import { Buffer } from 'node:buffer';

export interface PageSpec {
  /** [llx lly urx ury]. */
  mediaBox: [number, number, number, number];
  cropBox?: [number, number, number, number];
  rotate?: number;
  /** Put MediaBox, CropBox and Rotate on the parent /Pages node instead of the page (inheritance), and the resources too. */
  inherit?: boolean;
}

/** A content stream that fills the media box with stripes, a grid and a label. */
function pattern(spec: PageSpec, label: string): string {
  const [llx, lly, urx, ury] = spec.mediaBox;
  const lines: string[] = ['0.85 g'];
  for (let x = llx; x < urx; x += 40) lines.push(`${x} ${lly} 20 ${ury - lly} re f`);
  lines.push('0 G 0.6 w');
  for (let y = lly; y <= ury; y += 25) lines.push(`${llx} ${y} m ${urx} ${y} l S`);
  lines.push('0 g BT /F1 14 Tf');
  for (let y = lly + 30; y < ury; y += 90) lines.push(`1 0 0 1 ${llx + 30} ${y} Tm (${label} ${y}) Tj`);
  lines.push('ET');
  return lines.join('\n');
}

/** A PDF whose pages have the given geometry, each labelled "Page n". */
export function pdfWithPages(pages: PageSpec[]): Buffer {
  const objects: string[] = [];
  const add = (body: string): number => {
    objects.push(body);
    return objects.length;
  };
  const catalog = add('');
  const pagesNode = add('');
  const font = add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>');
  const resources = `<< /Font << /F1 ${font} 0 R >> >>`;
  const inheritFrom = pages.find((page) => page.inherit === true);
  const geometry = (spec: PageSpec): string =>
    `/MediaBox [${spec.mediaBox.join(' ')}]` +
    (spec.cropBox === undefined ? '' : ` /CropBox [${spec.cropBox.join(' ')}]`) +
    (spec.rotate === undefined ? '' : ` /Rotate ${spec.rotate}`);
  const kids = pages.map((spec, index) => {
    const content = pattern(spec, `Page ${index + 1}`);
    const stream = add(`<< /Length ${Buffer.byteLength(content, 'latin1')} >>\nstream\n${content}\nendstream`);
    const own = spec.inherit === true ? '' : `${geometry(spec)} /Resources ${resources} `;
    return add(`<< /Type /Page /Parent ${pagesNode} 0 R ${own}/Contents ${stream} 0 R >>`);
  });
  objects[catalog - 1] = `<< /Type /Catalog /Pages ${pagesNode} 0 R >>`;
  objects[pagesNode - 1] =
    `<< /Type /Pages /Kids [${kids.map((kid) => `${kid} 0 R`).join(' ')}] /Count ${kids.length}` +
    (inheritFrom === undefined ? '' : ` ${geometry(inheritFrom)} /Resources ${resources}`) +
    ' >>';

  let out = '%PDF-1.7\n%\xe2\xe3\xcf\xd3\n';
  const offsets: number[] = [];
  objects.forEach((body, index) => {
    offsets.push(Buffer.byteLength(out, 'latin1'));
    out += `${index + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) out += `${String(offset).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root ${catalog} 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

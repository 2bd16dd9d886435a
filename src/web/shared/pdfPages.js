// @ts-check
// A PDF's pages on a web page, drawn by PDF.js (pdfjs-dist), for the console and the signing page.
// Served beside PDF.js by each page's own asset route, so everything comes from this service.
//
// Pages are shown as the contract measures fields: the crop box after the page's /Rotate (PDF.js's
// viewport), so a field's fractions x, y, width, height (origin top-left) map onto the shown page by
// plain percentages of its box.

/** The folder this module was served from (`/api/sign/` or `/api/console/`), where PDF.js also is. */
const BASE = new URL('./', import.meta.url);

/** Documents up to this many pages are drawn whole at once; longer ones page by page as they are reached. */
const EAGER_PAGES = 20;

/** @typedef {typeof import('pdfjs-dist')} PdfJs */
/** @typedef {import('pdfjs-dist').PDFDocumentProxy} PdfDocument */
/**
 * A page laid out, and its drawing.
 * @typedef {object} LaidOutPage
 * @property {HTMLDivElement} element
 * @property {import('pdfjs-dist').PDFPageProxy} page
 * @property {HTMLCanvasElement} canvas the drawing on show
 * @property {number} drawnWidth the width it was drawn for, in device pixels; 0 when not drawn
 * @property {import('pdfjs-dist').RenderTask | null} task the drawing under way
 */

/** @type {Promise<PdfJs> | null} */
let library = null;

/**
 * PDF.js, loaded on first use, its worker a script of this origin.
 * @returns {Promise<PdfJs>}
 */
function pdfjs() {
  if (library === null) {
    // Imported by its URL beside this module (so tsc cannot follow it): PDF.js's own types describe it.
    library = import(new URL('pdf.min.mjs', BASE).href).then(/** @param {PdfJs} module */ function (module) {
      module.GlobalWorkerOptions.workerSrc = new URL('pdf.worker.min.mjs', BASE).href;
      return module;
    });
  }
  return library;
}

/**
 * Downloads the PDF at `url` (a read-only SAS URL the API handed out) and opens it.
 * @param {string} url
 * @returns {Promise<PdfDocument>} the PDF.js document (`numPages`, `getPage(n)`)
 * @throws Error saying that the document could not be read
 */
export async function openPdf(url) {
  let response;
  try {
    response = await fetch(url);
  } catch (error) {
    throw new Error('The document could not be downloaded (network).');
  }
  if (!response.ok) throw new Error('The document could not be downloaded (storage answered ' + response.status + ').');
  const data = new Uint8Array(await response.arrayBuffer());
  const module = await pdfjs();
  return await module.getDocument({ data: data, enableXfa: false }).promise;
}

/**
 * Lays out every page of `pdf` in `container` (emptied first), each as
 * `<div class="pdf-page" data-page="n" role="group" aria-label="Page n of N">` holding a
 * `<canvas aria-hidden="true">`, sized to the page's proportions. Each page is drawn sharp for the
 * width it is shown at and the screen's pixel density, and drawn again when that width changes: all
 * at once for a short document, else when it comes near the viewport.
 * @param {PdfDocument} pdf
 * @param {HTMLElement} container
 * @param {{ pageLabel?: (number: number, count: number) => string }} [options] `pageLabel`: the page's
 *   accessible name
 * @returns {Promise<{ pages: HTMLDivElement[], close: () => void }>} the page elements, in order (each
 *   with `dataset.width` and `dataset.height`, the shown page's size in points), and a function that
 *   stops drawing them
 */
export async function layoutPages(pdf, container, options) {
  const pageLabel = (options && options.pageLabel) || function (/** @type {number} */ number, /** @type {number} */ count) { return 'Page ' + number + ' of ' + count; };
  container.textContent = '';
  /** @type {LaidOutPage[]} */
  const pages = [];
  for (let number = 1; number <= pdf.numPages; number++) {
    const page = await pdf.getPage(number);
    const viewport = page.getViewport({ scale: 1 });
    const element = document.createElement('div');
    element.className = 'pdf-page';
    element.dataset.page = String(number);
    element.dataset.width = String(viewport.width);
    element.dataset.height = String(viewport.height);
    element.setAttribute('role', 'group');
    element.setAttribute('aria-label', pageLabel(number, pdf.numPages));
    element.style.aspectRatio = viewport.width + ' / ' + viewport.height;
    const canvas = document.createElement('canvas');
    canvas.setAttribute('aria-hidden', 'true');
    element.appendChild(canvas);
    container.appendChild(element);
    pages.push({ element: element, page: page, canvas: canvas, drawnWidth: 0, task: null });
  }

  const draw = function (/** @type {LaidOutPage} */ entry) {
    const shownWidth = entry.element.clientWidth;
    if (shownWidth === 0) return;
    const pixels = Math.round(shownWidth * Math.min(window.devicePixelRatio || 1, 3));
    if (Math.abs(pixels - entry.drawnWidth) < 2) return;
    if (entry.task !== null) entry.task.cancel();
    entry.drawnWidth = pixels;
    const base = entry.page.getViewport({ scale: 1 });
    const viewport = entry.page.getViewport({ scale: pixels / base.width });
    // Draw off screen, then swap, so the page never flashes blank while it is drawn again.
    const canvas = document.createElement('canvas');
    canvas.width = Math.round(viewport.width);
    canvas.height = Math.round(viewport.height);
    canvas.setAttribute('aria-hidden', 'true');
    const task = entry.page.render({ canvas: canvas, canvasContext: /** @type {CanvasRenderingContext2D} */ (canvas.getContext('2d')), viewport: viewport });
    entry.task = task;
    task.promise.then(
      function () {
        entry.task = null;
        entry.canvas.replaceWith(canvas);
        entry.canvas = canvas;
        entry.element.classList.add('pdf-page-drawn');
      },
      function (/** @type {unknown} */ error) {
        entry.task = null;
        if (!error || /** @type {{ name?: unknown }} */ (error).name !== 'RenderingCancelledException') entry.drawnWidth = 0;
      },
    );
  };

  /** @type {Set<LaidOutPage>} */
  const visible = new Set();
  const observer = new IntersectionObserver(function (records) {
    records.forEach(function (record) {
      const entry = pages.find(function (candidate) { return candidate.element === record.target; });
      if (entry === undefined) return;
      if (record.isIntersecting) {
        visible.add(entry);
        draw(entry);
      } else {
        visible.delete(entry);
      }
    });
  }, { rootMargin: '600px 0px' });
  pages.forEach(function (entry) { observer.observe(entry.element); });
  // A short document is drawn whole at once, so that it is ready wherever the reader jumps to.
  if (pages.length <= EAGER_PAGES) pages.forEach(function (entry) { visible.add(entry); draw(entry); });

  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let resizeTimer;
  const onResize = function () {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(function () { visible.forEach(draw); }, 150);
  };
  window.addEventListener('resize', onResize);
  return {
    pages: pages.map(function (entry) { return entry.element; }),
    close: function () {
      observer.disconnect();
      window.removeEventListener('resize', onResize);
      clearTimeout(resizeTimer);
      pages.forEach(function (entry) { if (entry.task !== null) entry.task.cancel(); });
    },
  };
}

// @ts-check
// Bulk send from the open template (docs/api.md#bulk-send): a CSV file chosen here is read in the page
// and its rows shown with what is wrong in each before anything is sent; "Start sending" uploads the
// file as it is (text/csv), the service checks every row again and answers the rows it refuses, shown
// in the same table; once the job runs, its progress is followed until it ends, and it can be
// cancelled. A cell is shown as text, never run as anything (a name such as =HYPERLINK(...) stays text).
import { $, action, api, lockControls, showError, showStatus, state, statusBadge, viewerBlocker } from './consoleSession.js';
import { loadEnvelopes } from './envelopes.js';
/** @typedef {import('./consoleSession.js').Template} Template */

/** Rows the preview table shows at most (the rest are counted; rows with a complaint are always shown). */
var PREVIEW_ROWS = 50;
/** Milliseconds between two reads of a running job. */
var POLL_MS = 1000;

/**
 * What the page holds of the chosen file and of the job it started.
 * @type {{ templateId: string | null, text: string | null, header: string[], records: string[][], complaints: Map<number, string[]>, jobId: string | null, timer: number | null }}
 */
var bulk = { templateId: null, text: null, header: [], records: [], complaints: new Map(), jobId: null, timer: null };

/**
 * Parses CSV text as RFC 4180 does (what the service reads, docs/api.md#the-csv-file): a byte order
 * mark passed over, cells in double quotes holding commas, doubled quotes and line breaks, records
 * whose cells are all empty passed over.
 * @param {string} text
 * @returns {string[][]}
 */
export function parseCsv(text) {
  /** @type {string[][]} */
  var records = [];
  /** @type {string[]} */
  var record = [];
  var cell = '';
  var quoted = false;
  var at = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  function endRecord() {
    record.push(cell);
    if (record.some(function (value) { return value !== ''; })) records.push(record);
    record = [];
    cell = '';
  }
  for (; at < text.length; at++) {
    var character = text[at];
    if (quoted) {
      if (character === '"' && text[at + 1] === '"') { cell += '"'; at++; }
      else if (character === '"') quoted = false;
      else cell += character;
    } else if (character === '"' && cell === '') quoted = true;
    else if (character === ',') { record.push(cell); cell = ''; }
    else if (character === '\r' && text[at + 1] === '\n') { endRecord(); at++; }
    else if (character === '\n' || character === '\r') endRecord();
    else cell += character;
  }
  if (cell !== '' || record.length > 0) endRecord();
  return records;
}

/**
 * The columns a template's CSV may have: each role's e-mail, name, language and phone, then a
 * `field.<label>` for each labelled field that takes a prefilled value.
 * @param {Template} template
 * @returns {{ required: string[], optional: string[] }}
 */
function templateColumns(template) {
  /** @type {string[]} */
  var required = [];
  /** @type {string[]} */
  var optional = [];
  template.roles.forEach(function (role) {
    required.push(role.name + '.email', role.name + '.name');
    optional.push(role.name + '.locale', role.name + '.phone');
  });
  // Fields no column can fill: the signer signs, the service fills in, or the signer uploads a file.
  var filled = ['signature', 'initials', 'date_signed', 'name', 'email', 'attachment', 'image'];
  template.fields.forEach(function (field) {
    if (field.label && filled.indexOf(field.type) < 0 && optional.indexOf('field.' + field.label) < 0) optional.push('field.' + field.label);
  });
  return { required: required, optional: optional };
}

/**
 * Shows the bulk send card for an active template (hidden otherwise), with the columns its CSV takes.
 * @param {Template} template
 */
export function showBulkForm(template) {
  $('bulk-form').hidden = template.status !== 'active';
  var columns = templateColumns(template);
  $('bulk-columns').textContent = columns.required.concat(columns.optional).join(',');
  // The same template shown again (after a change of it): the file and the job on show stay.
  if (bulk.templateId === template.id) return;
  stopPolling();
  /** @type {HTMLFormElement} */ ($('bulk-form')).reset();
  bulk = { templateId: template.id, text: null, header: [], records: [], complaints: new Map(), jobId: null, timer: null };
  $('bulk-preview').hidden = true;
  $('bulk-job').hidden = true;
  $('bulk-start').disabled = true;
  lockControls([$('bulk-file'), $('bulk-start')], viewerBlocker('Sending to many people'));
}

/** Reads the chosen file and shows its rows with what the page finds wrong in each. */
export function readBulkFile() {
  var input = /** @type {HTMLInputElement} */ ($('bulk-file'));
  var file = input.files && input.files[0];
  $('bulk-job').hidden = true;
  if (!file) {
    $('bulk-preview').hidden = true;
    $('bulk-start').disabled = true;
    return Promise.resolve();
  }
  return file.text().then(function (text) {
    var table = parseCsv(text);
    bulk.text = text;
    bulk.header = (table[0] || []).map(function (name) { return name.trim(); });
    bulk.records = table.slice(1);
    bulk.complaints = checkRows(/** @type {Template} */ (state.template));
    $('bulk-start').hidden = false;
    renderPreview();
  });
}

/**
 * What the page can tell is wrong before the service is asked: unknown or missing columns, rows
 * with another number of cells, an empty or malformed e-mail address, an empty name.
 * @param {Template} template
 * @returns {Map<number, string[]>} complaints by row number (0: the header)
 */
function checkRows(template) {
  /** @type {Map<number, string[]>} */
  var complaints = new Map();
  /**
   * @param {number} row
   * @param {string} text
   */
  function complain(row, text) {
    var list = complaints.get(row) || [];
    list.push(text);
    complaints.set(row, list);
  }
  var columns = templateColumns(template);
  var known = columns.required.concat(columns.optional).map(function (name) { return name.toLowerCase(); });
  var lower = bulk.header.map(function (name) { return name.toLowerCase(); });
  bulk.header.forEach(function (name, index) {
    if (known.indexOf(name.toLowerCase()) < 0 && name.toLowerCase().indexOf('metadata.') !== 0) complain(0, 'column “' + name + '” is not one of this template’s');
    else if (lower.indexOf(name.toLowerCase()) !== index) complain(0, 'column “' + name + '” is repeated');
  });
  columns.required.forEach(function (name) {
    if (lower.indexOf(name.toLowerCase()) < 0) complain(0, 'column “' + name + '” is missing');
  });
  if (bulk.records.length === 0) complain(0, 'the file has no rows below its header');
  bulk.records.forEach(function (cells, index) {
    var row = index + 1;
    if (cells.length !== bulk.header.length) complain(row, 'has ' + cells.length + ' cells; the header has ' + bulk.header.length);
    lower.forEach(function (name, column) {
      var value = (cells[column] || '').trim();
      if (/\.email$/.test(name) && name.indexOf('field.') !== 0) {
        if (value === '') complain(row, bulk.header[column] + ' is empty');
        else if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(value)) complain(row, bulk.header[column] + ' “' + value + '” is not an e-mail address');
      } else if (/\.name$/.test(name) && name.indexOf('field.') !== 0 && value === '') complain(row, bulk.header[column] + ' is empty');
    });
  });
  return complaints;
}

/** Draws the preview: a summary, then the rows (the first ones, and every row with a complaint). */
function renderPreview() {
  $('bulk-preview').hidden = false;
  var head = $('bulk-head');
  head.textContent = '';
  // What is wrong comes right after the row's number: on a phone it shows without scrolling sideways.
  ['Row', 'What is wrong'].concat(bulk.header).forEach(function (name) {
    var th = document.createElement('th');
    th.scope = 'col';
    th.textContent = name;
    head.appendChild(th);
  });
  var body = $('bulk-rows');
  body.textContent = '';
  var header = bulk.complaints.get(0);
  if (header) appendRow(body, 'Header', bulk.header, header);
  bulk.records.forEach(function (cells, index) {
    var complaints = bulk.complaints.get(index + 1);
    if (index < PREVIEW_ROWS || complaints) appendRow(body, String(index + 1), cells, complaints || []);
  });
  var bad = Array.from(bulk.complaints.keys()).filter(function (row) { return row > 0; }).length;
  var summary = bulk.records.length + (bulk.records.length === 1 ? ' row found' : ' rows found');
  if (header) summary += '; the header needs fixing';
  if (bad > 0) summary += '; ' + bad + (bad === 1 ? ' row has' : ' rows have') + ' errors (shown below)';
  if (!header && bad === 0) summary += (bulk.records.length > PREVIEW_ROWS ? ' (the first ' + PREVIEW_ROWS + ' shown)' : '') + '. Nothing is sent until you start.';
  else summary += '. Fix the file and choose it again; nothing was sent.';
  $('bulk-summary').textContent = summary;
  $('bulk-start').disabled = bulk.complaints.size > 0 || viewerBlocker('Sending') !== null;
}

/**
 * @param {HTMLElement} body
 * @param {string} label
 * @param {string[]} cells
 * @param {string[]} complaints
 */
function appendRow(body, label, cells, complaints) {
  var tr = document.createElement('tr');
  if (complaints.length > 0) tr.className = 'bulk-bad';
  var th = document.createElement('th');
  th.scope = 'row';
  th.textContent = label;
  tr.appendChild(th);
  var wrong = document.createElement('td');
  wrong.className = 'bulk-complaint';
  wrong.textContent = complaints.join('; ');
  tr.appendChild(wrong);
  bulk.header.forEach(function (_, column) {
    var td = document.createElement('td');
    // textContent: a cell is text, whatever it starts with.
    td.textContent = cells[column] || '';
    tr.appendChild(td);
  });
  body.appendChild(tr);
}

/** Uploads the file as it is; shows the service's complaints by row, or follows the job it started. */
export function startBulk() {
  var template = /** @type {Template} */ (state.template);
  if (bulk.text === null) return Promise.resolve();
  var send = /** @type {HTMLInputElement} */ ($('bulk-send')).checked;
  return api('POST', 'templates/' + encodeURIComponent(template.id) + '/bulk' + (send ? '' : '?send=false'), { raw: { text: bulk.text, contentType: 'text/csv; charset=utf-8' } }).then(function (response) {
    bulk.jobId = response.body.id;
    // The file is sent: choosing it again starts another job, pressing the button again nothing.
    bulk.text = null;
    /** @type {HTMLInputElement} */ ($('bulk-file')).value = '';
    $('bulk-preview').hidden = true;
    // Until another file is chosen there is nothing to start.
    $('bulk-start').hidden = true;
    showStatus('Bulk send started: ' + response.body.total + ' envelopes from “' + template.name + '”.');
    showJob(response.body);
    $('bulk-job-heading').focus();
    schedulePoll();
  }, function (error) {
    var problem = error.problem;
    var errors = problem && Array.isArray(problem.errors) ? problem.errors : [];
    if (errors.some(function (/** @type {{ row?: number }} */ item) { return typeof item.row === 'number'; }) || errors.some(function (/** @type {{ column?: string }} */ item) { return typeof item.column === 'string'; })) {
      /** @type {Map<number, string[]>} */
      var complaints = new Map();
      errors.forEach(function (/** @type {{ row?: number, column?: string, field?: string, message: string }} */ item) {
        var row = typeof item.row === 'number' ? item.row : 0;
        var list = complaints.get(row) || [];
        list.push((item.column || item.field || '') + ' ' + item.message);
        complaints.set(row, list);
      });
      bulk.complaints = complaints;
      renderPreview();
    }
    throw error;
  });
}

/**
 * Shows a job's status and counts.
 * @param {{ status: string, total: number, created: number, failed: number }} job
 */
function showJob(job) {
  $('bulk-job').hidden = false;
  var badge = $('bulk-job-status');
  badge.replaceWith(Object.assign(statusBadge(job.status), { id: 'bulk-job-status' }));
  $('bulk-job-counts').textContent = job.created + ' of ' + job.total + ' made' + (job.failed > 0 ? ', ' + job.failed + ' failed' : '') + (job.status === 'cancelled' ? '; the rest were not sent' : '');
  var progress = /** @type {HTMLProgressElement} */ ($('bulk-progress'));
  progress.max = job.total;
  progress.value = job.created + job.failed;
  var finished = job.status === 'completed' || job.status === 'cancelled';
  $('bulk-cancel').hidden = finished;
  lockControls([$('bulk-cancel')], viewerBlocker('Cancelling'));
}

function stopPolling() {
  if (bulk.timer !== null) window.clearTimeout(bulk.timer);
  bulk.timer = null;
}

function schedulePoll() {
  stopPolling();
  bulk.timer = window.setTimeout(function () { pollJob().catch(function (error) { showError(error); }); }, POLL_MS);
}

/** Reads the job once; goes on while it runs, and at its end lists the rows that failed. */
function pollJob() {
  var jobId = bulk.jobId;
  if (jobId === null) return Promise.resolve();
  return api('GET', 'bulk/' + encodeURIComponent(jobId)).then(function (response) {
    if (bulk.jobId !== jobId) return undefined;
    var job = response.body;
    showJob(job);
    if (job.status !== 'completed' && job.status !== 'cancelled') {
      schedulePoll();
      return undefined;
    }
    showStatus('Bulk send ' + job.status + ': ' + job.created + ' of ' + job.total + ' envelopes made' + (job.failed > 0 ? ', ' + job.failed + ' failed.' : '.'));
    return Promise.all([listFailures(jobId), loadEnvelopes()]);
  });
}

/**
 * Lists the rows of the job that failed, with why.
 * @param {string} jobId
 * @param {string | null} [cursor]
 * @returns {Promise<void>}
 */
function listFailures(jobId, cursor) {
  if (!cursor) $('bulk-failures').textContent = '';
  return api('GET', 'bulk/' + encodeURIComponent(jobId) + '/rows' + (cursor ? '?cursor=' + encodeURIComponent(cursor) : '')).then(function (response) {
    response.body.rows.forEach(function (/** @type {{ row: number, status: string, error?: { detail: string } }} */ row) {
      if (row.status !== 'failed') return;
      var item = document.createElement('li');
      item.textContent = 'Row ' + row.row + ': ' + (row.error ? row.error.detail : 'failed');
      $('bulk-failures').appendChild(item);
    });
    return response.body.nextCursor ? listFailures(jobId, response.body.nextCursor) : undefined;
  });
}

/** Cancels the job on show: no row is started after it. */
export function cancelBulk() {
  if (bulk.jobId === null) return Promise.resolve();
  return api('POST', 'bulk/' + encodeURIComponent(bulk.jobId) + '/cancel').then(function (response) {
    showJob(response.body);
    showStatus('Bulk send cancelled: the rows not yet made are not sent.');
    schedulePoll();
  });
}

/** Wires the card's controls. */
export function wireBulk() {
  $('bulk-file').addEventListener('change', function () { readBulkFile().catch(function (error) { showError(error, $('bulk-file')); }); });
  $('bulk-form').addEventListener('submit', action(/** @type {HTMLButtonElement} */ ($('bulk-start')), startBulk));
  $('bulk-cancel').addEventListener('click', action(/** @type {HTMLButtonElement} */ ($('bulk-cancel')), cancelBulk));
}

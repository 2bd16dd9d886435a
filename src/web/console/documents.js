// @ts-check
// The document: its upload to Blob storage through the SAS URL the API hands out, and the download
// of the sealed PDF.
import { $, api, showStatus, state } from './consoleSession.js';
import { loadEnvelopes, openEnvelope, showEnvelope } from './envelopes.js';
import { percent } from './fieldEditor.js';

// ---- Upload ------------------------------------------------------------------------------

export function upload() {
  var file = $('upload-file').files[0];
  if (!file) throw new Error('Choose a PDF document first.');
  setProgress(0);
  return api('POST', 'GetUploadUrl', { json: { filename: file.name, mimetype: file.type || 'application/pdf' } }).then(function (response) {
    var ticket = response.body;
    showStatus('Uploading ' + file.name + '…');
    return putToBlobStorage(ticket.uploadUrl, file).then(function () {
      $('upload-form').reset();
      showStatus('Uploaded ' + file.name + ': a draft envelope. Name its signers next.');
      return loadEnvelopes().then(function () { return openEnvelope(ticket.envelopeId, true); });
    });
  });
}

/**
 * PUT of the file to its SAS URL, as Blob storage requires (docs/api.md#create-an-envelope-and-upload-its-document), reporting progress.
 * @param {string} uploadUrl
 * @param {File} file
 * @returns {Promise<void>}
 */
export function putToBlobStorage(uploadUrl, file) {
  return new Promise(function (resolve, reject) {
    var request = new XMLHttpRequest();
    request.open('PUT', uploadUrl);
    request.setRequestHeader('x-ms-blob-type', 'BlockBlob');
    request.setRequestHeader('Content-Type', 'application/pdf');
    request.upload.addEventListener('progress', function (event) {
      if (event.lengthComputable) setProgress(Math.round((event.loaded / event.total) * 100));
    });
    request.addEventListener('load', function () {
      if (request.status === 201) {
        setProgress(100);
        resolve();
      } else {
        reject(new Error('Blob storage refused the upload (' + request.status + '): ' + storageMessage(request.responseText)));
      }
    });
    request.addEventListener('error', function () {
      reject(new Error('The upload did not reach Blob storage (network or CORS).'));
    });
    request.send(file);
  });
}

/**
 * The `<Message>` of a Blob storage error document.
 * @param {string} xml
 */
function storageMessage(xml) {
  var parsed = new DOMParser().parseFromString(xml || '<Error/>', 'application/xml');
  var message = parsed.querySelector('Message');
  return message ? message.textContent.split('\n')[0] : 'no explanation given.';
}

/**
 * @param {number | null} percent
 */
function setProgress(percent) {
  $('upload-progress').value = percent;
  $('upload-progress').textContent = percent + '%';
  $('upload-percent').textContent = percent + '%';
}

// ---- Download ----------------------------------------------------------------------------

/** Fetches a fresh signed URL's PDF, shows its SHA-256 beside the API's, and saves it. */
export function download() {
  var envelope = state.envelope;
  return api('GET', 'envelopes/' + encodeURIComponent(envelope.id))
    .then(function (response) {
      showEnvelope(response.body, response.headers.get('ETag'));
      return fetch(response.body.signedUrl);
    })
    .then(function (response) {
      if (!response.ok) throw new Error('Blob storage answered ' + response.status + ' for the sealed PDF.');
      return response.arrayBuffer();
    })
    .then(function (bytes) {
      var saved = function () {
        var link = document.createElement('a');
        link.href = URL.createObjectURL(new Blob([bytes], { type: 'application/pdf' }));
        link.download = sealedFileName(state.envelope.documentName);
        document.body.appendChild(link);
        link.click();
        link.remove();
        setTimeout(function () { URL.revokeObjectURL(link.href); }, 60000);
      };
      if (!window.crypto || !window.crypto.subtle) {
        saved();
        showStatus('Downloaded. This page is not a secure context, so it cannot compute the SHA-256: compare with sha256sum.');
        return;
      }
      return window.crypto.subtle.digest('SHA-256', bytes).then(function (digest) {
        var hex = Array.prototype.map.call(new Uint8Array(digest), function (byte) { return byte.toString(16).padStart(2, '0'); }).join('');
        var matches = hex === state.envelope.hash;
        $('download-hash').textContent = hex;
        $('download-verdict').textContent = matches ? 'matches the API.' : 'does NOT match the API.';
        $('download-verdict').className = matches ? 'ok' : 'bad';
        $('download-result').hidden = false;
        saved();
        showStatus(matches ? 'Downloaded the sealed PDF; its SHA-256 matches.' : 'Downloaded, but the SHA-256 differs from the API\'s.');
      });
    });
}

/**
 * @param {string} documentName
 */
function sealedFileName(documentName) {
  return documentName.replace(/\.pdf$/i, '') + '-sealed.pdf';
}

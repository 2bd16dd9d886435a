// @ts-check
// API keys: create one (its secret shown once, with a copy button), list them, delete one.
import { $, action, api, copyText, formatTime, showStatus, state } from './consoleSession.js';
/** @typedef {import('./consoleSession.js').Schemas} Schemas */
/** @typedef {import('./consoleSession.js').ApiKey} ApiKey */

export function loadApiKeys() {
  return api('GET', 'apikeys').then(function (response) {
    state.apiKeys = response.body;
    renderApiKeys();
  });
}

function renderApiKeys() {
  var rows = $('apikey-rows');
  rows.textContent = '';
  state.apiKeys.forEach(function (key) {
    var row = document.createElement('tr');
    var name = document.createElement('th');
    name.scope = 'row';
    name.textContent = key.name;
    row.appendChild(name);
    var prefix = document.createElement('td');
    var code = document.createElement('code');
    code.textContent = key.prefix + '…';
    prefix.appendChild(code);
    row.appendChild(prefix);
    [key.createdAt, key.lastUsedAt, key.expiresAt].forEach(function (time, index) {
      var cell = document.createElement('td');
      cell.textContent = time === null ? (index === 1 ? 'never used' : 'never') : formatTime(time);
      if (index === 2 && time !== null && Date.parse(time) <= Date.now()) cell.textContent += ' (expired)';
      row.appendChild(cell);
    });
    var actions = document.createElement('td');
    actions.className = 'actions';
    renderApiKeyDelete(actions, key);
    row.appendChild(actions);
    rows.appendChild(row);
  });
  $('apikey-table').hidden = state.apiKeys.length === 0;
  $('apikeys-empty').hidden = state.apiKeys.length > 0;
}

/**
 * The row's Delete button; a first press asks for confirmation in place, the second deletes.
 * @param {HTMLElement} cell
 * @param {ApiKey} key
 */
function renderApiKeyDelete(cell, key) {
  cell.textContent = '';
  var remove = document.createElement('button');
  remove.type = 'button';
  remove.className = 'secondary danger-text';
  remove.textContent = 'Delete';
  remove.setAttribute('aria-label', 'Delete the API key ' + key.name);
  remove.addEventListener('click', function () {
    cell.textContent = '';
    var question = document.createElement('span');
    question.className = 'confirm-question';
    question.textContent = 'Delete “' + key.name + '”? Servers using it stop working.';
    var confirm = document.createElement('button');
    confirm.type = 'button';
    confirm.className = 'danger';
    confirm.textContent = 'Delete key';
    confirm.addEventListener('click', action(confirm, function () { return deleteApiKey(key); }));
    var cancel = document.createElement('button');
    cancel.type = 'button';
    cancel.className = 'secondary';
    cancel.textContent = 'Cancel';
    cancel.addEventListener('click', function () { renderApiKeyDelete(cell, key); cell.querySelector('button').focus(); });
    cell.appendChild(question);
    cell.appendChild(confirm);
    cell.appendChild(cancel);
    cancel.focus();
  });
  cell.appendChild(remove);
}

export function addApiKey() {
  /** @type {Schemas['CreateApiKeyRequest']} */
  var body = { name: $('apikey-name').value };
  var days = $('apikey-expiry').value;
  if (days !== '') body.expiresAt = new Date(Date.now() + Number(days) * 86400000).toISOString();
  return api('POST', 'apikeys', { json: body }).then(function (response) {
    $('apikey-form').reset();
    $('apikey-secret-value').textContent = response.body.key;
    $('apikey-copied').textContent = '';
    $('apikey-secret').hidden = false;
    $('copy-apikey').focus();
    showStatus('API key “' + response.body.name + '” created. Copy it now: it is not shown again.');
    return loadApiKeys();
  });
}

export function hideApiKeySecret() {
  $('apikey-secret-value').textContent = '';
  $('apikey-secret').hidden = true;
}

/** Copies the new key. */
export function copyApiKey() {
  copyText($('apikey-secret-value'), $('apikey-copied'), 'key');
}

/**
 * @param {ApiKey} key
 */
function deleteApiKey(key) {
  return api('DELETE', 'apikeys/' + encodeURIComponent(key.id)).then(function () {
    showStatus('API key “' + key.name + '” deleted. Every instance of the service refuses it within a minute.');
    return loadApiKeys();
  });
}


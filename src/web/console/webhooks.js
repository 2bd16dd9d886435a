// @ts-check
// Webhooks: add one (its secret shown once), list them with their deliveries, delete one.
import { $, action, api, formatTime, showStatus, state, statusBadge } from './consoleSession.js';
/** @typedef {import('./consoleSession.js').Schemas} Schemas */
/** @typedef {import('./consoleSession.js').Webhook} Webhook */

// Every event type a webhook may subscribe to (docs/api.md#webhooks), in the API's order;
// tests/unit/notifications/consoleWebhookEvents.test.ts keeps it equal to the service's list.
var WEBHOOK_EVENTS = [
  'envelope.sent', 'envelope.completed', 'envelope.declined', 'envelope.voided', 'envelope.expired', 'envelope.purged',
  'recipient.opened', 'recipient.signed', 'recipient.approved', 'recipient.viewed', 'recipient.declined', 'recipient.reassigned',
  'bulk.completed',
];

export function renderEventChoices() {
  var list = $('webhook-events');
  WEBHOOK_EVENTS.forEach(function (name, index) {
    var line = document.createElement('div');
    line.className = 'check-line';
    var input = document.createElement('input');
    input.type = 'checkbox';
    input.id = 'webhook-event-' + index;
    input.value = name;
    input.checked = true;
    input.disabled = true;
    var label = document.createElement('label');
    label.htmlFor = input.id;
    label.textContent = name;
    line.appendChild(input);
    line.appendChild(label);
    list.appendChild(line);
  });
}

export function loadWebhooks() {
  return api('GET', 'webhooks').then(function (response) {
    state.webhooks = response.body;
    renderWebhooks();
  });
}

function renderWebhooks() {
  var rows = $('webhook-rows');
  rows.textContent = '';
  state.webhooks.forEach(function (webhook) {
    var row = document.createElement('tr');
    var address = document.createElement('th');
    address.scope = 'row';
    address.textContent = webhook.url;
    if (webhook.description) {
      var description = document.createElement('span');
      description.className = 'hint reason';
      description.textContent = webhook.description;
      address.appendChild(description);
    }
    row.appendChild(address);
    var events = document.createElement('td');
    events.textContent = webhook.events.length === WEBHOOK_EVENTS.length ? 'all events' : webhook.events.join(', ');
    row.appendChild(events);
    var created = document.createElement('td');
    created.textContent = formatTime(webhook.createdAt);
    row.appendChild(created);
    var actions = document.createElement('td');
    actions.className = 'actions';
    var deliveries = document.createElement('button');
    deliveries.type = 'button';
    deliveries.className = 'secondary';
    deliveries.textContent = 'Deliveries';
    deliveries.setAttribute('aria-label', 'Deliveries of ' + webhook.url);
    deliveries.addEventListener('click', action(deliveries, function () { return showDeliveries(webhook, true); }));
    var remove = document.createElement('button');
    remove.type = 'button';
    remove.className = 'secondary danger-text';
    remove.textContent = 'Delete';
    remove.setAttribute('aria-label', 'Delete the webhook ' + webhook.url);
    remove.addEventListener('click', action(remove, function () { return deleteWebhook(webhook); }));
    actions.appendChild(deliveries);
    actions.appendChild(remove);
    row.appendChild(actions);
    rows.appendChild(row);
  });
  $('webhook-table').hidden = state.webhooks.length === 0;
  $('webhooks-empty').hidden = state.webhooks.length > 0;
}

export function addWebhook() {
  /** @type {Schemas['CreateWebhookRequest']} */
  var body = { url: $('webhook-url').value.trim() };
  var description = $('webhook-description').value.trim();
  if (description !== '') body.description = description;
  if (!$('webhook-all-events').checked) {
    body.events = Array.prototype.filter.call($('webhook-events').querySelectorAll('input'), function (input) { return input.checked; })
      .map(function (input) { return input.value; });
  }
  return api('POST', 'webhooks', { json: body }).then(function (response) {
    $('webhook-form').reset();
    setAllEvents(true);
    $('webhook-secret-value').textContent = response.body.secret;
    $('webhook-secret').hidden = false;
    showStatus('Webhook added for ' + response.body.url + '. Copy its secret now: it is not shown again.');
    return loadWebhooks();
  });
}

/**
 * @param {boolean} all
 */
export function setAllEvents(all) {
  $('webhook-all-events').checked = all;
  $('webhook-events').querySelectorAll('input').forEach(function (input) {
    input.disabled = all;
    if (all) input.checked = true;
  });
}

/**
 * @param {Webhook} webhook
 */
function deleteWebhook(webhook) {
  return api('DELETE', 'webhooks/' + encodeURIComponent(webhook.id)).then(function () {
    if ($('deliveries').dataset.webhookId === webhook.id) $('deliveries').hidden = true;
    showStatus('Webhook ' + webhook.url + ' deleted.');
    return loadWebhooks();
  });
}

/**
 * @param {Webhook} webhook
 * @param {boolean} [focus]
 */
function showDeliveries(webhook, focus) {
  return api('GET', 'webhooks/' + encodeURIComponent(webhook.id) + '/deliveries').then(function (response) {
    var card = $('deliveries');
    card.hidden = false;
    card.dataset.webhookId = webhook.id;
    $('deliveries-heading').textContent = 'Deliveries to ' + webhook.url;
    var rows = $('delivery-rows');
    rows.textContent = '';
    response.body.forEach(function (/** @type {Schemas['WebhookDeliveryAttempt']} */ delivery) {
      var row = document.createElement('tr');
      var event = document.createElement('th');
      event.scope = 'row';
      event.textContent = delivery.eventType;
      row.appendChild(event);
      [String(delivery.attempt), formatTime(delivery.at)].forEach(function (value) {
        var cell = document.createElement('td');
        cell.textContent = value;
        row.appendChild(cell);
      });
      var outcome = document.createElement('td');
      outcome.appendChild(statusBadge(delivery.outcome));
      row.appendChild(outcome);
      var answer = document.createElement('td');
      answer.textContent = delivery.responseStatus !== null ? 'HTTP ' + delivery.responseStatus : delivery.error || '';
      if (delivery.nextAttemptAt) answer.textContent += ' (next attempt ' + formatTime(delivery.nextAttemptAt) + ')';
      row.appendChild(answer);
      var actionCell = document.createElement('td');
      var again = document.createElement('button');
      again.type = 'button';
      again.className = 'secondary';
      again.textContent = 'Redeliver';
      again.setAttribute('aria-label', 'Redeliver ' + delivery.eventType + ' (attempt ' + delivery.attempt + ')');
      again.addEventListener('click', action(again, function () {
        return api('POST', 'webhooks/' + encodeURIComponent(webhook.id) + '/deliveries/' + encodeURIComponent(delivery.id) + '/redeliver').then(function () {
          showStatus('The event ' + delivery.eventType + ' is queued for delivery again.');
        });
      }));
      actionCell.appendChild(again);
      row.appendChild(actionCell);
      rows.appendChild(row);
    });
    $('delivery-table').hidden = response.body.length === 0;
    $('deliveries-empty').hidden = response.body.length > 0;
    if (focus) $('deliveries-heading').focus();
  });
}

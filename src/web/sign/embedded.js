// @ts-check
// Embedded signing.
// A view opened by the sender's application (/api/sign/v/<viewId>) carries, in <meta name="signing-view">,
// the origins allowed to frame it (the page's Content-Security-Policy frame-ancestors) and where to go
// after acting in a top-level window. Framed, the page tells its parent what happens with
// {source: "envelope-signing", event, envelopeId, recipientId}, posted only to the allowed origins
// (a message to any other origin is dropped by the browser); never the token. Every recipient's page
// posts them, one with an access code or e-mailed codes too (docs/api.md#embedded-signing): its code
// form names only the envelope, so `loaded` then carries `recipientId: null`; the events after the
// code carry the recipient's id.
/** @typedef {import('./signingSession.js').RecipientView} RecipientView */
/** @typedef {import('./signingSession.js').RestrictedRecipientView} RestrictedRecipientView */

/** The view's context, or none (the e-mail link's page). */
function embedContext() {
  const meta = document.querySelector('meta[name="signing-view"]');
  if (meta === null) return { frameAncestors: [], returnUrl: null };
  try {
    const parsed = JSON.parse(meta.getAttribute('content'));
    return {
      frameAncestors: Array.isArray(parsed.frameAncestors) ? parsed.frameAncestors.filter((/** @type {unknown} */ origin) => typeof origin === 'string') : [],
      returnUrl: typeof parsed.returnUrl === 'string' ? parsed.returnUrl : null,
    };
  } catch (ignored) {
    return { frameAncestors: [], returnUrl: null };
  }
}

function isFramed() {
  try { return window.parent !== window; } catch (ignored) { return true; }
}

/**
 * The ids an event names: what the view has (the code form's view names no recipient), else null.
 * @param {RecipientView | RestrictedRecipientView | null} view
 * @returns {{ envelopeId: string | null, recipientId: string | null }}
 */
export function eventIds(view) {
  const envelope = view && view.envelope;
  const recipient = view && 'recipient' in view ? view.recipient : undefined;
  return {
    envelopeId: envelope && typeof envelope.id === 'string' ? envelope.id : null,
    recipientId: recipient && typeof recipient.id === 'string' ? recipient.id : null,
  };
}

/**
 * Posts one event to the parent window, at each allowed origin (only the parent's own receives it).
 * @param {string} event
 * @param {RecipientView | RestrictedRecipientView | null} view
 */
export function notifyParent(event, view) {
  if (!isFramed()) return;
  const ids = eventIds(view);
  const message = { source: 'envelope-signing', event: event, envelopeId: ids.envelopeId, recipientId: ids.recipientId };
  embedContext().frameAncestors.forEach((/** @type {string} */ origin) => {
    try { window.parent.postMessage(message, origin); } catch (ignored) { /* an origin the browser refuses */ }
  });
}

/**
 * After an action: the events for the parent, or, in a top-level window, the view's return URL.
 * @param {RecipientView} view
 */
export function afterEmbeddedAction(view) {
  const event = view.recipient.status;
  if (['signed', 'approved', 'viewed', 'declined'].indexOf(event) < 0) return;
  if (isFramed()) {
    notifyParent(event, view);
    if (view.envelope.status === 'completed') notifyParent('completed', view);
    return;
  }
  const returnUrl = embedContext().returnUrl;
  if (returnUrl === null) return;
  const target = new URL(returnUrl);
  target.searchParams.set('event', event);
  target.searchParams.set('envelopeId', view.envelope.id);
  target.searchParams.set('recipientId', view.recipient.id);
  window.location.assign(target.href);
}

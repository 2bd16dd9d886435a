/**
 * Embedded signing views (docs/api.md#embedded-signing): `POST /api/envelopes/{id}/recipients/{recipientId}/views`
 * lets the owner's application open the signing page for a recipient inside its own product.
 *
 * A view is `<PUBLIC_BASE_URL>/api/sign/v/<viewId>#<token>`. `viewId` is a random UUID, not secret:
 * it names the view's row (table `signingLinks`, PartitionKey `view_<viewId>`, RowKey `view`), which
 * holds what the page may do (the origins allowed to frame it, where to go after acting) and never
 * changes; a view with neither origins nor a return URL has no row, since its page is the same as an
 * unknown view's (framed nowhere, no return URL). The token is a signing token (32 random bytes, base64url, docs/api.md#sending-and-signing-order): the recipient
 * holds only its SHA-256 (`view.tokenSha256`), the `signingLinks` row of that hash leads to it, and the
 * raw token exists only in this endpoint's answer. It works like the recipient's signing link until
 * `EMBED_TOKEN_TTL_SECONDS` after issue; a new view (or a new link: resend) ends the previous one.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { TableClient } from '@azure/data-tables';
import { z } from 'zod';
import type { Config } from '../config.js';
import { Change, commitChange } from '../envelopes/change.js';
import { validationFailed } from '../envelopes/lifecycle.js';
import { hasActed, mustAct, ownerActor, type Actor, type EnvelopeRecord, type Signer } from '../envelopes/model.js';
import { mutateMembersEnvelope } from '../envelopes/mutate.js';
import type { FieldError } from '../errors.js';
import type { Services } from '../services.js';
import { storageStatus } from '../storage/keys.js';
import { isTurn, pendingRecipients } from '../envelopes/routing.js';
import { tokenSha256 } from '../envelopes/signingLinks.js';
import { hasExpired } from './recipientView.js';
import { problem } from '../problems.js';

/** At most this many origins may frame a view (docs/api.md#embedded-signing). */
export const MAX_FRAME_ANCESTORS = 5;
/** Longest `returnUrl`, characters. */
export const MAX_RETURN_URL = 2000;
/** Longest origin in `frameAncestors`, characters. */
export const MAX_ORIGIN = 300;

/** The body of `POST .../views`: the scheme rules depend on a setting and are checked by {@link checkViewRequest}. */
export const createViewRequest = z
  .strictObject({
    returnUrl: z
      .string({ error: 'must be a string' })
      .min(1, 'must not be empty')
      .max(MAX_RETURN_URL, `must be at most ${MAX_RETURN_URL} characters`)
      .optional()
      .meta({
        description:
          'Where the page goes after the recipient acted or declined in a top-level window (not framed), with `?event=signed|approved|viewed|declined&envelopeId=...&recipientId=...` added. ' +
          'An absolute `https:` URL (`http://localhost` and `http://127.0.0.1` only when the service allows private networks, `OUTBOUND_ALLOW_PRIVATE_NETWORKS=true`), without credentials or fragment.',
        examples: ['https://app.example.com/contracts/42/signed'],
      }),
    frameAncestors: z
      .array(z.string({ error: 'must be a string' }).min(1, 'must not be empty').max(MAX_ORIGIN, `must be at most ${MAX_ORIGIN} characters`), { error: 'must be an array of origins' })
      .max(MAX_FRAME_ANCESTORS, `must hold at most ${MAX_FRAME_ANCESTORS} origins`)
      .optional()
      .meta({
        description:
          `Up to ${MAX_FRAME_ANCESTORS} origins (\`https://app.example.com\`: scheme, host and optional port; no path, query, fragment, credentials, wildcard (\`https://*\`, \`https://*.example.com\`), keyword (\`'self'\`) or IPv6 literal, else 400 naming the entry) allowed to show the page in a frame: its Content-Security-Policy \`frame-ancestors\`. ` +
          'Omitted or empty: the page cannot be framed (`frame-ancestors \'none\'`). `https:` only (`http://localhost` and `http://127.0.0.1` origins only when `OUTBOUND_ALLOW_PRIVATE_NETWORKS=true`).',
        examples: [['https://app.example.com']],
      }),
  })
  .meta({ id: 'CreateViewRequest', description: 'Options of an embedded signing view.' });
export type CreateViewRequest = z.infer<typeof createViewRequest>;

/** What the page of a view may do: stored once with the view, never changed. */
export interface EmbeddedViewRecord {
  viewId: string;
  ownerId: string;
  envelopeId: string;
  recipientId: string;
  /** Origins allowed to frame the page (`[]`: none). */
  frameAncestors: string[];
  returnUrl: string | null;
  /** ISO 8601 UTC with milliseconds. */
  expiresAt: string;
}

const VIEW_ROW_KEY = 'view';

/**
 * The views' rows in table `signingLinks` (PartitionKey `view_<viewId>`, RowKey `view`), beside the
 * token rows (PartitionKey: a token's SHA-256), which never collide with them.
 */
export class EmbeddedViewRepository {
  constructor(private readonly table: TableClient) {}

  async save(view: EmbeddedViewRecord): Promise<void> {
    await this.table.upsertEntity(
      {
        partitionKey: `view_${view.viewId}`,
        rowKey: VIEW_ROW_KEY,
        ownerId: view.ownerId,
        envelopeId: view.envelopeId,
        recipientId: view.recipientId,
        frameAncestors: view.frameAncestors.join(' '),
        returnUrl: view.returnUrl ?? '',
        expiresAt: view.expiresAt,
      },
      'Replace',
    );
  }

  /** The view with this id, or `null` (unknown, or not a UUID). */
  async find(viewId: string): Promise<EmbeddedViewRecord | null> {
    if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(viewId)) return null;
    try {
      const entity = await this.table.getEntity<{ ownerId: string; envelopeId: string; recipientId: string; frameAncestors: string; returnUrl: string; expiresAt: string }>(
        `view_${viewId}`,
        VIEW_ROW_KEY,
      );
      return {
        viewId,
        ownerId: entity.ownerId,
        envelopeId: entity.envelopeId,
        recipientId: entity.recipientId,
        frameAncestors: entity.frameAncestors === '' ? [] : entity.frameAncestors.split(' '),
        returnUrl: entity.returnUrl === '' ? null : entity.returnUrl,
        expiresAt: entity.expiresAt,
      };
    } catch (error) {
      if (storageStatus(error) === 404) return null;
      throw error;
    }
  }
}

/** A new view's answer (docs/api.md#embedded-signing): the only place its token ever appears. */
export interface CreatedView {
  url: string;
  expiresAt: string;
}

export interface CreateViewOptions {
  services: Services;
  actor: Actor;
  envelopeId: string;
  recipientId: string;
  request: CreateViewRequest;
  now?: () => Date;
  log?: (message: string) => void;
}

/**
 * Opens an embedded signing view for a recipient whose turn it is: a new token valid
 * `EMBED_TOKEN_TTL_SECONDS`, the previous view ended, `recipient.view_created` `{recipientId}` with the
 * owner as actor. The token's and the view's rows are written with the envelope (both before the
 * answer), so the URL works as soon as it is returned.
 * @returns the view's URL (`<PUBLIC_BASE_URL>/api/sign/v/<viewId>#<token>`) and when its token expires
 * @throws AppError 404 (`envelope-not-found`, `recipient-not-found`); 400 `validation-failed` for
 *   origins or a return URL that break the scheme rules; 409 `not-a-signing-role` (cc),
 *   `envelope-not-sent` (draft), `envelope-closed`, `already-acted`, `not-your-turn`
 */
export async function createView({ services, actor, envelopeId, recipientId, request, now = () => new Date(), log }: CreateViewOptions): Promise<CreatedView> {
  const allowPrivate = services.config.outboundAllowPrivateNetworks;
  const { frameAncestors, returnUrl } = checkViewRequest(request, allowPrivate);
  const token = randomBytes(32).toString('base64url');
  const hash = tokenSha256(token);
  const viewId = randomUUID();
  // The token's and the view's rows, written once, beside the envelope's transaction: until the
  // envelope names the token, the rows lead nowhere (the token is refused), so they need not come first.
  let rows: Promise<unknown> | null = null;
  return await mutateMembersEnvelope(services, actor, envelopeId, async (stored) => {
    const record = stored.record;
    const recipient = record.signers.find((signer) => signer.id === recipientId);
    if (recipient === undefined) throw problem('recipientNotFound');
    const at = now();
    assertViewable(record, recipient, at);

    const expiresAt = new Date(at.getTime() + services.config.embedTokenTtlSeconds * 1000).toISOString();
    // A view without options needs no row of its own (its page is an unknown view's): one write fewer.
    const hasOptions = frameAncestors.length > 0 || returnUrl !== null;
    rows ??= Promise.all([
      services.signingLinks.ensure({ tokenSha256: hash, ownerId: record.ownerId, envelopeId: record.id, recipientId }),
      hasOptions ? new EmbeddedViewRepository(services.storage.tables.signingLinks).save({ viewId, ownerId: record.ownerId, envelopeId: record.id, recipientId, frameAncestors, returnUrl, expiresAt }) : null,
    ]);
    const change = new Change(record, at);
    const signer = change.signer(recipientId);
    signer.view = { id: viewId, tokenSha256: hash, expiresAt };
    change.event('recipient.view_created', ownerActor(actor), { recipientId });
    await Promise.all([rows, commitChange(services, stored, change, log === undefined ? {} : { log })]);
    return { url: viewUrl(services.config, viewId, token), expiresAt };
  });
}

/** `<PUBLIC_BASE_URL>/api/sign/v/<viewId>#<token>`: the token in the fragment, which browsers never send. */
export function viewUrl(config: Pick<Config, 'publicBaseUrl'>, viewId: string, token: string): string {
  return `${config.publicBaseUrl}/api/sign/v/${viewId}#${token}`;
}

/**
 * The checks of docs/api.md#embedded-signing, in the order of §11.4 (role, envelope status, already acted, turn).
 * @throws AppError 409 as {@link createView}
 */
function assertViewable(record: EnvelopeRecord, recipient: Signer, now: Date): void {
  if (!mustAct(recipient)) {
    throw problem('notASigningRole');
  }
  if (record.status === 'draft') {
    throw problem('envelopeNotSent');
  }
  if (record.status !== 'sent') throw problem('envelopeClosed', { detail: `The envelope is ${record.status}; nothing more can be signed.` });
  if (hasExpired(record, now)) throw problem('envelopeClosed', { detail: `The envelope is expired (it expired at ${record.expiresAt}); nothing more can be signed.` });
  if (hasActed(recipient)) throw problem('alreadyActed', { detail: `This recipient has already acted (${recipient.status}).` });
  if (recipient.status === 'waiting' || !isTurn(record, recipient)) {
    const first = pendingRecipients(record).filter((other) => other.routingOrder < recipient.routingOrder);
    throw problem('notYourTurn', { detail: `It is not this recipient's turn yet: waiting for ${first.map((other) => `${other.name} (${other.role})`).join(', ') || 'an earlier recipient'}.` });
  }
}

/**
 * The scheme rules of docs/api.md#embedded-signing for `frameAncestors` and `returnUrl`: `https:`, or `http:` on
 * `localhost` / `127.0.0.1` when private networks are allowed (`OUTBOUND_ALLOW_PRIVATE_NETWORKS`).
 * @returns the origins as serialized by the URL standard (lower-case host, default port dropped), and the return URL
 * @throws AppError 400 `validation-failed` naming each refused entry
 */
export function checkViewRequest(request: CreateViewRequest, allowPrivate: boolean): { frameAncestors: string[]; returnUrl: string | null } {
  const errors: FieldError[] = [];
  const frameAncestors: string[] = [];
  (request.frameAncestors ?? []).forEach((value, index) => {
    const parsed = parseOrigin(value, allowPrivate);
    if ('refused' in parsed) errors.push({ path: `frameAncestors.${index}`, message: parsed.refused });
    else if (!frameAncestors.includes(parsed.origin)) frameAncestors.push(parsed.origin);
  });
  let returnUrl: string | null = null;
  if (request.returnUrl !== undefined) {
    const url = parseAllowedUrl(request.returnUrl, allowPrivate);
    if (typeof url === 'string') errors.push({ path: 'returnUrl', message: url });
    else if (url.hash !== '') errors.push({ path: 'returnUrl', message: 'must not have a fragment' });
    else returnUrl = url.href;
  }
  if (errors.length > 0) throw validationFailed(errors);
  return { frameAncestors, returnUrl };
}

/** `scheme://host[:port]`, optionally with a trailing `/`, as typed: nothing else may be in an origin. */
const ORIGIN_FORM = /^[a-z][a-z0-9+.-]*:\/\/[^/?#@\\\s:]+(?::[0-9]{1,5})?\/?$/i;
/** A host name as CSP's `host-source` takes it (letters, digits, hyphens; labels of 1 to 63; no wildcard, no trailing dot). */
const HOST_NAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

/**
 * An entry of `frameAncestors` as the origin that goes into the page's `frame-ancestors` (serialized
 * by the URL standard: lower-case host, punycode, default port dropped), or why it is refused (a
 * sentence for the 400). Only a
 * plain origin passes: no wildcard (`https://*`, `https://*.example`), keyword (`'self'`), path,
 * query, fragment, credentials or IPv6 literal, which `frame-ancestors` would read as more than one
 * origin or not at all (docs/api.md#embedded-signing).
 */
export function parseOrigin(value: string, allowPrivate: boolean): { origin: string } | { refused: string } {
  if (value.includes('*')) return { refused: 'must be an origin without a wildcard (*)' };
  if (!ORIGIN_FORM.test(value)) return { refused: 'must be an origin (scheme, host and optional port), without a path, query, fragment, credentials or spaces' };
  const url = parseAllowedUrl(value, allowPrivate);
  if (typeof url === 'string') return { refused: url };
  if (!HOST_NAME.test(url.hostname)) return { refused: 'must name a host (letters, digits, hyphens and dots) or an IPv4 address, without a wildcard, quotes or IPv6 literal' };
  if (url.port === '0') return { refused: 'must not name port 0' };
  return { origin: url.origin };
}

/** The URL, or why it is refused. */
function parseAllowedUrl(value: string, allowPrivate: boolean): URL | string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.username !== '' || url.password !== '') return 'must not carry credentials';
  if (url.protocol === 'https:') return url;
  const loopback = url.hostname === 'localhost' || url.hostname === '127.0.0.1';
  if (url.protocol === 'http:' && loopback && allowPrivate) return url;
  return allowPrivate ? 'must be https: (or http://localhost, http://127.0.0.1)' : 'must be https:';
}

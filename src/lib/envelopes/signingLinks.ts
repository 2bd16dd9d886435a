/**
 * Signing links (docs/api.md#sending-and-signing-order): `<PUBLIC_BASE_URL>/api/sign#<token>`, the token 32 bytes in
 * base64url (43 characters), carried in the URL fragment so that it never reaches a server's logs or
 * a `Referer`.
 *
 * No raw token is ever stored. Each link has a random 32-byte salt, kept on the recipient; the token
 * is HMAC-SHA256 of that salt under a key derived from `JWT_SECRET` (HKDF, RFC 5869), so only this
 * service can turn a salt into a token: an outbox row carries the salt, and the e-mail sender derives
 * the token when it writes the e-mail. Tokens are looked up by their SHA-256 (table `signingLinks`,
 * PartitionKey = that hash, RowKey `link`), which names the envelope and recipient; the recipient's
 * current `tokenSha256` on the envelope decides whether the link still works (resend replaces it).
 * Rotating `JWT_SECRET` therefore also invalidates every signing link in flight.
 */
import { createHash, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import type { TableClient } from '@azure/data-tables';
import { storageStatus } from '../storage/keys.js';

/** A new link salt: 32 random bytes, base64url. */
export function newLinkSalt(): string {
  return randomBytes(32).toString('base64url');
}

/** The key that turns salts into tokens: HKDF-SHA256 of the JWT key, info `signing-links`, 32 bytes. */
export function signingLinkKey(jwtSecret: Uint8Array): Uint8Array {
  return new Uint8Array(hkdfSync('sha256', jwtSecret, new Uint8Array(0), 'envelope-signing/signing-links/v1', 32));
}

/** The token of a link: base64url of HMAC-SHA256(key, salt), 43 characters. */
export function signingToken(key: Uint8Array, salt: string): string {
  return createHmac('sha256', key).update(salt, 'utf8').digest('base64url');
}

/** Lower-case hex SHA-256 of a token: how tokens are stored and looked up. */
export function tokenSha256(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Whether a string has the shape of a token (43 base64url characters). */
export function looksLikeSigningToken(value: string): boolean {
  return /^[A-Za-z0-9_-]{43}$/.test(value);
}

/** The absolute signing link for a token: `<publicBaseUrl>/api/sign#<token>`. */
export function signingUrl(publicBaseUrl: string, token: string): string {
  return `${publicBaseUrl}/api/sign#${token}`;
}

/** Where a signing link leads. */
export interface SigningLinkRecord {
  tokenSha256: string;
  ownerId: string;
  envelopeId: string;
  recipientId: string;
}

const ROW_KEY = 'link';

/** Links remembered per instance: a row never changes once written, so remembering it is always right. */
const REMEMBERED_LINKS = 10_000;

/**
 * Table `signingLinks`: token hash → envelope and recipient. A row never changes once written
 * (whether the link still works is decided by the recipient's current token hash on the envelope),
 * so each instance remembers up to {@link REMEMBERED_LINKS} rows it found and answers repeated
 * requests of a recipient with one storage read (the envelope's) instead of two.
 */
export class SigningLinkRepository {
  private readonly remembered = new Map<string, SigningLinkRecord>();

  constructor(private readonly table: TableClient) {}

  /**
   * Records where a token leads; idempotent. Written before any e-mail carrying the token is sent,
   * so a link that reaches a person always resolves.
   */
  async ensure(link: SigningLinkRecord): Promise<void> {
    await this.table.upsertEntity(
      { partitionKey: link.tokenSha256, rowKey: ROW_KEY, ownerId: link.ownerId, envelopeId: link.envelopeId, recipientId: link.recipientId },
      'Replace',
    );
  }

  /** The link with this token hash, or `null`. */
  async find(tokenSha256: string): Promise<SigningLinkRecord | null> {
    const known = this.remembered.get(tokenSha256);
    if (known !== undefined) return known;
    try {
      const entity = await this.table.getEntity<{ ownerId: string; envelopeId: string; recipientId: string }>(tokenSha256, ROW_KEY);
      const link = { tokenSha256, ownerId: entity.ownerId, envelopeId: entity.envelopeId, recipientId: entity.recipientId };
      // Oldest first out: a Map iterates in insertion order.
      if (this.remembered.size >= REMEMBERED_LINKS) this.remembered.delete(this.remembered.keys().next().value!);
      this.remembered.set(tokenSha256, link);
      return link;
    } catch (error) {
      if (storageStatus(error) === 404) return null;
      throw error;
    }
  }
}

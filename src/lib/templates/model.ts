/**
 * Templates (docs/api.md#templates): a document with roles instead of people and fields placed by role,
 * from which envelopes are made. As stored (`storage/templateRepository.ts`) and as responses show it.
 */
import type { EnvelopeDocument, EnvelopeDocumentView, Field, Output, SignerRole, SigningOrder } from '../envelopes/model.js';
import { DEFAULT_LOCALE, type Locale } from '../i18n/locales.js';

export const TEMPLATE_STATUSES = ['draft', 'active'] as const;
export type TemplateStatus = (typeof TEMPLATE_STATUSES)[number];

/**
 * Who may use a template besides its creator (docs/api.md#templates-shared-in-an-organization):
 * `private` (default: its creator, and the organisation's admins and owner; viewers read it) or
 * `organization` (every sender of the organisation lists and uses it too).
 */
export const TEMPLATE_VISIBILITIES = ['private', 'organization'] as const;
export type TemplateVisibility = (typeof TEMPLATE_VISIBILITIES)[number];

/** A role of the template ("Client", "Landlord"): at use, one recipient takes it. */
export interface TemplateRole {
  id: string;
  /** 1 to 100 characters, unique in the template (case-insensitive). */
  name: string;
  role: SignerRole;
  /** 1 to 100, as a signer's (docs/api.md#the-envelope, docs/api.md#sending-and-signing-order). */
  routingOrder: number;
}

/**
 * A field of a template: an envelope field (docs/api.md#fields, docs/api.md#field-types-and-their-values) that names a role (`roleId`)
 * instead of a recipient; at use it becomes a field of that role's recipient.
 */
export type TemplateField = Omit<Field, 'recipientId'> & { roleId: string };

/** Everything stored about a template. */
export interface TemplateRecord {
  /** UUID v7 (time-ordered: lists are newest first). */
  id: string;
  /** The member who made it (its partition); it stays theirs whoever changes it. */
  ownerId: string;
  /** The creator's address when it was made; `null` for a template made before addresses were recorded with templates. */
  ownerEmail: string | null;
  name: string;
  status: TemplateStatus;
  /** `private` for a template made before visibility existed. */
  visibility: TemplateVisibility;
  /** The first document's name (docs/api.md#documents-of-a-template). */
  documentName: string;
  /** The first document's blob: `<templateId>/<documentName>` (`<templateId>/<documentId>/<filename>` for one added), the upload in container `templates`, the frozen copy in `originals`. */
  blobName: string;
  /** Lower-case hex SHA-256 of the first document's frozen copy; `null` while `draft`. */
  documentSha256: string | null;
  /** Pages of the first document's frozen copy; `null` while `draft`. */
  pageCount: number | null;
  /**
   * Every document, in order (docs/api.md#documents-of-a-template), as an envelope holds them
   * (`envelopes/documents.ts`); absent on a template that never had more than its first.
   */
  documents?: EnvelopeDocument[];
  /** What envelopes made from it seal (docs/api.md#several-documents): `separate` (default) or `combined`. */
  output: Output;
  roles: TemplateRole[];
  fields: TemplateField[];
  signingOrder: SigningOrder;
  remindEveryDays: number | null;
  /** An envelope made from it expires this many days after its send, unless the use names `expiresAt`; `null`: the service default. */
  expiresInDays: number | null;
  /** The language of envelopes made from it (docs/languages.md), default `en`. */
  locale: Locale;
  createdAt: string;
  updatedAt: string;
  /** Its public link (docs/api.md#public-links), `null` when it never had one. */
  publicLink: PublicLinkSettings | null;
  /** Counts every change, from 1; the ETag is derived from it. */
  version: number;
}

/** A fixed recipient of a public link: the person who takes one of the roles besides the open one. */
export interface PublicLinkRecipient {
  roleName: string;
  email: string;
  name: string;
}

/**
 * A template's public link as stored (docs/api.md#public-links): whoever opens
 * `<PUBLIC_BASE_URL>/api/sign/t/<publicId>` takes the role `roleName`; every other role goes to its
 * fixed recipient. The uses are counted on the link's own row (`storage/publicLinkRepository.ts`).
 */
export interface PublicLinkSettings {
  enabled: boolean;
  /** 22 random base64url characters (16 bytes); a new one each time the link is enabled, `null` while disabled. */
  publicId: string | null;
  /** The open role's name, as the template spells it. */
  roleName: string;
  /** Envelopes the link may make in all; `null`: no limit. */
  maxUses: number | null;
  /** After this instant (ISO 8601) the link answers 410 `link-expired`; `null`: never. */
  expiresAt: string | null;
  recipients: PublicLinkRecipient[];
}

/** The public link in a template's responses: its settings and its URL (`null` while disabled). */
export interface PublicLinkView {
  enabled: boolean;
  url: string | null;
  /** Envelopes made through the current URL (counted against `maxUses`); `null` while disabled. */
  uses: number | null;
  roleName: string;
  maxUses: number | null;
  expiresAt: string | null;
  recipients: PublicLinkRecipient[];
}

/**
 * The template in every response (docs/api.md#templates): the record without what only the service
 * needs (its blob name and version), with a URL to read its document.
 */
export interface TemplateView extends Omit<TemplateRecord, 'blobName' | 'version' | 'publicLink' | 'documents'> {
  /** docs/api.md#public-links; `null` when the template never had a public link. */
  publicLink: PublicLinkView | null;
  /** Read-only SAS URL of the first document (the upload while `draft`, the frozen copy once active), valid 15 minutes. */
  documentUrl: string;
  /** Every document in order, as an envelope shows them (docs/api.md#documents-of-a-template). */
  documents: EnvelopeDocumentView[];
}

/** What {@link newTemplateContent} gives a new template. */
export type NewTemplateContent = Pick<TemplateRecord, 'visibility' | 'documentSha256' | 'pageCount' | 'roles' | 'fields' | 'signingOrder' | 'remindEveryDays' | 'expiresInDays' | 'locale' | 'publicLink' | 'output'>;

/**
 * What a new `draft` template holds besides its name and document (docs/api.md#templates): `private`,
 * no hash or page count until it is activated, no roles or fields, `parallel` order, no reminders,
 * the service's expiry, English, no public link, `separate` output. A fresh object each call, so that no two records share a list.
 */
export function newTemplateContent(): NewTemplateContent {
  return { visibility: 'private', documentSha256: null, pageCount: null, roles: [], fields: [], signingOrder: 'parallel', remindEveryDays: null, expiresInDays: null, locale: DEFAULT_LOCALE, publicLink: null, output: 'separate' };
}

/** The strong ETag of a template version (RFC 9110 §8.8.3). */
export function templateETag(record: Pick<TemplateRecord, 'version'>): string {
  return `"${record.version}"`;
}

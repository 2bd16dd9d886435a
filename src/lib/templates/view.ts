/**
 * Showing a template (docs/api.md#templates).
 */
import { AppError } from '../errors.js';
import { fieldsWithDocuments } from '../envelopes/documents.js';
import { documentUrl, toDocumentViews } from '../envelopes/view.js';
import type { Services } from '../services.js';
import type { PublicLinkSettings, PublicLinkView, TemplateRecord, TemplateView } from './model.js';
import { problem } from '../problems.js';

export function templateNotFound(): AppError {
  return problem('templateNotFound');
}

/**
 * The response shapes of `records`, templates of the organisation `organizationId`, in their order:
 * `documentUrl` and each of `documents` a read-only SAS valid 15 minutes (`envelopes/view.ts`), of
 * the upload (container `templates`) while `draft`, of the frozen copy (`originals`) once active; `ownerEmail` as recorded
 * at creation, or, for a template made before addresses were recorded with templates, its creator's
 * address among the organisation's members (one read of them, only then).
 */
export async function toTemplateViews(services: Pick<Services, 'storage' | 'organizations' | 'config' | 'publicLinks'>, organizationId: string, records: readonly TemplateRecord[]): Promise<TemplateView[]> {
  let members: Map<string, string> | undefined;
  if (records.some((record) => record.ownerEmail === null)) {
    members = new Map((await services.organizations.members(organizationId)).map((member) => [member.userId, member.email]));
  }
  return await Promise.all(records.map(async (record) => await toTemplateView(record, services, record.ownerEmail ?? members?.get(record.ownerId) ?? null)));
}

/** One template's response shape ({@link toTemplateViews}). */
export async function templateView(services: Pick<Services, 'storage' | 'organizations' | 'config' | 'publicLinks'>, organizationId: string, record: TemplateRecord): Promise<TemplateView> {
  return (await toTemplateViews(services, organizationId, [record]))[0]!;
}

async function toTemplateView(record: TemplateRecord, services: Pick<Services, 'storage' | 'config' | 'publicLinks'>, ownerEmail: string | null): Promise<TemplateView> {
  const { sas } = services.storage;
  const [firstUrl, documents, uses] = await Promise.all([documentUrl(sas, record, 'templates'), toDocumentViews(record, sas, 'templates'), publicLinkUses(services, record.publicLink)]);
  return {
    id: record.id,
    ownerId: record.ownerId,
    ownerEmail,
    name: record.name,
    status: record.status,
    visibility: record.visibility,
    documentName: record.documentName,
    documentUrl: firstUrl,
    documentSha256: record.documentSha256,
    pageCount: record.pageCount,
    documents,
    roles: record.roles,
    fields: fieldsWithDocuments(record),
    signingOrder: record.signingOrder,
    remindEveryDays: record.remindEveryDays,
    expiresInDays: record.expiresInDays,
    locale: record.locale,
    publicLink: publicLinkView(record.publicLink, services.config.publicBaseUrl, uses),
    output: record.output,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
  };
}

/** The URL of a public link (docs/api.md#public-links): `<PUBLIC_BASE_URL>/api/sign/t/<publicId>`. */
export function publicLinkUrl(publicBaseUrl: string, publicId: string): string {
  return `${publicBaseUrl}/api/sign/t/${publicId}`;
}

/**
 * How many envelopes the link's current URL has made (docs/api.md#public-links): the counter on its
 * row in table `publicLinks`, one point read; `null` while the link is disabled (or never existed).
 */
async function publicLinkUses(services: Pick<Services, 'publicLinks'>, link: PublicLinkSettings | null): Promise<number | null> {
  if (link === null || !link.enabled || link.publicId === null) return null;
  return (await services.publicLinks.read(link.publicId))?.uses ?? 0;
}

/** A template's public link as responses show it (docs/api.md#public-links): no `publicId` of its own, the URL instead. */
function publicLinkView(link: PublicLinkSettings | null, publicBaseUrl: string, uses: number | null): PublicLinkView | null {
  if (link === null) return null;
  return {
    enabled: link.enabled,
    url: link.enabled && link.publicId !== null ? publicLinkUrl(publicBaseUrl, link.publicId) : null,
    uses,
    roleName: link.roleName,
    maxUses: link.maxUses,
    expiresAt: link.expiresAt,
    recipients: link.recipients,
  };
}

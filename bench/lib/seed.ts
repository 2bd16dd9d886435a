/**
 * Benchmark data, written straight through the repositories (setup, not measured): users with a
 * known password and tokens, an owner with 100 envelopes, an owner with 10,000, other owners beside
 * them, accounts for the login storm, an owner for the webhook burst, and (for the signing GET) one
 * of the small owner's envelopes sent to a signer through the owner's own update. The small owner
 * owns an organisation with an admin in it (the admin's hot read); for the organisation's list, two
 * more organisations of many members each (docs/api.md#what-members-share). Every envelope of those
 * organisations is in its organisation's index (`OrganizationIndex.addMany`), as the service
 * writes it when it makes an envelope.
 */
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { issueAccessToken } from '../../src/lib/auth/jwt.js';
import { hashPassword } from '../../src/lib/auth/password.js';
import { newSigner, type Actor, type AuditEvent, type EnvelopeRecord } from '../../src/lib/envelopes/model.js';
import { newDraftEnvelope } from '../../src/lib/envelopes/createUpload.js';
import { uuidv7 } from '../../src/lib/ids.js';
import { createApiKey } from '../../src/lib/auth/apiKeys.js';
import { tokenSha256 } from '../../src/lib/envelopes/signingLinks.js';
import type { Services } from '../../src/lib/services.js';
import { sentEnvelopeWithFields } from './sentEnvelope.js';

export interface SeededUser {
  userId: string;
  email: string;
  password: string;
  /** A valid access token for the user. */
  token: string;
}

export interface SeedPlan {
  /** Envelopes of the small owner (the list's 100 case; the hot read reads one of them). */
  smallOwnerEnvelopes: number;
  /** Envelopes of the large owner (the list's 10,000 case). */
  largeOwnerEnvelopes: number;
  /** Other owners, each with {@link otherOwnerEnvelopes} envelopes, so the table holds more than the two. */
  otherOwners: number;
  otherOwnerEnvelopes: number;
  /** Accounts for the login storm (one per concurrent login, so the per-account throttle never trips). */
  loginUsers: number;
  /**
   * Owners with no envelopes, for suites that create envelopes under load and compare two such loads:
   * each load gets a partition of its own, empty when it starts. Azurite's inserts slow down as a
   * partition grows (it scans the partition for the row key), which real Table Storage does not;
   * loads sharing one owner would each pay for the rows of every load before them. Default 0.
   */
  spareOwners?: number;
  /** Folder of `normal.pdf`, the document of the envelope sent for the signing GET; none is sent when unset. */
  signingDocumentDir?: string;
  /**
   * Two organisations of `members` members each (the owner and senders), with `largeEnvelopes` and
   * `smallEnvelopes` envelopes made by their members in turn, so that any page of the newest holds
   * envelopes of every member. None when unset.
   */
  organizationList?: { members: number; largeEnvelopes: number; smallEnvelopes: number };
}

/** A seeded organisation whose owner lists its envelopes. */
export interface SeededOrganization {
  organizationId: string;
  /** The owner (a member who owns envelopes too). */
  owner: SeededUser;
  members: number;
  envelopes: number;
}

export interface Seed {
  smallOwner: SeededUser;
  largeOwner: SeededUser;
  /** The envelope the hot-read benchmark reads (the small owner's newest). */
  hotEnvelopeId: string;
  loginUsers: SeededUser[];
  /** {@link SeedPlan.spareOwners} owners with no envelopes. */
  spareOwners: SeededUser[];
  /** The owner whose webhook receives the webhook burst. */
  webhookOwner: SeededUser;
  /** An API key of the small owner (the hot read with an API key). */
  smallOwnerApiKey: string;
  /** The small owner's organisation (its envelopes are indexed in it). */
  smallOwnerOrganizationId: string;
  /** An admin of the small owner's organisation, who owns no envelope (the admin's hot read). */
  smallOwnerAdmin: SeededUser;
  /** The organisations of {@link SeedPlan.organizationList}. */
  organizationList?: { large: SeededOrganization; small: SeededOrganization };
  /** A sent envelope of the small owner and its signer's token (the signing GET reads it). */
  signing?: { envelopeId: string; token: string; tokenSha256: string };
  /** The same for a signer with an access code ({@link BENCH_ACCESS_CODE}): the signing GET once authenticated. */
  signingAccessCode?: { envelopeId: string; token: string };
  envelopesWritten: number;
}

/**
 * Entity-group transactions the seeding keeps in flight (`EnvelopeRepository.createMany`,
 * `DueIndex.putMany`): Azurite handles one request at a time, so more only queue there.
 */
export const SEED_TRANSACTIONS = 4;

export async function seed(services: Services, plan: SeedPlan, onProgress: (message: string) => void): Promise<Seed> {
  const password = `bench-${randomUUID()}`;
  // One hash at the configured cost serves every account: they share the password.
  const passwordHash = await hashPassword(password, services.config.bcryptCost);
  const newUser = async (label: string): Promise<SeededUser> => {
    const userId = uuidv7();
    const email = `bench-${label}-${userId}@example.com`;
    await services.users.insert({ userId, email, role: 'user', passwordHash, createdAt: new Date().toISOString(), emailVerified: true, verificationSentAt: null });
    const { token } = await issueAccessToken({ sub: userId, email, role: 'user' }, services.config.jwt);
    return { userId, email, password, token };
  };

  const smallOwner = await newUser('small');
  const smallOwnerAdmin = await newUser('small-admin');
  const { organizationId: smallOwnerOrganizationId } = await services.organizations.ensureMembership({ userId: smallOwner.userId, email: smallOwner.email, name: null }, 'owner', null);
  await services.organizations.ensureMembership({ userId: smallOwnerAdmin.userId, email: smallOwnerAdmin.email, name: null }, 'admin', smallOwnerOrganizationId);
  const largeOwner = await newUser('large');
  const others = await Promise.all(Array.from({ length: plan.otherOwners }, (_, index) => newUser(`other${index}`)));
  const loginUsers = await Promise.all(Array.from({ length: plan.loginUsers }, (_, index) => newUser(`login${index}`)));
  const spareOwners = await Promise.all(Array.from({ length: plan.spareOwners ?? 0 }, (_, index) => newUser(`spare${index}`)));
  const webhookOwner = await newUser('webhooks');

  const jobs: { owner: SeededUser; count: number; organizationId?: string }[] = [
    { owner: largeOwner, count: plan.largeOwnerEnvelopes },
    ...others.map((owner) => ({ owner, count: plan.otherOwnerEnvelopes })),
    // The sent envelope of the signing GET (below) is the small owner's too: it holds exactly
    // smallOwnerEnvelopes, one page of the list with no next page.
    { owner: smallOwner, count: plan.smallOwnerEnvelopes - (plan.signingDocumentDir === undefined ? 0 : 2), organizationId: smallOwnerOrganizationId },
  ];
  const items = jobs.flatMap((job) => Array.from({ length: job.count }, (_, index) => envelopeFor(job.owner, index, job.organizationId)));
  onProgress(`seeding: ${items.length} envelopes in entity-group transactions of up to 100 rows`);
  await services.envelopes.createMany(items, { concurrency: SEED_TRANSACTIONS });
  const smallOwnerItems = items.filter((item) => item.record.ownerId === smallOwner.userId);
  await indexOrganization(services, smallOwnerOrganizationId, smallOwnerItems);
  const hotEnvelopeId = smallOwnerItems.reduce((newest, item) => (item.record.id > newest ? item.record.id : newest), '');
  const { key: smallOwnerApiKey } = await createApiKey({ services, owner: smallOwner, request: { name: 'bench hot read' } });
  const seeded: Seed = { smallOwner, largeOwner, hotEnvelopeId, loginUsers, spareOwners, webhookOwner, smallOwnerApiKey, smallOwnerOrganizationId, smallOwnerAdmin, envelopesWritten: items.length };
  if (plan.signingDocumentDir !== undefined) {
    const document = new Uint8Array(await readFile(path.join(plan.signingDocumentDir, 'normal.pdf')));
    const actor = seedActor(smallOwner, smallOwnerOrganizationId);
    const sent = await sentEnvelopeWithFields(services, actor, document, 'signing.pdf');
    seeded.signing = { envelopeId: sent.envelopeId, token: sent.token, tokenSha256: tokenSha256(sent.token) };
    const withCode = await sentEnvelopeWithFields(services, actor, document, 'signing-access-code.pdf', { method: 'accessCode', code: BENCH_ACCESS_CODE });
    seeded.signingAccessCode = { envelopeId: withCode.envelopeId, token: withCode.token };
    await services.organizationIndex.addMany(smallOwnerOrganizationId, [sent.envelopeId, withCode.envelopeId].map((id) => ({ id, ownerId: smallOwner.userId })));
    seeded.envelopesWritten += 2;
  }
  if (plan.organizationList !== undefined) {
    const { members, largeEnvelopes, smallEnvelopes } = plan.organizationList;
    onProgress(`seeding: two organisations of ${members} members with ${largeEnvelopes} and ${smallEnvelopes} envelopes, and their indexes`);
    const large = await seedOrganization(services, newUser, 'org-large', members, largeEnvelopes);
    const small = await seedOrganization(services, newUser, 'org-small', members, smallEnvelopes);
    seeded.organizationList = { large, small };
    seeded.envelopesWritten += largeEnvelopes + smallEnvelopes;
  }
  return seeded;
}

/**
 * An organisation of `members` members (the owner, then senders), each with a token, and `envelopes`
 * envelopes made by the members in turn (the newest page holds envelopes of every member), written
 * as the service writes them: the index rows, then the envelopes.
 */
async function seedOrganization(services: Services, newUser: (label: string) => Promise<SeededUser>, label: string, members: number, envelopes: number): Promise<SeededOrganization> {
  const users = await Promise.all(Array.from({ length: members }, (_, index) => newUser(`${label}-${index}`)));
  const owner = users[0]!;
  const { organizationId } = await services.organizations.ensureMembership({ userId: owner.userId, email: owner.email, name: null }, 'owner', null);
  for (const member of users.slice(1)) await services.organizations.ensureMembership({ userId: member.userId, email: member.email, name: null }, 'sender', organizationId);
  const items = Array.from({ length: envelopes }, (_, index) => envelopeFor(users[index % members]!, index, organizationId));
  await indexOrganization(services, organizationId, items);
  await services.envelopes.createMany(items, { concurrency: SEED_TRANSACTIONS });
  return { organizationId, owner, members, envelopes };
}

/**
 * Writes the index rows of an organisation's envelopes in bulk, and its marker that nothing made
 * before the index is left to index (every envelope of the seed is indexed here), so that the
 * service's first list of the organisation reads the index rather than building it.
 */
async function indexOrganization(services: Services, organizationId: string, items: readonly { record: EnvelopeRecord }[]): Promise<void> {
  await services.organizationIndex.addMany(organizationId, items.map(({ record }) => ({ id: record.id, ownerId: record.ownerId })), { concurrency: SEED_TRANSACTIONS });
  await services.organizationIndex.ensureIndexed(organizationId, async () => [], async function* () {});
}

/** The account acting in the seed, as the owner of its envelopes. */
function seedActor(owner: SeededUser, organizationId: string): Actor {
  return { userId: owner.userId, email: owner.email, emailVerified: true, ip: '127.0.0.1', userAgent: 'bench-seed', apiKeyId: null, organizationId, role: 'owner' };
}

/** The access code of the seeded signer with signer authentication. */
export const BENCH_ACCESS_CODE = 'bench-access-code';

/**
 * A realistic envelope row: a draft or sent envelope with two signers, and its creation event.
 * @param organizationId the organisation recorded on it; default the owner's id (an owner the seed
 *   makes no organisation for: the service makes one at its first request)
 */
function envelopeFor(owner: SeededUser, index: number, organizationId = owner.userId): { record: EnvelopeRecord; event: AuditEvent } {
  const actor = seedActor(owner, organizationId);
  const draft = newDraftEnvelope({ actor, documentName: `contract-${index}.pdf`, now: new Date() });
  const record: EnvelopeRecord = {
    ...draft.record,
    status: index % 3 === 0 ? 'sent' : 'draft',
    signers: [
      newSigner({ id: randomUUID(), email: `signer-a-${index}@example.com`, name: `Signer A ${index}`, role: 'signer' }),
      newSigner({ id: randomUUID(), email: `signer-b-${index}@example.com`, name: `Signer B ${index}`, role: 'approver' }),
    ],
  };
  return { record, event: draft.event };
}

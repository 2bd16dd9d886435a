/**
 * The organisation's list (docs/api.md#list-envelopes, `scope=organization`): the first page of 100
 * for an organisation with 10,000 envelopes and for one with 100, both made in turn by the same
 * number of members (20), so that the two differ only in how many envelopes the organisation holds
 * and the page reads the same number of owners' partitions on both sides. The owner lists; the page
 * is read from the organisation's index (seeded with `OrganizationIndex.addMany`). One
 * connection, so the latency is the cost of one page; rounds alternate the two organisations.
 */
import { check, type BenchContext, type SuiteResult } from '../lib/context.js';
import { alternatingRounds, loadRatio, runLoad, summarizeLoads, type LoadSummary } from '../lib/load.js';
import { progress } from '../lib/progress.js';
import type { Summary } from '../lib/stats.js';
import type { SeededOrganization } from '../lib/seed.js';

/** Fewest owners the probed first page must hold ("several"): it must read several owners' partitions. */
const PROBE_MIN_OWNERS = 5;

export interface OrganizationListFigures {
  pageSize: number;
  members: number;
  small: LoadSummary & { envelopes: number };
  large: LoadSummary & { envelopes: number };
  /** Envelopes' owners on the first page of each (checked before the rounds). */
  ownersOnPage: { small: number; large: number };
  /** Large organisation's median latency / small organisation's. */
  latencyRatio: Summary;
}

export async function benchOrganizationList(context: BenchContext): Promise<SuiteResult<OrganizationListFigures>> {
  const { plan, seed } = context;
  const organizations = seed.organizationList;
  if (organizations === undefined) throw new Error('the seed has no organisations for the list');
  const url = `${context.apiUrl}/envelopes?scope=organization&limit=${plan.organizationList.pageSize}`;
  const load = (organization: SeededOrganization, seconds: number) =>
    runLoad({ url, headers: { Authorization: `Bearer ${organization.owner.token}` }, connections: 1, durationSeconds: seconds });

  /** The first page, checked: a full page of distinct envelopes, newest first, of several owners; a next page only for the large one. */
  const probe = async (organization: SeededOrganization, morePages: boolean): Promise<number> => {
    const response = await fetch(url, { headers: { Authorization: `Bearer ${organization.owner.token}` } });
    const page = (await response.json()) as { id: string; ownerId: string }[];
    const ids = page.map((envelope) => envelope.id);
    const owners = new Set(page.map((envelope) => envelope.ownerId)).size;
    const newestFirst = ids.every((id, index) => index === 0 || id < ids[index - 1]!);
    if (response.status !== 200 || page.length !== plan.organizationList.pageSize || !newestFirst || owners < Math.min(PROBE_MIN_OWNERS, organization.members) || (response.headers.get('link') !== null) !== morePages) {
      throw new Error(`organisation list probe (${organization.envelopes} envelopes): status ${response.status}, ${page.length} envelopes of ${owners} owners, newest first ${newestFirst}, Link ${response.headers.get('link')}`);
    }
    return owners;
  };
  const ownersOnPage = { small: await probe(organizations.small, false), large: await probe(organizations.large, true) };

  progress(`organisation list: warm-up (first pages of ${ownersOnPage.small} and ${ownersOnPage.large} owners)`);
  await load(organizations.small, 1);
  await load(organizations.large, 1);
  const [small, large] = await alternatingRounds(
    plan.organizationList.rounds,
    () => load(organizations.small, plan.organizationList.seconds),
    () => load(organizations.large, plan.organizationList.seconds),
    (round, smallResult, largeResult) =>
      progress(
        `organisation list, round ${round + 1}/${plan.organizationList.rounds}: ${organizations.small.envelopes}-envelope p50 ${smallResult.p50.toFixed(1)} ms, ` +
          `${organizations.large.envelopes}-envelope p50 ${largeResult.p50.toFixed(1)} ms`,
      ),
  );
  const figures: OrganizationListFigures = {
    pageSize: plan.organizationList.pageSize,
    members: organizations.large.members,
    small: { envelopes: organizations.small.envelopes, ...summarizeLoads(small) },
    large: { envelopes: organizations.large.envelopes, ...summarizeLoads(large) },
    ownersOnPage,
    latencyRatio: loadRatio(large, small, 'p50'),
  };
  return {
    figures,
    targets: [
      check(
        'organizationList',
        `GET /api/envelopes?scope=organization, first page of ${figures.pageSize}: organisation with ${figures.large.envelopes} envelopes from ${figures.members} members at most 1.5 times one with ${figures.small.envelopes} (p50 latency)`,
        figures.latencyRatio.median,
        '<=',
        1.5,
      ),
    ],
  };
}

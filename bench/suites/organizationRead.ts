/**
 * Hot read by an admin (docs/api.md#what-members-share): `GET /api/envelopes/{id}` of the small
 * owner's envelope with the access token of an admin of the owner's organisation, who owns no
 * envelope, against the owner's own hot read of the same envelope, measured in the same rounds (the
 * order alternating), 10 and 50 connections. The admin's request finds the owner's partition through
 * the organisation's index (one point read the first time, remembered after); its membership is
 * remembered for `MEMBERSHIP_CACHE_MS`, as the owner's is: the warm-up reads both before the rounds.
 * Ratio of throughputs, taken round by round.
 */
import { check, type BenchContext, type SuiteResult } from '../lib/context.js';
import { alternatingRounds, loadRatio, runLoad, summarizeLoads, type LoadSummary } from '../lib/load.js';
import { progress } from '../lib/progress.js';
import type { Summary } from '../lib/stats.js';

export interface OrganizationReadLevel {
  connections: number;
  /** The owner reading its own envelope. */
  owner: LoadSummary;
  /** An admin of the owner's organisation reading the same envelope. */
  admin: LoadSummary;
  /** Admin throughput / owner throughput. */
  throughputRatio: Summary;
}

export async function benchOrganizationRead(context: BenchContext): Promise<SuiteResult<OrganizationReadLevel[]>> {
  const { plan, seed } = context;
  const url = `${context.apiUrl}/envelopes/${seed.hotEnvelopeId}`;
  const ownerLoad = (connections: number, seconds: number) => runLoad({ url, headers: { Authorization: `Bearer ${seed.smallOwner.token}` }, connections, durationSeconds: seconds });
  const adminLoad = (connections: number, seconds: number) => runLoad({ url, headers: { Authorization: `Bearer ${seed.smallOwnerAdmin.token}` }, connections, durationSeconds: seconds });

  // The admin is an admin of the owner's organisation, and reads the owner's envelope (not one of its own).
  const organization = await fetch(`${context.apiUrl}/organization`, { headers: { Authorization: `Bearer ${seed.smallOwnerAdmin.token}` } });
  const organizationView = (await organization.json()) as { id?: string; role?: string };
  if (organization.status !== 200 || organizationView.id !== seed.smallOwnerOrganizationId || organizationView.role !== 'admin') {
    throw new Error(`organisation probe answered ${organization.status}: ${JSON.stringify(organizationView)}`);
  }
  for (const [who, token] of [['owner', seed.smallOwner.token], ['admin', seed.smallOwnerAdmin.token]] as const) {
    const probe = await fetch(url, { headers: { Authorization: `Bearer ${token}` } });
    const view = (await probe.json()) as { id?: string; ownerId?: string };
    if (probe.status !== 200 || view.id !== seed.hotEnvelopeId || view.ownerId !== seed.smallOwner.userId) throw new Error(`${who}'s hot read probe answered ${probe.status}: ${JSON.stringify(view)}`);
  }

  const levels: OrganizationReadLevel[] = [];
  for (const connections of plan.organizationRead.connections) {
    progress(`organisation read, ${connections} connections: warm-up`);
    await ownerLoad(connections, plan.organizationRead.warmupSeconds);
    await adminLoad(connections, plan.organizationRead.warmupSeconds);
    const [owner, admin] = await alternatingRounds(
      plan.organizationRead.rounds,
      () => ownerLoad(connections, plan.organizationRead.seconds),
      () => adminLoad(connections, plan.organizationRead.seconds),
      (round, ownerResult, adminResult) =>
        progress(
          `organisation read, ${connections} connections, round ${round + 1}/${plan.organizationRead.rounds}: owner ${Math.round(ownerResult.throughput)} req/s (p99 ${ownerResult.p99.toFixed(1)} ms), ` +
            `admin ${Math.round(adminResult.throughput)} req/s (p99 ${adminResult.p99.toFixed(1)} ms)`,
        ),
    );
    levels.push({ connections, owner: summarizeLoads(owner), admin: summarizeLoads(admin), throughputRatio: loadRatio(admin, owner, 'throughput') });
  }
  return {
    figures: levels,
    targets: levels.map((level) =>
      check(
        `organizationRead.c${level.connections}`,
        `GET /api/envelopes/{id} by an admin of the owner's organisation at ${level.connections} connections: throughput at least 0.9 of the owner's own hot read of the same envelope`,
        level.throughputRatio.median,
        '>=',
        0.9,
      ),
    ),
  };
}

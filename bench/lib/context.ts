/** What every benchmark suite is given, and what it gives back. */
import type { Seed, SeedPlan } from './seed.js';

export interface Plan {
  quick: boolean;
  seed: SeedPlan;
  hotRead: { connections: number[]; rounds: number; seconds: number; warmupSeconds: number };
  list: { rounds: number; seconds: number; pageSize: number };
  organizationRead: { connections: number[]; rounds: number; seconds: number; warmupSeconds: number };
  organizationList: { rounds: number; seconds: number; pageSize: number };
  completion: { rounds: number; generatedPages: number };
  coldStart: { rounds: number };
  commands: { rounds: number };
  verify: { rounds: number };
  loginStorm: { logins: number; readers: number; rounds: number; seconds: number };
  sweep: { smallEnvelopes: number; largeEnvelopes: number; rounds: number; sweepsPerRound: number };
  webhookBurst: { events: number; connections: number; rounds: number; idleSeconds: number; maxBurstSeconds: number };
  idempotency: { connections: number; rounds: number; seconds: number; warmupSeconds: number };
  signingPage: { rounds: number };
  templates: { rounds: number; sendsPerRound: number };
  embeddedView: { rounds: number; seconds: number; warmupSeconds: number };
  /** Appends timed per round and side; the two trees' sizes, in leaves (even: two per envelope). */
  publicLog: { rounds: number; appendsPerRound: number; smallLeaves: number; largeLeaves: number };
  smsSend: { rounds: number; sendsPerRound: number };
  /** Several documents: completion rounds per output; the download's documents and their size, bytes. */
  packets: { rounds: number; zipDocuments: number; zipDocumentBytes: number };
  /** Rounds, rows per job, and connections of the hot read during a job. */
  bulk: { rounds: number; rows: number; readConnections: number };
}

export interface BenchContext {
  plan: Plan;
  /** Environment of the service and the measurement processes. */
  env: NodeJS.ProcessEnv;
  /** The service's base URL, ending in `/api`. */
  apiUrl: string;
  /** The hot-read baseline server's URL. */
  baselineUrl: string;
  /** Process ids, for CPU accounting (undefined where unknown). */
  pids: { service: number | undefined; baseline: number | undefined; azurite: number | undefined };
  seed: Seed;
  bcryptCost: number;
  /** Scratch folder for generated documents. */
  tmpDir: string;
}

/** One target of bench/README.md, checked against a measured ratio. */
export interface TargetCheck {
  id: string;
  target: string;
  /** The measured figure (median of rounds). */
  value: number;
  limit: number;
  comparison: '>=' | '<=';
  met: boolean;
}

export function check(id: string, target: string, value: number, comparison: '>=' | '<=', limit: number): TargetCheck {
  return { id, target, value, limit, comparison, met: comparison === '>=' ? value >= limit : value <= limit };
}

/** A suite's figures (free-form, written to results.json) and its target checks. */
export interface SuiteResult<Figures> {
  figures: Figures;
  targets: TargetCheck[];
}

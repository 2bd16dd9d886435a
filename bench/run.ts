/**
 * `npm run bench [-- --quick] [-- --only=coldStart,commands,hotRead,list,organizationRead,organizationList,loginStorm,completion,recipientCompletion,sealLevels,sweep,webhookBurst,idempotency,detection,signingPage,templates,embeddedView,telemetry,publicLog,verify,smsSend,packets,bulk] [-- --out=DIR]`
 *
 * Starts its own in-memory Azurite and the service on the local host (a child process), seeds the
 * data through the repositories, runs every benchmark against a baseline measured in the same run,
 * and writes `bench/results.json` and `bench/results.md` (or into DIR, created if missing), also when
 * a suite or the setup failed (the results name the failure; the exit status is then 1). Progress
 * goes to stderr.
 *
 * Processes: this one generates load (autocannon) and seeds; the service, the hot-read baseline
 * server, the webhook receiver, the sweepers and each one-shot measurement (completion, cold start,
 * raw hashing) run in processes of their own, so the load generator never shares an event loop with
 * what it measures. The sweep and recipient-completion suites start Azurites of their own.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createDevelopmentSealingCertificate } from '../src/lib/pdf/index.js';
import { getServices } from '../src/lib/services.js';
import { ensureStorage } from '../src/lib/storage/setup.js';
import { startAzurite, type RunningAzurite } from '../src/local/azurite.js';
import { startMailSink, type MailSink } from './lib/mailSink.js';
import { startChild, type RunningChild } from './lib/child.js';
import { childPid } from './lib/cpu.js';
import type { BenchContext, Plan } from './lib/context.js';
import { elapsedSeconds, progress } from './lib/progress.js';
import { writeResults, toMarkdown, type Results } from './lib/report.js';
import { seed } from './lib/seed.js';
import { benchColdStart } from './suites/coldStart.js';
import { benchCommands } from './suites/commands.js';
import { benchCompletion } from './suites/completion.js';
import { benchDetection } from './suites/detection.js';
import { benchSealLevels } from './suites/sealLevels.js';
import { benchHotRead } from './suites/hotRead.js';
import { benchTelemetry } from './suites/telemetry.js';
import { benchIdempotency } from './suites/idempotency.js';
import { benchTemplates } from './suites/templates.js';
import { benchBulk } from './suites/bulk.js';
import { benchList } from './suites/list.js';
import { benchOrganizationList } from './suites/organizationList.js';
import { benchOrganizationRead } from './suites/organizationRead.js';
import { benchLoginStorm } from './suites/loginStorm.js';
import { CORPUS_DIR } from './suites/completion.js';
import { benchRecipientCompletion } from './suites/recipientCompletion.js';
import { benchSweep } from './suites/sweep.js';
import { benchWebhookBurst } from './suites/webhookBurst.js';
import { benchSigningPage } from './suites/signingPage.js';
import { benchEmbeddedView } from './suites/embeddedView.js';
import { benchPackets } from './suites/packets.js';
import { benchPublicLog } from './suites/publicLog.js';
import { benchSmsSend } from './suites/smsSend.js';
import { benchVerify } from './suites/verify.js';

const SUITES = ['coldStart', 'commands', 'hotRead', 'list', 'organizationRead', 'organizationList', 'loginStorm', 'completion', 'recipientCompletion', 'sealLevels', 'sweep', 'webhookBurst', 'idempotency', 'detection', 'signingPage', 'templates', 'embeddedView', 'telemetry', 'publicLog', 'verify', 'smsSend', 'packets', 'bulk'] as const;
type SuiteName = (typeof SUITES)[number];

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function planFor(quick: boolean, suites: readonly SuiteName[]): Plan {
  const idempotency = quick ? { connections: 10, rounds: 4, seconds: 1.5, warmupSeconds: 0.5 } : { connections: 10, rounds: 8, seconds: 5, warmupSeconds: 2 };
  const seedPlan = {
    smallOwnerEnvelopes: 100,
    // Written in entity-group transactions (`EnvelopeRepository.createMany`), yet Azurite's inserts
    // slow down as the owner's partition grows: the 10,000 take 40 to 80 s here, so --quick lists 2,000.
    largeOwnerEnvelopes: suites.includes('list') ? (quick ? 2_000 : 10_000) : 0,
    otherOwners: 5,
    otherOwnerEnvelopes: quick ? 60 : 400,
    loginUsers: 20,
    // The idempotency suite's two writing loads, in every round and the warm-up: an empty partition each.
    spareOwners: suites.includes('idempotency') ? 2 * (idempotency.rounds + 1) : 0,
    ...(suites.includes('hotRead') || suites.includes('signingPage') ? { signingDocumentDir: CORPUS_DIR } : {}),
    // Envelopes of 20 members each in two organisations (index rows in one partition per organisation, the
    // envelopes in 20: about 10 to 20 s here), the same in --quick.
    ...(suites.includes('organizationList') ? { organizationList: { members: 20, largeEnvelopes: 10_000, smallEnvelopes: 100 } } : {}),
  };
  return quick
    ? {
        quick,
        seed: seedPlan,
        hotRead: { connections: [10, 50], rounds: 3, seconds: 1.5, warmupSeconds: 0.5 },
        list: { rounds: 3, seconds: 1, pageSize: 100 },
        organizationRead: { connections: [10, 50], rounds: 3, seconds: 1.5, warmupSeconds: 0.5 },
        // A page of the organisation reads 20 partitions: on this loaded machine it can take over a second, and a 1 s round then completes none.
        organizationList: { rounds: 3, seconds: 3, pageSize: 100 },
        completion: { rounds: 2, generatedPages: 1000 },
        coldStart: { rounds: 5 },
        commands: { rounds: 2 },
        verify: { rounds: 3 },
        loginStorm: { logins: 40, readers: 10, rounds: 2, seconds: 3 },
        sweep: { smallEnvelopes: 100, largeEnvelopes: 10_000, rounds: 3, sweepsPerRound: 3 },
        webhookBurst: { events: 1000, connections: 10, rounds: 2, idleSeconds: 3, maxBurstSeconds: 300 },
        idempotency,
        signingPage: { rounds: 3 },
        templates: { rounds: 4, sendsPerRound: 3 },
        embeddedView: { rounds: 4, seconds: 1.5, warmupSeconds: 0.5 },
        // Filling 100,000 leaves at storage level takes minutes on Azurite: --quick fills 20,000.
        publicLog: { rounds: 3, appendsPerRound: 20, smallLeaves: 1_000, largeLeaves: 20_000 },
        smsSend: { rounds: 4, sendsPerRound: 3 },
        packets: { rounds: 2, zipDocuments: 10, zipDocumentBytes: 10_000_000 },
        bulk: { rounds: 2, rows: 200, readConnections: 10 },
      }
    : {
        quick,
        seed: seedPlan,
        hotRead: { connections: [10, 50], rounds: 5, seconds: 8, warmupSeconds: 3 },
        list: { rounds: 5, seconds: 4, pageSize: 100 },
        organizationRead: { connections: [10, 50], rounds: 5, seconds: 8, warmupSeconds: 3 },
        organizationList: { rounds: 5, seconds: 4, pageSize: 100 },
        completion: { rounds: 5, generatedPages: 1000 },
        coldStart: { rounds: 15 },
        commands: { rounds: 5 },
        verify: { rounds: 9 },
        loginStorm: { logins: 40, readers: 10, rounds: 5, seconds: 8 },
        sweep: { smallEnvelopes: 100, largeEnvelopes: 10_000, rounds: 5, sweepsPerRound: 5 },
        webhookBurst: { events: 1000, connections: 10, rounds: 3, idleSeconds: 8, maxBurstSeconds: 300 },
        idempotency,
        signingPage: { rounds: 7 },
        templates: { rounds: 8, sendsPerRound: 5 },
        embeddedView: { rounds: 8, seconds: 4, warmupSeconds: 1 },
        publicLog: { rounds: 5, appendsPerRound: 40, smallLeaves: 1_000, largeLeaves: 100_000 },
        smsSend: { rounds: 8, sendsPerRound: 5 },
        packets: { rounds: 5, zipDocuments: 10, zipDocumentBytes: 10_000_000 },
        bulk: { rounds: 3, rows: 1000, readConnections: 10 },
      };
}

function parseArguments(argv: string[]): { quick: boolean; suites: SuiteName[]; outDir: string } {
  let quick = false;
  let suites: SuiteName[] = [...SUITES];
  let outDir = path.join(REPO_ROOT, 'bench');
  for (const argument of argv) {
    if (argument === '--quick') quick = true;
    else if (argument.startsWith('--only=')) {
      suites = argument.slice('--only='.length).split(',').map((name) => {
        if (!SUITES.includes(name as SuiteName)) throw new Error(`Unknown suite ${name}; known: ${SUITES.join(', ')}`);
        return name as SuiteName;
      });
    } else if (argument.startsWith('--out=')) outDir = path.resolve(argument.slice('--out='.length));
    else throw new Error(`Unknown argument ${argument}. Usage: npm run bench [-- --quick] [-- --only=${SUITES.join(',')}] [-- --out=DIR]`);
  }
  return { quick, suites, outDir };
}

async function runSuite(suite: SuiteName, context: BenchContext, results: Results): Promise<void> {
  switch (suite) {
    case 'coldStart': {
      const { figures, targets } = await benchColdStart(context);
      results.coldStart = figures;
      results.targets.push(...targets);
      return;
    }
    case 'commands': {
      const { figures, targets } = await benchCommands(context);
      results.commands = figures;
      results.targets.push(...targets);
      return;
    }
    case 'verify': {
      const { figures, targets } = await benchVerify(context);
      results.verify = figures;
      results.targets.push(...targets);
      return;
    }
    case 'hotRead': {
      const { figures, targets } = await benchHotRead(context);
      results.hotRead = figures;
      results.targets.push(...targets);
      return;
    }
    case 'list': {
      const { figures, targets } = await benchList(context);
      results.list = figures;
      results.targets.push(...targets);
      return;
    }
    case 'organizationRead': {
      const { figures, targets } = await benchOrganizationRead(context);
      results.organizationRead = figures;
      results.targets.push(...targets);
      return;
    }
    case 'organizationList': {
      const { figures, targets } = await benchOrganizationList(context);
      results.organizationList = figures;
      results.targets.push(...targets);
      return;
    }
    case 'loginStorm': {
      const { figures, targets } = await benchLoginStorm(context);
      results.loginStorm = figures;
      results.targets.push(...targets);
      return;
    }
    case 'completion': {
      const { figures, targets } = await benchCompletion(context);
      results.completion = figures;
      results.targets.push(...targets);
      return;
    }
    case 'detection': {
      const { figures, targets } = await benchDetection(context);
      results.detection = figures;
      results.targets.push(...targets);
      return;
    }
    case 'sealLevels': {
      const { figures, targets } = await benchSealLevels(context);
      results.sealLevels = figures;
      results.targets.push(...targets);
      return;
    }
    case 'recipientCompletion': {
      const { figures, targets } = await benchRecipientCompletion(context);
      results.recipientCompletion = figures;
      results.targets.push(...targets);
      return;
    }
    case 'sweep': {
      const { figures, targets } = await benchSweep(context);
      results.sweep = figures;
      results.targets.push(...targets);
      return;
    }
    case 'webhookBurst': {
      const { figures, targets } = await benchWebhookBurst(context);
      results.webhookBurst = figures;
      results.targets.push(...targets);
      return;
    }
    case 'idempotency': {
      const { figures, targets } = await benchIdempotency(context);
      results.idempotency = figures;
      results.targets.push(...targets);
      return;
    }
    case 'signingPage': {
      const { figures, targets } = await benchSigningPage(context);
      results.signingPage = figures;
      results.targets.push(...targets);
      return;
    }
    case 'templates': {
      const { figures, targets } = await benchTemplates(context);
      results.templates = figures;
      results.targets.push(...targets);
      return;
    }
    case 'packets': {
      const { figures, targets } = await benchPackets(context);
      results.packets = figures;
      results.targets.push(...targets);
      return;
    }
    case 'embeddedView': {
      const { figures, targets } = await benchEmbeddedView(context);
      results.embeddedView = figures;
      results.targets.push(...targets);
      return;
    }
    case 'telemetry': {
      const { figures, targets } = await benchTelemetry(context);
      results.telemetry = figures;
      results.targets.push(...targets);
      return;
    }
    case 'publicLog': {
      const { figures, targets } = await benchPublicLog(context);
      results.publicLog = figures;
      results.targets.push(...targets);
      return;
    }
    case 'smsSend': {
      const { figures, targets } = await benchSmsSend(context);
      results.smsSend = figures;
      results.targets.push(...targets);
      return;
    }
    case 'bulk': {
      const { figures, targets } = await benchBulk(context);
      results.bulk = figures;
      results.targets.push(...targets);
      return;
    }
  }
}

async function main(): Promise<void> {
  const { quick, suites, outDir } = parseArguments(process.argv.slice(2));
  const plan = planFor(quick, suites);
  // Made (with its parents) before the run, so a bad DIR fails now, not after the whole run.
  await mkdir(outDir, { recursive: true });
  const startedAt = new Date().toISOString();
  const tmpDir = await mkdtemp(path.join(os.tmpdir(), 'envelope-bench-'));
  const results: Results = {
    meta: {
      startedAt,
      mode: quick ? 'quick' : 'full',
      durationSeconds: 0,
      node: process.version,
      platform: `${process.platform} ${process.arch}`,
      cpus: `${os.availableParallelism()} × ${os.cpus()[0]?.model.trim() ?? 'unknown CPU'}`,
      bcryptCost: 0,
      seededEnvelopes: 0,
    },
    targets: [],
  };
  let azurite: RunningAzurite | undefined;
  let service: RunningChild<{ apiUrl: string }> | undefined;
  let baseline: RunningChild<{ url: string }> | undefined;
  let mail: MailSink | undefined;
  try {
    progress(`${quick ? 'quick' : 'full'} run of ${suites.join(', ')}: starting Azurite (in memory)`);
    // BENCH_AZURITE_NODE_ARGS, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`, profiles this Azurite.
    azurite = await startAzurite({ nodeArgs: process.env.BENCH_AZURITE_NODE_ARGS?.split(' ').filter((arg) => arg !== '') ?? [] });
    const certificate = await createDevelopmentSealingCertificate({ commonName: 'Envelope Signing Service (benchmark)' });
    // E-mail goes to a catcher on loopback, sent once each, as through a real relay (`lib/mailSink.ts`).
    mail = await startMailSink();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      STORAGE_CONNECTION_STRING: azurite.connectionString,
      JWT_SECRET: randomBytes(48).toString('base64url'),
      LOG_SIGNING_KEY: randomBytes(32).toString('base64url'),
      SEAL_P12_BASE64: certificate.p12Base64,
      SEAL_P12_PASSPHRASE: certificate.passphrase,
      ALLOWED_ORIGINS: '*',
      SMTP_URL: mail.url,
      // The webhook burst delivers to a receiver on loopback (http://127.0.0.1:<port>/hook).
      OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
      // The load generator reads as one owner thousands of times a second: far above any owner limit
      // a deployment would set, so the limit is set out of reach and only its cost is measured.
      RATE_LIMIT_PER_MINUTE: '1000000000',
      // The same for the organisation's daily e-mail and text quotas: the bulk suite alone sends 2,000
      // invitations a round for one owner (a job of 1,000 rows and 1,000 sends one after the other).
      EMAIL_DAILY_QUOTA: '1000000000',
      SMS_DAILY_QUOTA: '1000000000',
      // The login flood names its client addresses in X-Forwarded-For, as one proxy in front would.
      TRUST_PROXY: '1',
    };
    // The configured bcrypt cost (BCRYPT_COST, default 12) is kept; nothing else from outside.
    // Telemetry too: every suite measures the service without it, the telemetry suite with it on purpose.
    for (const name of ['STORAGE_ACCOUNT_NAME', 'TURNSTILE_SECRET_KEY', 'TSA_URL', 'NODE_OPTIONS', 'APPLICATIONINSIGHTS_CONNECTION_STRING']) delete env[name];
    for (const name of Object.keys(env)) if (name.startsWith('OTEL_')) delete env[name];
    Object.assign(process.env, env);
    for (const name of ['STORAGE_ACCOUNT_NAME', 'TURNSTILE_SECRET_KEY', 'TSA_URL']) delete process.env[name];
    const services = getServices();
    results.meta.bcryptCost = services.config.bcryptCost;
    await ensureStorage(services.storage, { allowedOrigins: ['*'] });

    progress(`seeding ${plan.seed.smallOwnerEnvelopes + plan.seed.largeOwnerEnvelopes + plan.seed.otherOwners * plan.seed.otherOwnerEnvelopes} envelopes and ${plan.seed.loginUsers + plan.seed.otherOwners + 2} users (bcrypt cost ${services.config.bcryptCost})`);
    const seeded = await seed(services, plan.seed, progress);
    results.meta.seededEnvelopes = seeded.envelopesWritten;
    progress(`seeded ${seeded.envelopesWritten} envelopes; starting the service and the baseline server`);
    // BENCH_SERVICE_NODE_ARGS, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`, profiles the service.
    const serviceArgs = process.env.BENCH_SERVICE_NODE_ARGS?.split(' ').filter((arg) => arg !== '') ?? [];
    service = await startChild<{ apiUrl: string }>('serviceHost', { env, execArgv: serviceArgs });
    baseline = await startChild<{ url: string }>('baselineServer', { env, args: [seeded.smallOwner.userId, seeded.hotEnvelopeId, ...(seeded.signing === undefined ? [] : [seeded.signing.tokenSha256])] });

    const context: BenchContext = {
      plan,
      env,
      apiUrl: service.ready.apiUrl,
      baselineUrl: baseline.ready.url,
      pids: { service: service.child.pid, baseline: baseline.child.pid, azurite: childPid('azurite') },
      seed: seeded,
      bcryptCost: services.config.bcryptCost,
      tmpDir,
    };
    for (const suite of suites) {
      progress(`— ${suite} —`);
      try {
        await runSuite(suite, context, results);
      } catch (error) {
        // One broken suite must not lose the others' figures.
        const message = error instanceof Error ? error.message : String(error);
        progress(`${suite} failed: ${message}`);
        results.errors = { ...results.errors, [suite]: message };
      }
    }
  } catch (error) {
    // Setup failed (Azurite, seeding, the service): the results still say so.
    const message = error instanceof Error ? error.message : String(error);
    progress(`setup failed: ${message}`);
    results.errors = { ...results.errors, setup: message };
  } finally {
    await baseline?.stop().catch(() => undefined);
    await service?.stop().catch(() => undefined);
    await azurite?.stop().catch(() => undefined);
    await mail?.close().catch(() => undefined);
    await rm(tmpDir, { recursive: true, force: true });
  }
  results.meta.durationSeconds = Math.round(elapsedSeconds());
  const written = await writeResults(results, outDir);
  process.stdout.write(toMarkdown(results));
  if (results.errors !== undefined) process.exitCode = 1;
  progress(`done in ${results.meta.durationSeconds} s: ${path.relative(process.cwd(), written.json)}, ${path.relative(process.cwd(), written.markdown)}`);
}

main().then(
  () => process.exit(process.exitCode ?? 0),
  (error: unknown) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);

/**
 * Webhook burst (bench/README.md#webhook-burst-the-queue-functions-share-the-process-and-azurite): 1,000 webhook events delivered to a loopback receiver (its own process,
 * `processes/webhookReceiver.ts`, verifying every signature) by the service's queue functions
 * (fan-out on `outbox-events`, delivery on `webhook-deliveries`, run by the local host), while 10
 * connections read an envelope (`GET /api/envelopes/{id}`); against the same readers on the same
 * service process with nothing in the queues. Rounds alternate idle and burst.
 *
 * The events are written straight through the outbox repository (setup of the burst, as a change
 * writes them: `OutboxStore.prepare` and the row in the envelopes table, then `dispatch`, one queue
 * message per event), in batches of 50, for a webhook the owner creates over HTTP before each round
 * (`OUTBOUND_ALLOW_PRIVATE_NETWORKS=true` lets it point at loopback).
 */
import { randomUUID } from 'node:crypto';
import type { OutboxBatch, OutboxMessage } from '../../src/lib/notifications/outbox.js';
import { uuidv7 } from '../../src/lib/ids.js';
import { getServices } from '../../src/lib/services.js';
import { check, type BenchContext, type SuiteResult } from '../lib/context.js';
import { startChild, type RunningChild } from '../lib/child.js';
import { runLoad, type LoadResult } from '../lib/load.js';
import { progress } from '../lib/progress.js';
import { pairedRatio, summarize, type Summary } from '../lib/stats.js';
import type { ReceiverCount } from '../processes/webhookReceiver.js';

const EVENTS_PER_BATCH = 50;

export interface WebhookBurstFigures {
  events: number;
  connections: number;
  /** Seconds from the first event queued to the last one received, per round. */
  burstSeconds: Summary;
  /** Events delivered per second over the burst. */
  deliveriesPerSecond: Summary;
  /** Deliveries the receiver got beyond one per event (retries), all rounds. */
  extraDeliveries: number;
  idle: { throughput: Summary; p99Ms: Summary };
  duringBurst: { throughput: Summary; p99Ms: Summary; failed: number };
  /** Readers' throughput during the burst / idle, round by round. */
  throughputRatio: Summary;
}

export async function benchWebhookBurst(context: BenchContext): Promise<SuiteResult<WebhookBurstFigures>> {
  const { plan, seed } = context;
  const { events, connections, rounds, idleSeconds, maxBurstSeconds } = plan.webhookBurst;
  const services = getServices();
  const owner = seed.webhookOwner;
  const receiver: RunningChild<{ url: string }> = await startChild('webhookReceiver', { env: context.env });
  try {
    // Each burst goes to a webhook of its own, created (and the previous one deleted) before the
    // round: a webhook keeps a `delivery_<eventId>` row per event, so reusing one would make every
    // round read and write a partition 1,000 rows larger than the round before, and the rounds would
    // not measure the same thing.
    let webhookId: string | null = null;
    const freshWebhook = async (): Promise<void> => {
      const headers = { Authorization: `Bearer ${owner.token}`, 'Content-Type': 'application/json' };
      if (webhookId !== null) {
        const deleted = await fetch(`${context.apiUrl}/webhooks/${webhookId}`, { method: 'DELETE', headers });
        if (deleted.status !== 204) throw new Error(`deleting the webhook answered ${deleted.status}: ${await deleted.text()}`);
      }
      const created = await fetch(`${context.apiUrl}/webhooks`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ url: receiver.ready.url, events: ['envelope.sent'], description: 'bench burst' }),
      });
      if (created.status !== 201) throw new Error(`creating the webhook answered ${created.status}: ${await created.text()}`);
      const body = (await created.json()) as { id: string; secret: string };
      webhookId = body.id;
      await receiver.request({ type: 'secret', secret: body.secret });
    };

    const readers = (stopWhen?: Promise<unknown>) =>
      runLoad({
        url: `${context.apiUrl}/envelopes/${seed.hotEnvelopeId}`,
        headers: { Authorization: `Bearer ${seed.smallOwner.token}` },
        connections,
        durationSeconds: stopWhen === undefined ? idleSeconds : maxBurstSeconds,
        ...(stopWhen === undefined ? {} : { stopWhen }),
      });
    const count = () => receiver.request<ReceiverCount>({ type: 'count' });

    /** Queues `events` events (batches of 50 through the outbox), resolves when every one was received. */
    const burst = async (): Promise<{ seconds: number; requests: number; invalid: number }> => {
      await freshWebhook();
      await receiver.request({ type: 'reset' });
      const started = performance.now();
      const envelopeId = uuidv7();
      for (let first = 0; first < events; first += EVENTS_PER_BATCH) {
        const createdAt = new Date().toISOString();
        const messages: OutboxMessage[] = Array.from({ length: Math.min(EVENTS_PER_BATCH, events - first) }, () => ({
          kind: 'event',
          event: { id: randomUUID(), type: 'envelope.sent', createdAt, data: { envelopeId, status: 'sent' } },
        }));
        const batch: OutboxBatch = { id: uuidv7(), ownerId: owner.userId, envelopeId, createdAt, messages };
        await services.storage.tables.envelopes.submitTransaction([await services.outbox.prepare(batch)]);
        if (!(await services.outbox.dispatch(batch, (message) => progress(`webhook burst: ${message}`)))) throw new Error(`outbox batch ${batch.id} not dispatched`);
      }
      const deadline = started + maxBurstSeconds * 1000;
      for (;;) {
        const seen = await count();
        if (seen.verified >= events) return { seconds: (performance.now() - started) / 1000, requests: seen.requests, invalid: seen.invalid };
        if (performance.now() > deadline) throw new Error(`only ${seen.verified} of ${events} events delivered in ${maxBurstSeconds} s (${seen.invalid} with a bad signature)`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };

    const idle: LoadResult[] = [];
    const during: LoadResult[] = [];
    const bursts: { seconds: number; requests: number; invalid: number }[] = [];
    const duringBurst = async () => {
      const running = burst();
      during.push(await readers(running));
      bursts.push(await running);
      // Let the deliveries' last bookkeeping writes finish before anything else is measured.
      await new Promise((resolve) => setTimeout(resolve, 1000));
    };
    await readers(); // warm-up
    for (let round = 0; round < rounds; round++) {
      if (round % 2 === 0) {
        idle.push(await readers());
        await duringBurst();
      } else {
        await duringBurst();
        idle.push(await readers());
      }
      progress(
        `webhook burst, round ${round + 1}/${rounds}: ${events} events in ${bursts.at(-1)!.seconds.toFixed(1)} s; readers ${Math.round(during.at(-1)!.throughput)} req/s ` +
          `(p99 ${during.at(-1)!.p99.toFixed(1)} ms) vs idle ${Math.round(idle.at(-1)!.throughput)} req/s (p99 ${idle.at(-1)!.p99.toFixed(1)} ms)`,
      );
    }
    const invalid = bursts.reduce((sum, run) => sum + run.invalid, 0);
    if (invalid > 0) throw new Error(`${invalid} deliveries had a signature that did not verify`);
    const figures: WebhookBurstFigures = {
      events,
      connections,
      burstSeconds: summarize(bursts.map((run) => run.seconds)),
      deliveriesPerSecond: summarize(bursts.map((run) => events / run.seconds)),
      extraDeliveries: bursts.reduce((sum, run) => sum + run.requests - events, 0),
      idle: { throughput: summarize(idle.map((result) => result.throughput)), p99Ms: summarize(idle.map((result) => result.p99)) },
      duringBurst: {
        throughput: summarize(during.map((result) => result.throughput)),
        p99Ms: summarize(during.map((result) => result.p99)),
        failed: during.reduce((sum, result) => sum + result.failed, 0),
      },
      throughputRatio: pairedRatio(
        during.map((result) => result.throughput),
        idle.map((result) => result.throughput),
      ),
    };
    return {
      figures,
      targets: [
        check(
          'webhookBurst.readers',
          `GET /api/envelopes/{id} throughput (${connections} connections) while ${events.toLocaleString('en')} webhook events are delivered to a loopback receiver: at least 0.7 of the same readers idle (same service process)`,
          figures.throughputRatio.median,
          '>=',
          0.7,
        ),
      ],
    };
  } finally {
    await receiver.stop().catch(() => undefined);
  }
}

/**
 * Telemetry (docs/api.md#telemetry): traces, metrics and logs through OpenTelemetry, exported to Azure
 * Monitor when `APPLICATIONINSIGHTS_CONNECTION_STRING` is set, over OTLP/HTTP when
 * `OTEL_EXPORTER_OTLP_ENDPOINT` is, and nowhere otherwise.
 *
 * This module is what the rest of the service calls, and it imports no package at run time: with
 * neither setting nothing of OpenTelemetry ever loads (the Functions host imports every function file
 * at start-up, and `http/register.ts` imports this), and every helper below runs its work with no
 * span around it. With one of them, the first invocation of any function starts the SDK
 * ({@link startTelemetry}, which imports `sdk.ts` and the packages it needs) and the helpers then use
 * `@opentelemetry/api` through the runtime that start made.
 *
 * What the service records (docs/api.md#telemetry): a server span per HTTP request (OpenTelemetry's
 * HTTP conventions: `http.request.method`, `http.route` as the route's template,
 * `http.response.status_code`; never the URL, its query or a header), a span per queue and timer
 * invocation, per storage call (`storage/storageSpans.ts`: the operation and the table, container or queue,
 * nothing of the key or the URL), per seal and its steps, per e-mail and text message sent and per
 * webhook delivery; the metrics of {@link METRICS}; and the service's log lines as OpenTelemetry log
 * records. Every string it exports that the service did not compose from names and ids passes
 * through `redact.ts`.
 */
import type { Attributes, AttributeValue, Context, Counter, Histogram, Span, SpanKind, Tracer } from '@opentelemetry/api';
import type * as OpenTelemetryApi from '@opentelemetry/api';
import type { HttpRequest, HttpResponseInit, InvocationContext } from '@azure/functions';
import { problemTypeUri } from '../errors.js';
import { redact } from './redact.js';

export { redact } from './redact.js';

/** Where telemetry goes: chosen by the settings (see {@link telemetryExporter}). */
export type TelemetryExporter = 'azure-monitor' | 'otlp' | 'none';

/**
 * Where this process's telemetry goes: `azure-monitor` when `APPLICATIONINSIGHTS_CONNECTION_STRING`
 * is set (it wins when both are), `otlp` when `OTEL_EXPORTER_OTLP_ENDPOINT` (or the endpoint of
 * traces, metrics or logs alone) is, `none` otherwise or when `OTEL_SDK_DISABLED=true`
 * (OpenTelemetry's own switch).
 */
export function telemetryExporter(env: NodeJS.ProcessEnv = process.env): TelemetryExporter {
  const set = (name: string) => (env[name]?.trim() ?? '') !== '';
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return 'none';
  if (set('APPLICATIONINSIGHTS_CONNECTION_STRING')) return 'azure-monitor';
  if (['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'OTEL_EXPORTER_OTLP_METRICS_ENDPOINT', 'OTEL_EXPORTER_OTLP_LOGS_ENDPOINT'].some(set)) return 'otlp';
  return 'none';
}

/** The metrics' names, as docs/api.md#telemetry lists them. */
export const METRICS = {
  /** Counter: envelopes sent (the `envelope.sent` event committed). */
  envelopesSent: 'envelopes.sent',
  /** Counter: envelopes completed (sealed and committed). */
  envelopesCompleted: 'envelopes.completed',
  /** Histogram, seconds: one completion's seal, from reading the envelope's trail to the sealed PDF stored; attribute `seal.outcome`. */
  sealDuration: 'seal.duration',
  /** Gauge, seconds: the age of the oldest outbox batch not yet delivered, as the last sweep saw it. */
  outboxOldestAge: 'outbox.oldest_age',
  /** Counter: webhook delivery attempts that failed (no 2xx). */
  webhookFailures: 'webhook.failures',
  /** Counter: HTTP answers with a 5xx status. */
  serverErrors: 'http.server.errors',
} as const;

/** The instruments of {@link METRICS} but the gauge (observed from {@link outboxAge}). */
export interface TelemetryInstruments {
  envelopesSent: Counter;
  envelopesCompleted: Counter;
  sealDuration: Histogram;
  webhookFailures: Counter;
  serverErrors: Counter;
}

/** Severity of a log record: the Functions host's levels. */
export type LogLevel = 'trace' | 'debug' | 'information' | 'warning' | 'error' | 'critical';

/** What `sdk.ts` makes when it starts the SDK; the helpers below use it. */
export interface TelemetryRuntime {
  api: typeof OpenTelemetryApi;
  tracer: Tracer;
  instruments: TelemetryInstruments;
  /** Emits one log record (its body already redacted), in the active context. */
  log(level: LogLevel, body: string): void;
  /** Exports what is buffered. */
  flush(): Promise<void>;
  /** Exports what is buffered and stops the providers (their timers included). */
  shutdown(): Promise<void>;
}

let runtime: TelemetryRuntime | undefined;
let starting: Promise<void> | undefined;
let wanted: boolean | undefined;

/** Whether this process exports telemetry (decided once, from the settings, on first call). */
export function telemetryWanted(): boolean {
  wanted ??= telemetryExporter() !== 'none';
  return wanted;
}

/**
 * Starts the SDK when a setting asks for telemetry (see {@link telemetryExporter}), once per process:
 * concurrent first callers share the start. Does nothing, and imports nothing, otherwise. A start
 * that fails is logged once and not tried again: the service works on without telemetry.
 */
export async function startTelemetry(): Promise<void> {
  if (runtime !== undefined || !telemetryWanted()) return;
  starting ??= (async () => {
    try {
      const exporter = telemetryExporter();
      if (exporter === 'none') return;
      const sdk = await import('./sdk.js');
      runtime = await sdk.startSdk(exporter, { outboxOldestAgeSeconds: outboxAge.oldestAgeSeconds });
    } catch (error) {
      console.warn(`Telemetry did not start; the service runs without it: ${redact(error instanceof Error ? error.message : String(error))}`);
    }
  })();
  await starting;
}

/** Exports what the SDK holds (a host stopping, a test reading its collector); nothing without telemetry. */
export async function flushTelemetry(): Promise<void> {
  await runtime?.flush();
}

/**
 * Exports what the SDK holds and stops it, for a process that is ending (a test file's last step):
 * nothing is recorded afterwards, and nothing starts again in this process.
 */
export async function stopTelemetry(): Promise<void> {
  const current = runtime;
  runtime = undefined;
  wanted = false;
  await current?.shutdown();
}

/** What a helper's work may add to its span. Without telemetry, a stand-in that drops everything. */
export interface SpanNotes {
  /** Adds an attribute: a name of an operation, an id, a status, a count; never a secret or an address. */
  set(name: string, value: AttributeValue): void;
}

const NO_NOTES: SpanNotes = { set: () => undefined };

function notesOf(span: Span): SpanNotes {
  return { set: (name, value) => void span.setAttribute(name, typeof value === 'string' ? redact(value) : value) };
}

/** Attribute objects already redacted by {@link staticAttributes}: a span given one uses it as it is. */
const sanitized = new WeakSet<Attributes>();

/** Attributes with every string value redacted (see {@link redact}), or `attributes` itself when {@link staticAttributes} made it. */
function redactedAttributes(attributes: Attributes): Attributes {
  if (sanitized.has(attributes)) return attributes;
  const out: Attributes = {};
  for (const [name, value] of Object.entries(attributes)) out[name] = typeof value === 'string' ? redact(value) : value;
  return out;
}

/**
 * Attributes a caller gives many spans (a storage call's operation and table, a route): redacted once
 * here (see {@link redact}) and frozen, so that each span that is given the returned object uses it as
 * it is rather than redacting and copying it again.
 */
export function staticAttributes(attributes: Attributes): Readonly<Attributes> {
  const frozen = Object.freeze(redactedAttributes(attributes));
  sanitized.add(frozen);
  return frozen;
}

/** The kind of a span: `internal` for the service's own steps, `client` for calls out, `server` and `consumer` for invocations. */
export type SpanRole = 'internal' | 'client' | 'server' | 'consumer';

function spanKind(api: typeof OpenTelemetryApi, role: SpanRole): SpanKind {
  return role === 'client' ? api.SpanKind.CLIENT : role === 'server' ? api.SpanKind.SERVER : role === 'consumer' ? api.SpanKind.CONSUMER : api.SpanKind.INTERNAL;
}

/** The kind of an error for `error.type`: the problem's type, else the error's class name. */
export function errorType(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const type = (error as { type?: unknown }).type;
    if (typeof type === 'string' && type.startsWith(problemTypeUri(''))) return type;
    const name = (error as { name?: unknown }).name;
    if (typeof name === 'string' && name !== '') return name;
  }
  return 'Error';
}

function markFailed(api: typeof OpenTelemetryApi, span: Span, error: unknown): void {
  span.setAttribute('error.type', errorType(error));
  span.setStatus({ code: api.SpanStatusCode.ERROR, message: redact(error instanceof Error ? error.message : String(error)).slice(0, 500) });
}

/**
 * Runs `work` in a span named `name` (a child of the active span), which ends when the work does; an
 * error the work throws marks the span failed (`error.type`, the redacted message) and is rethrown.
 * Without telemetry, runs `work` alone.
 * @param attributes ids and names only (string values are redacted all the same)
 */
export async function inSpan<T>(name: string, attributes: Attributes, work: (notes: SpanNotes) => Promise<T>, role: SpanRole = 'internal'): Promise<T> {
  const current = runtime;
  if (current === undefined) return await work(NO_NOTES);
  const { api } = current;
  return await current.tracer.startActiveSpan(name, { kind: spanKind(api, role), attributes: redactedAttributes(attributes) }, async (span) => {
    try {
      return await work(notesOf(span));
    } catch (error) {
      markFailed(api, span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/**
 * Whether a call made now would be in a trace: telemetry runs and a request's or invocation's span is
 * active. The storage policies ask first, so that calls outside any trace (the local host polling its
 * queues, creating tables at start) cost nothing but this.
 */
export function inTrace(): boolean {
  const current = runtime;
  return current !== undefined && current.api.trace.getActiveSpan() !== undefined;
}

/**
 * A span of a storage call, for the pipeline policies of `storage/storageSpans.ts`: a client span, a
 * child of the active span, that ends when `work` does; `status` gives the answer's HTTP status,
 * recorded as `http.response.status_code`; an error `work` throws marks the span failed and is
 * rethrown. Only within a request's or invocation's trace (see {@link inTrace}): a call outside any
 * makes no span of its own. The span is never made the active one: nothing runs inside a storage
 * call that could be its child, and the hot read makes one or two such calls per request.
 * @param attributes best made once by {@link staticAttributes} (they are redacted otherwise)
 */
export async function inClientSpan<T>(name: string, attributes: Attributes, work: () => Promise<T>, status: (answer: T) => number): Promise<T> {
  const current = runtime;
  if (current === undefined) return await work();
  const { api } = current;
  const parent = api.context.active();
  if (api.trace.getSpan(parent) === undefined) return await work();
  const span = current.tracer.startSpan(name, { kind: api.SpanKind.CLIENT, attributes: redactedAttributes(attributes) }, parent);
  try {
    const answer = await work();
    span.setAttribute('http.response.status_code', status(answer));
    return answer;
  } catch (error) {
    markFailed(api, span, error);
    throw error;
  } finally {
    span.end();
  }
}

let invocationLine = false;

/**
 * Whether an invocation's own log line is being written: the local host writes those to the console,
 * whose mirror (`sdk.ts`) then leaves them alone, as {@link mirrorLogs} sent them already.
 */
export function writingInvocationLine(): boolean {
  return invocationLine;
}

/** The invocation's log methods and the severity each stands for. */
const LOG_METHODS: readonly (readonly ['log' | 'trace' | 'debug' | 'info' | 'warn' | 'error', LogLevel])[] = [
  ['log', 'information'],
  ['trace', 'trace'],
  ['debug', 'debug'],
  ['info', 'information'],
  ['warn', 'warning'],
  ['error', 'error'],
];

/** Mirrors the invocation's log lines into log records (see {@link TelemetryRuntime.log}), each line once, redacted. */
function mirrorLogs(current: TelemetryRuntime, context: InvocationContext): void {
  for (const [method, level] of LOG_METHODS) {
    const original = context[method];
    context[method] = (...args: unknown[]) => {
      invocationLine = true;
      try {
        original.apply(context, args);
      } finally {
        invocationLine = false;
      }
      current.log(level, redact(args.map((arg) => (arg instanceof Error ? arg.message : typeof arg === 'string' ? arg : safeJson(arg))).join(' ')));
    };
  }
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** The parent of an invocation's span: the host's trace context when it gives one, else the caller's `traceparent` (W3C Trace Context), else none. */
function parentOf(api: typeof OpenTelemetryApi, context: InvocationContext, headers?: HttpRequest['headers']): Context {
  const fromHost = context.traceContext?.traceParent;
  if (typeof fromHost === 'string' && fromHost !== '') {
    const carrier: Record<string, string> = { traceparent: fromHost };
    if (typeof context.traceContext?.traceState === 'string' && context.traceContext.traceState !== '') carrier.tracestate = context.traceContext.traceState;
    return api.propagation.extract(api.ROOT_CONTEXT, carrier);
  }
  // Without a `traceparent` there is no trace to continue: the propagators are not run.
  if (headers === undefined || !headers.has('traceparent')) return api.ROOT_CONTEXT;
  return api.propagation.extract(api.ROOT_CONTEXT, headers, {
    keys: (carrier) => [...carrier.keys()],
    get: (carrier, key) => carrier.get(key) ?? undefined,
  });
}

/** A request span's name and attributes, by method and route: the same for every request of a route, so made once. */
const requestSpans = new Map<string, { name: string; attributes: Readonly<Attributes> }>();
/** Routes × methods kept at most in {@link requestSpans} (the service registers fewer than 200). */
const REQUEST_SPANS_KEPT = 1000;

function requestSpanOf(requestMethod: string, route: string): { name: string; attributes: Readonly<Attributes> } {
  const key = `${requestMethod} ${route}`;
  const known = requestSpans.get(key);
  if (known !== undefined) return known;
  const template = `/api/${route}`;
  const method = requestMethod.toUpperCase();
  // Composed from the registration's route, never the request's path: nothing to redact (as before).
  const made = { name: `${method} ${template}`, attributes: Object.freeze({ 'http.request.method': method, 'http.route': template }) };
  if (requestSpans.size < REQUEST_SPANS_KEPT) requestSpans.set(key, made);
  return made;
}

/**
 * Runs one HTTP invocation in a server span (OpenTelemetry's HTTP server conventions): named
 * `<method> <route>`, with `http.request.method`, `http.route` (the route's template, `/api/envelopes/{id}`),
 * `http.response.status_code`, and for a 5xx `error.type` and a count in `http.server.errors`. Nothing
 * of the URL, its query or the headers is recorded. The invocation's log lines become log records.
 * Starts the SDK on the first call (see {@link startTelemetry}); without telemetry, runs `answer` alone.
 * @param route the route below `/api` as registered (`envelopes/{id}`)
 */
export async function inRequestSpan(route: string, request: HttpRequest, context: InvocationContext, answer: () => Promise<HttpResponseInit>): Promise<HttpResponseInit> {
  if (!telemetryWanted()) return await answer();
  await startTelemetry();
  const current = runtime;
  if (current === undefined) return await answer();
  const { api } = current;
  mirrorLogs(current, context);
  const { name, attributes } = requestSpanOf(request.method, route);
  return await current.tracer.startActiveSpan(name, { kind: api.SpanKind.SERVER, attributes }, parentOf(api, context, request.headers), async (span) => {
    try {
      const response = await answer();
      const status = response.status ?? 200;
      span.setAttribute('http.response.status_code', status);
      if (status >= 500) {
        span.setAttribute('error.type', String(status));
        span.setStatus({ code: api.SpanStatusCode.ERROR });
        current.instruments.serverErrors.add(1, { ...attributes, 'http.response.status_code': status });
      }
      return response;
    } catch (error) {
      markFailed(api, span, error);
      current.instruments.serverErrors.add(1, { ...attributes, 'http.response.status_code': 500 });
      throw error;
    } finally {
      span.end();
    }
  });
}

/**
 * Runs one queue or timer invocation in a span: `process <queue>` (consumer, `messaging.destination.name`,
 * `faas.trigger` `pubsub`) or the timer function's name (`faas.trigger` `timer`), with
 * `faas.invocation_id`. A failure marks the span failed and is rethrown. Starts the SDK on the first
 * call; without telemetry, runs `work` alone.
 */
export async function inTriggerSpan(trigger: { queue: string } | { timer: string }, context: InvocationContext, work: () => Promise<void>): Promise<void> {
  if (!telemetryWanted()) return await work();
  await startTelemetry();
  const current = runtime;
  if (current === undefined) return await work();
  mirrorLogs(current, context);
  const { api } = current;
  const queue = 'queue' in trigger;
  const name = queue ? `process ${trigger.queue}` : trigger.timer;
  const attributes: Attributes = queue
    ? { 'faas.trigger': 'pubsub', 'messaging.destination.name': trigger.queue, 'messaging.operation.type': 'process', 'faas.invocation_id': context.invocationId }
    : { 'faas.trigger': 'timer', 'faas.name': trigger.timer, 'faas.invocation_id': context.invocationId };
  await current.tracer.startActiveSpan(name, { kind: queue ? api.SpanKind.CONSUMER : api.SpanKind.INTERNAL, attributes }, parentOf(api, context), async (span) => {
    try {
      await work();
    } catch (error) {
      markFailed(api, span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/**
 * Counts the envelopes a committed change sent or completed (`envelopes.sent`, `envelopes.completed`)
 * from its audit events' types. Nothing without telemetry.
 */
export function countEnvelopeEvents(types: Iterable<string>): void {
  const current = runtime;
  if (current === undefined) return;
  for (const type of types) {
    if (type === 'envelope.sent') current.instruments.envelopesSent.add(1);
    else if (type === 'envelope.completed') current.instruments.envelopesCompleted.add(1);
  }
}

/** What became of a seal, for `seal.duration`'s `seal.outcome`: `contended` when another request sealed the same state. */
export type SealOutcome = 'sealed' | 'failed' | 'contended';

/**
 * Runs one completion's seal in the span `seal` and records its duration in `seal.duration`
 * (seconds), with `seal.outcome` (`sealed`, `failed`, or `contended` when `contended(error)` says the
 * failure was another request's seal of the same state or a newer state) and `seal.level`.
 */
export async function inSealSpan<T>(attributes: { envelopeId: string; level: string }, work: () => Promise<T>, contended: (error: unknown) => boolean): Promise<T> {
  const current = runtime;
  if (current === undefined) return await work();
  const started = performance.now();
  let outcome: SealOutcome = 'failed';
  try {
    const result = await inSpan('seal', { 'envelope.id': attributes.envelopeId, 'seal.level': attributes.level }, async () => await work());
    outcome = 'sealed';
    return result;
  } catch (error) {
    if (contended(error)) outcome = 'contended';
    throw error;
  } finally {
    current.instruments.sealDuration.record((performance.now() - started) / 1000, { 'seal.outcome': outcome, 'seal.level': attributes.level });
  }
}

/** Counts one failed webhook delivery attempt in `webhook.failures`, by outcome (`retrying`, `failed`) and answer status class. */
export function countWebhookFailure(attributes: { outcome: string; status: number | null }): void {
  runtime?.instruments.webhookFailures.add(1, {
    'webhook.outcome': attributes.outcome,
    'http.response.status_code': attributes.status ?? 0,
  });
}

/**
 * The age of the oldest outbox batch not yet delivered, as the sweeper sees it (docs/api.md#the-sweeper):
 * its outbox step reports every batch it looks at ({@link OutboxAge.pending}, {@link OutboxAge.settled})
 * and when it has looked ({@link OutboxAge.swept}); `outbox.oldest_age` observes
 * {@link OutboxAge.oldestAgeSeconds}. Kept in memory only while telemetry runs.
 */
export class OutboxAge {
  /** Batches kept at most; past it the oldest are kept (the gauge is about them). */
  static readonly LIMIT = 10_000;
  private readonly batches = new Map<string, number>();
  private lastSweep: number | null = null;

  /** A batch with messages not yet in a final state, made at `createdAt` (ISO 8601). */
  pending(batchId: string, createdAt: string): void {
    if (runtime === undefined) return;
    const made = Date.parse(createdAt);
    if (Number.isNaN(made)) return;
    if (this.batches.size >= OutboxAge.LIMIT && !this.batches.has(batchId)) {
      const youngest = [...this.batches.entries()].reduce((a, b) => (b[1] > a[1] ? b : a));
      if (youngest[1] <= made) return;
      this.batches.delete(youngest[0]);
    }
    this.batches.set(batchId, made);
  }

  /** A batch every message of which has a final state, or that is no longer watched, or gone. */
  settled(batchId: string): void {
    this.batches.delete(batchId);
  }

  /** The outbox step has run at `at`. */
  swept(at: Date): void {
    if (runtime === undefined) return;
    this.lastSweep = at.getTime();
  }

  /**
   * Seconds since the oldest pending batch was made, 0 when none is pending; `null` when this process
   * has not swept in the last {@link OUTBOX_AGE_FRESH_SECONDS} (another instance runs the sweeper).
   */
  readonly oldestAgeSeconds = (now: number = Date.now()): number | null => {
    if (this.lastSweep === null || now - this.lastSweep > OUTBOX_AGE_FRESH_SECONDS * 1000) return null;
    let oldest = Number.POSITIVE_INFINITY;
    for (const made of this.batches.values()) oldest = Math.min(oldest, made);
    return oldest === Number.POSITIVE_INFINITY ? 0 : Math.max(0, (now - oldest) / 1000);
  };
}

/** Seconds after its last sweep when a process stops reporting `outbox.oldest_age` (the sweeper runs every five minutes by default). */
export const OUTBOX_AGE_FRESH_SECONDS = 900;

/** This process's view of the outbox's age (see {@link OutboxAge}). */
export const outboxAge = new OutboxAge();

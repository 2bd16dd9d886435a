/**
 * The service as it would be built without telemetry, for the cold start's telemetry-off row
 * (`suites/coldStart.ts`): a stand-in for `src/lib/telemetry/index.ts` that the cold-start process
 * loads in its place (`telemetryHooks.ts`), with every export the service imports, each doing only
 * the work it wraps, as the code did before telemetry existed. It imports nothing, so that neither
 * the telemetry's front nor `redact.ts` loads.
 *
 * The type check below fails to compile when the real module gains an export this one lacks; a name
 * missing at run time would also fail the cold-start process at link time.
 */
import type * as Telemetry from '../../src/lib/telemetry/index.js';
import type * as NoTelemetry from './noTelemetry.js';

const NO_NOTES: Telemetry.SpanNotes = { set: () => undefined };

export const redact: typeof Telemetry.redact = (text) => text;
export const telemetryExporter: typeof Telemetry.telemetryExporter = () => 'none';
// Read only by `sdk.ts`, which never loads without telemetry: the names are not repeated here.
export const METRICS = Object.freeze({}) as typeof Telemetry.METRICS;
export const telemetryWanted: typeof Telemetry.telemetryWanted = () => false;
export const startTelemetry: typeof Telemetry.startTelemetry = async () => undefined;
export const flushTelemetry: typeof Telemetry.flushTelemetry = async () => undefined;
export const stopTelemetry: typeof Telemetry.stopTelemetry = async () => undefined;
export const staticAttributes: typeof Telemetry.staticAttributes = (attributes) => attributes;
export const errorType: typeof Telemetry.errorType = () => 'Error';
export const inSpan: typeof Telemetry.inSpan = async (_name, _attributes, work) => await work(NO_NOTES);
export const inTrace: typeof Telemetry.inTrace = () => false;
export const inClientSpan: typeof Telemetry.inClientSpan = async (_name, _attributes, work) => await work();
export const writingInvocationLine: typeof Telemetry.writingInvocationLine = () => false;
export const inRequestSpan: typeof Telemetry.inRequestSpan = async (_route, _request, _context, answer) => await answer();
export const inTriggerSpan: typeof Telemetry.inTriggerSpan = async (_trigger, _context, work) => await work();
export const countEnvelopeEvents: typeof Telemetry.countEnvelopeEvents = () => undefined;
export const inSealSpan: typeof Telemetry.inSealSpan = async (_attributes, work) => await work();
export const countWebhookFailure: typeof Telemetry.countWebhookFailure = () => undefined;
export class OutboxAge {
  static readonly LIMIT = 10_000;
  pending(_batchId: string, _createdAt: string): void {}
  settled(_batchId: string): void {}
  swept(_at: Date): void {}
  readonly oldestAgeSeconds = (_now?: number): number | null => null;
}
export const OUTBOX_AGE_FRESH_SECONDS = 900;
export const outboxAge = new OutboxAge();

/** Every value the real module exports, this one exports too (`true` only then). */
export const EXPORTS_MATCH: Exclude<keyof typeof Telemetry, keyof typeof NoTelemetry> extends never ? true : never = true;

/**
 * Starts OpenTelemetry (docs/api.md#telemetry): imported only by `startTelemetry` (`index.ts`), and
 * only when a setting asks for telemetry, so that nothing here loads otherwise.
 *
 * - `azure-monitor`: the Azure Monitor OpenTelemetry distro (`useAzureMonitor`) with the connection
 *   string of `APPLICATIONINSIGHTS_CONNECTION_STRING`.
 * - `otlp`: the Node SDK (`@opentelemetry/sdk-node`), which reads the standard `OTEL_*` variables:
 *   OTLP/HTTP with protobuf unless `OTEL_EXPORTER_OTLP_PROTOCOL` (or the variable of one signal) says
 *   `http/json`, the endpoint and headers of `OTEL_EXPORTER_OTLP_*`, `OTEL_SERVICE_NAME`,
 *   `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_METRIC_EXPORT_INTERVAL`, `OTEL_BSP_*`, `OTEL_TRACES_SAMPLER`...
 *
 * Either way no instrumentation patches a library: the distro's automatic ones are turned off (they
 * would record outgoing URLs, storage keys among them), and every span is the service's own
 * (`index.ts`). The resource says which service and host sent it, never the process's command line.
 */
import { format } from 'node:util';
import type { TokenCredential } from '@azure/core-auth';
import * as api from '@opentelemetry/api';
import { logs, SeverityNumber } from '@opentelemetry/api-logs';
import { METRICS, redact, writingInvocationLine, type LogLevel, type TelemetryExporter, type TelemetryRuntime } from './index.js';

/** The instrumentation scope of every span, metric and log record. */
export const SCOPE = 'envelope-signing-service';
/** `service.name` unless `OTEL_SERVICE_NAME` or `OTEL_RESOURCE_ATTRIBUTES` names one. */
export const DEFAULT_SERVICE_NAME = 'envelope-signing-service';

const SEVERITY: Record<LogLevel, SeverityNumber> = {
  trace: SeverityNumber.TRACE,
  debug: SeverityNumber.DEBUG,
  information: SeverityNumber.INFO,
  warning: SeverityNumber.WARN,
  error: SeverityNumber.ERROR,
  critical: SeverityNumber.FATAL,
};

/** Whether the settings name the service themselves. */
function serviceNamed(env: NodeJS.ProcessEnv): boolean {
  return (env.OTEL_SERVICE_NAME?.trim() ?? '') !== '' || /(^|,)\s*service\.name\s*=/.test(env.OTEL_RESOURCE_ATTRIBUTES ?? '');
}

/**
 * The managed identity's client id when `APPLICATIONINSIGHTS_AUTHENTICATION_STRING` asks for Entra ID
 * (`ClientId=<id>;Authorization=AAD`, as the Bicep sets it: the component refuses the connection
 * string's key alone); `null` for no such setting; `''` for the system-assigned identity.
 */
export function entraClientId(authentication: string | undefined): string | null {
  const parts = new Map((authentication ?? '').split(';').map((part) => part.split('=').map((text) => text.trim())).filter((pair) => pair.length === 2).map(([name, value]) => [name!.toLowerCase(), value!] as const));
  if (parts.get('authorization')?.toUpperCase() !== 'AAD') return null;
  return parts.get('clientid') ?? '';
}

/**
 * Starts the Azure Monitor distro, without its automatic instrumentations (see the module comment),
 * signing in with the managed identity when `APPLICATIONINSIGHTS_AUTHENTICATION_STRING` says so. Its
 * resource detectors name the service after the Function App (the cloud role), unless `OTEL_SERVICE_NAME` says otherwise.
 */
async function startAzureMonitor(env: NodeJS.ProcessEnv): Promise<void> {
  const { useAzureMonitor } = await import('@azure/monitor-opentelemetry');
  const clientId = entraClientId(env.APPLICATIONINSIGHTS_AUTHENTICATION_STRING);
  let credential: TokenCredential | undefined;
  if (clientId !== null) {
    const { ManagedIdentityCredential } = await import('@azure/identity');
    credential = clientId === '' ? new ManagedIdentityCredential() : new ManagedIdentityCredential({ clientId });
  }
  const off = { enabled: false };
  useAzureMonitor({
    azureMonitorExporterOptions: { connectionString: env.APPLICATIONINSIGHTS_CONNECTION_STRING!.trim(), ...(credential === undefined ? {} : { credential }) },
    instrumentationOptions: { azureSdk: off, http: off, mongoDb: off, mySql: off, postgreSql: off, redis: off, redis4: off, bunyan: off, winston: off },
  });
}

/** Starts the Node SDK with OTLP exporters chosen by the `OTEL_*` variables (see the module comment). */
async function startOtlp(env: NodeJS.ProcessEnv): Promise<void> {
  const { NodeSDK, resources } = await import('@opentelemetry/sdk-node');
  const sdk = new NodeSDK({
    ...(serviceNamed(env) ? {} : { serviceName: DEFAULT_SERVICE_NAME }),
    // `OTEL_NODE_RESOURCE_DETECTORS` decides when set; otherwise the settings' own attributes and the
    // host, not the process detector (it records the command line).
    ...((env.OTEL_NODE_RESOURCE_DETECTORS?.trim() ?? '') === '' ? { resourceDetectors: [resources.envDetector, resources.hostDetector] } : {}),
    instrumentations: [],
  });
  sdk.start();
}

/** Calls `forceFlush` (or `shutdown`) on a provider that has one (the SDK's; the API's no-op ones have none). */
async function onProvider(provider: unknown, method: 'forceFlush' | 'shutdown'): Promise<void> {
  const delegate = (provider as { getDelegate?: () => unknown }).getDelegate?.() ?? provider;
  const call = (delegate as Partial<Record<typeof method, () => Promise<void>>>)[method];
  if (typeof call === 'function') await call.call(delegate);
}

/** The SDK's three providers, as registered with the API. */
function providers(): unknown[] {
  return [api.trace.getTracerProvider(), api.metrics.getMeterProvider(), logs.getLoggerProvider()];
}

/**
 * Starts the SDK for `exporter` and makes the runtime the helpers of `index.ts` use: the tracer, the
 * instruments of {@link METRICS}, the log emitter. Also mirrors `console.warn` and `console.error`
 * (where the service logs outside an invocation) into log records.
 * @param observe what `outbox.oldest_age` observes: seconds, or `null` for nothing to report
 * @throws whatever the SDK throws when it cannot start (a malformed connection string)
 */
export async function startSdk(exporter: Exclude<TelemetryExporter, 'none'>, observe: { outboxOldestAgeSeconds: () => number | null }): Promise<TelemetryRuntime> {
  if (exporter === 'azure-monitor') await startAzureMonitor(process.env);
  else await startOtlp(process.env);

  const tracer = api.trace.getTracer(SCOPE);
  const meter = api.metrics.getMeter(SCOPE);
  const instruments = {
    envelopesSent: meter.createCounter(METRICS.envelopesSent, { description: 'Envelopes sent', unit: '{envelope}' }),
    envelopesCompleted: meter.createCounter(METRICS.envelopesCompleted, { description: 'Envelopes completed (sealed)', unit: '{envelope}' }),
    sealDuration: meter.createHistogram(METRICS.sealDuration, { description: 'Duration of a completion\'s seal', unit: 's' }),
    webhookFailures: meter.createCounter(METRICS.webhookFailures, { description: 'Webhook delivery attempts that failed', unit: '{attempt}' }),
    serverErrors: meter.createCounter(METRICS.serverErrors, { description: 'HTTP answers with a 5xx status', unit: '{response}' }),
  };
  meter
    .createObservableGauge(METRICS.outboxOldestAge, { description: 'Age of the oldest outbox batch not yet delivered, as the last sweep saw it', unit: 's' })
    .addCallback((result) => {
      const age = observe.outboxOldestAgeSeconds();
      if (age !== null) result.observe(age);
    });
  const logger = logs.getLogger(SCOPE);
  const log = (level: LogLevel, body: string) => {
    logger.emit({ severityNumber: SEVERITY[level], severityText: level.toUpperCase(), body });
  };
  mirrorConsole(log);
  return {
    api,
    tracer,
    instruments,
    log,
    async flush() {
      await Promise.all(providers().map(async (provider) => await onProvider(provider, 'forceFlush')));
    },
    async shutdown() {
      await Promise.all(providers().map(async (provider) => await onProvider(provider, 'shutdown')));
    },
  };
}

/** Makes `console.warn` and `console.error` also emit log records (redacted), as well as writing as before. */
function mirrorConsole(log: (level: LogLevel, body: string) => void): void {
  for (const [method, level] of [['warn', 'warning'], ['error', 'error']] as const) {
    const original = console[method].bind(console);
    console[method] = (...args: unknown[]) => {
      original(...args);
      if (!writingInvocationLine()) log(level, redact(format(...args)));
    };
  }
}

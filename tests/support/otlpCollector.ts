/**
 * A loopback OpenTelemetry collector for the tests: an OTLP/HTTP receiver (`POST /v1/traces`,
 * `/v1/metrics`, `/v1/logs`, protobuf, the SDK's default) that decodes what it receives into spans,
 * metric points and log records, and keeps every request's raw bytes, so that a test can search every
 * exported value, whatever field it sits in.
 *
 * The decoder reads the protobuf wire format (varints, fixed 32 and 64 bits, length-delimited fields)
 * with the field numbers of OTLP's `.proto` files (opentelemetry-proto, `collector/*` and the
 * messages they carry); the fields a test does not look at are skipped.
 */
import { createServer, type IncomingMessage } from 'node:http';
import { gunzipSync } from 'node:zlib';
import type { AddressInfo } from 'node:net';

/** An attribute value as OTLP carries it. */
export type OtlpValue = string | number | boolean | bigint | Uint8Array | OtlpValue[] | { [key: string]: OtlpValue } | null;

export interface CollectedSpan {
  name: string;
  /** OTLP's `SpanKind`: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  attributes: Record<string, OtlpValue>;
  /** `code` 0 unset, 1 ok, 2 error. */
  status: { code: number; message: string };
  events: { name: string; attributes: Record<string, OtlpValue> }[];
  resource: Record<string, OtlpValue>;
  scope: string;
}

export interface CollectedPoint {
  attributes: Record<string, OtlpValue>;
  /** A sum's or gauge's value; a histogram's sum. */
  value: number;
  /** A histogram point's count. */
  count?: number;
}

export interface CollectedMetric {
  name: string;
  unit: string;
  description: string;
  type: 'gauge' | 'sum' | 'histogram' | 'other';
  points: CollectedPoint[];
  resource: Record<string, OtlpValue>;
  scope: string;
}

export interface CollectedLog {
  body: OtlpValue;
  severityText: string;
  severityNumber: number;
  attributes: Record<string, OtlpValue>;
  traceId: string;
  resource: Record<string, OtlpValue>;
}

export interface OtlpCollector {
  /** The endpoint to give `OTEL_EXPORTER_OTLP_ENDPOINT` (the exporters append `/v1/<signal>`). */
  url: string;
  spans: CollectedSpan[];
  metrics: CollectedMetric[];
  logs: CollectedLog[];
  /** Each request as received: path, content type and body. */
  requests: { path: string; contentType: string; body: Buffer }[];
  /** Every text value decoded from every request: names, attribute keys and values, resources, scopes, log bodies, status messages, units. */
  strings(): string[];
  close(): Promise<void>;
}

// --- The protobuf wire format -------------------------------------------------------------------

interface Field {
  wire: number;
  /** Varints and fixed64 as bigint; length-delimited and fixed32 as their bytes. */
  value: bigint | Uint8Array;
}

/** Reads the fields of one message, by field number, in order. */
function fieldsOf(bytes: Uint8Array): Map<number, Field[]> {
  const fields = new Map<number, Field[]>();
  let at = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (at >= bytes.length) throw new Error('truncated varint');
      const byte = bytes[at++]!;
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7n;
    }
  };
  while (at < bytes.length) {
    const key = Number(varint());
    const number = key >>> 3;
    const wire = key & 7;
    let value: bigint | Uint8Array;
    if (wire === 0) value = varint();
    else if (wire === 1) {
      value = new DataView(bytes.buffer, bytes.byteOffset + at, 8).getBigUint64(0, true);
      at += 8;
    } else if (wire === 2) {
      const length = Number(varint());
      value = bytes.subarray(at, at + length);
      at += length;
    } else if (wire === 5) {
      value = bytes.subarray(at, at + 4);
      at += 4;
    } else throw new Error(`unsupported wire type ${wire}`);
    if (at > bytes.length) throw new Error('truncated field');
    const list = fields.get(number) ?? [];
    list.push({ wire, value });
    fields.set(number, list);
  }
  return fields;
}

const decoder = new TextDecoder('utf-8', { fatal: true });
const all = (fields: Map<number, Field[]>, number: number): Field[] => fields.get(number) ?? [];
const bytesOf = (fields: Map<number, Field[]>, number: number): Uint8Array | undefined => {
  const value = all(fields, number).at(-1)?.value;
  return value instanceof Uint8Array ? value : undefined;
};
const textOf = (fields: Map<number, Field[]>, number: number): string => {
  const bytes = bytesOf(fields, number);
  return bytes === undefined ? '' : decoder.decode(bytes);
};
const numberOf = (fields: Map<number, Field[]>, number: number): number => {
  const value = all(fields, number).at(-1)?.value;
  return typeof value === 'bigint' ? Number(value) : 0;
};
const hex = (bytes: Uint8Array | undefined): string => (bytes === undefined ? '' : Buffer.from(bytes).toString('hex'));
const doubleOf = (value: bigint): number => {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, value, true);
  return view.getFloat64(0, true);
};

/** `AnyValue`: 1 string, 2 bool, 3 int, 4 double, 5 array, 6 key-value list, 7 bytes. */
function anyValue(bytes: Uint8Array): OtlpValue {
  const fields = fieldsOf(bytes);
  if (fields.has(1)) return textOf(fields, 1);
  if (fields.has(2)) return numberOf(fields, 2) !== 0;
  if (fields.has(3)) return BigInt.asIntN(64, all(fields, 3).at(-1)!.value as bigint);
  if (fields.has(4)) return doubleOf(all(fields, 4).at(-1)!.value as bigint);
  if (fields.has(5)) return all(fieldsOf(bytesOf(fields, 5)!), 1).map((item) => anyValue(item.value as Uint8Array));
  if (fields.has(6)) return attributesOf(fieldsOf(bytesOf(fields, 6)!), 1);
  if (fields.has(7)) return bytesOf(fields, 7)!;
  return null;
}

/** The `KeyValue` fields at `number` (1 key, 2 value) as a record. */
function attributesOf(fields: Map<number, Field[]>, number: number): Record<string, OtlpValue> {
  const out: Record<string, OtlpValue> = {};
  for (const item of all(fields, number)) {
    const pair = fieldsOf(item.value as Uint8Array);
    const value = bytesOf(pair, 2);
    out[textOf(pair, 1)] = value === undefined ? null : anyValue(value);
  }
  return out;
}

/** `Resource` (1 attributes) at field `number`. */
const resourceOf = (fields: Map<number, Field[]>, number: number): Record<string, OtlpValue> => {
  const bytes = bytesOf(fields, number);
  return bytes === undefined ? {} : attributesOf(fieldsOf(bytes), 1);
};
/** `InstrumentationScope` (1 name) at field `number`. */
const scopeOf = (fields: Map<number, Field[]>, number: number): string => {
  const bytes = bytesOf(fields, number);
  return bytes === undefined ? '' : textOf(fieldsOf(bytes), 1);
};

/**
 * The items of an export request, every signal alike: the request's field 1 holds the resource's
 * entries (1 resource, 2 scope entries), each scope entry (1 scope, 2 items) the spans, metrics or
 * log records, decoded with their resource and scope.
 */
function* scopedItems(body: Uint8Array): Generator<{ resource: Record<string, OtlpValue>; scope: string; fields: Map<number, Field[]> }> {
  for (const resourceEntry of all(fieldsOf(body), 1)) {
    const resourceFields = fieldsOf(resourceEntry.value as Uint8Array);
    const resource = resourceOf(resourceFields, 1);
    for (const scopeEntry of all(resourceFields, 2)) {
      const scopeFields = fieldsOf(scopeEntry.value as Uint8Array);
      const scope = scopeOf(scopeFields, 1);
      for (const item of all(scopeFields, 2)) yield { resource, scope, fields: fieldsOf(item.value as Uint8Array) };
    }
  }
}

/** `ExportTraceServiceRequest` → `ResourceSpans` (1 resource, 2 scope spans) → `ScopeSpans` (1 scope, 2 spans) → `Span`. */
function decodeTraces(body: Uint8Array): CollectedSpan[] {
  const spans: CollectedSpan[] = [];
  for (const { resource, scope, fields: span } of scopedItems(body)) {
    // Span: 1 trace id, 2 span id, 4 parent span id, 5 name, 6 kind, 9 attributes, 11 events, 15 status.
    const status = bytesOf(span, 15);
    const statusFields = status === undefined ? new Map<number, Field[]>() : fieldsOf(status);
    spans.push({
      name: textOf(span, 5),
      kind: numberOf(span, 6),
      traceId: hex(bytesOf(span, 1)),
      spanId: hex(bytesOf(span, 2)),
      parentSpanId: hex(bytesOf(span, 4)),
      attributes: attributesOf(span, 9),
      // Status: 2 message, 3 code.
      status: { code: numberOf(statusFields, 3), message: textOf(statusFields, 2) },
      // Event: 2 name, 3 attributes.
      events: all(span, 11).map((event) => {
        const eventFields = fieldsOf(event.value as Uint8Array);
        return { name: textOf(eventFields, 2), attributes: attributesOf(eventFields, 3) };
      }),
      resource,
      scope,
    });
  }
  return spans;
}

/** A `NumberDataPoint` (7 attributes, 4 as double, 6 as int). */
function numberPoint(bytes: Uint8Array): CollectedPoint {
  const fields = fieldsOf(bytes);
  const asDouble = all(fields, 4).at(-1)?.value;
  const asInt = all(fields, 6).at(-1)?.value;
  const value = typeof asDouble === 'bigint' ? doubleOf(asDouble) : typeof asInt === 'bigint' ? Number(BigInt.asIntN(64, asInt)) : 0;
  return { attributes: attributesOf(fields, 7), value };
}

/** `ExportMetricsServiceRequest` → `ResourceMetrics` → `ScopeMetrics` → `Metric` (1 name, 2 description, 3 unit, 5 gauge, 7 sum, 9 histogram). */
function decodeMetrics(body: Uint8Array): CollectedMetric[] {
  const metrics: CollectedMetric[] = [];
  for (const { resource, scope, fields: metric } of scopedItems(body)) {
    const base = { name: textOf(metric, 1), description: textOf(metric, 2), unit: textOf(metric, 3), resource, scope };
    const gauge = bytesOf(metric, 5);
    const sum = bytesOf(metric, 7);
    const histogram = bytesOf(metric, 9);
    if (gauge !== undefined) metrics.push({ ...base, type: 'gauge', points: all(fieldsOf(gauge), 1).map((point) => numberPoint(point.value as Uint8Array)) });
    else if (sum !== undefined) metrics.push({ ...base, type: 'sum', points: all(fieldsOf(sum), 1).map((point) => numberPoint(point.value as Uint8Array)) });
    else if (histogram !== undefined) {
      // HistogramDataPoint: 9 attributes, 4 count (fixed64), 5 sum (double).
      const points = all(fieldsOf(histogram), 1).map((point): CollectedPoint => {
        const fields = fieldsOf(point.value as Uint8Array);
        const total = all(fields, 5).at(-1)?.value;
        return { attributes: attributesOf(fields, 9), value: typeof total === 'bigint' ? doubleOf(total) : 0, count: numberOf(fields, 4) };
      });
      metrics.push({ ...base, type: 'histogram', points });
    } else metrics.push({ ...base, type: 'other', points: [] });
  }
  return metrics;
}

/** `ExportLogsServiceRequest` → `ResourceLogs` → `ScopeLogs` → `LogRecord` (2 severity number, 3 severity text, 5 body, 6 attributes, 9 trace id). */
function decodeLogs(body: Uint8Array): CollectedLog[] {
  const logs: CollectedLog[] = [];
  for (const { resource, fields: record } of scopedItems(body)) {
    const recordBody = bytesOf(record, 5);
    logs.push({
      body: recordBody === undefined ? null : anyValue(recordBody),
      severityNumber: numberOf(record, 2),
      severityText: textOf(record, 3),
      attributes: attributesOf(record, 6),
      traceId: hex(bytesOf(record, 9)),
      resource,
    });
  }
  return logs;
}

/** Every string in a value: keys and texts, nested ones included. */
function stringsIn(value: OtlpValue, out: string[]): void {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const item of value) stringsIn(item, out);
  else if (value !== null && typeof value === 'object' && !(value instanceof Uint8Array)) {
    for (const [key, item] of Object.entries(value)) {
      out.push(key);
      stringsIn(item, out);
    }
  }
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * Starts the collector on a free loopback port. Every request is answered 200 with an empty
 * protobuf answer (a full success); one that does not decode is answered 400 and fails the test
 * that reads {@link OtlpCollector.spans} (the error is kept and thrown by `strings()`).
 */
export async function startOtlpCollector(): Promise<OtlpCollector> {
  const collected: OtlpCollector = {
    url: '',
    spans: [],
    metrics: [],
    logs: [],
    requests: [],
    strings() {
      if (failures.length > 0) throw new Error(`the collector could not decode a request: ${failures.join('; ')}`);
      const out: string[] = [];
      for (const span of collected.spans) {
        out.push(span.name, span.status.message, span.scope);
        stringsIn(span.attributes, out);
        stringsIn(span.resource, out);
        for (const event of span.events) {
          out.push(event.name);
          stringsIn(event.attributes, out);
        }
      }
      for (const metric of collected.metrics) {
        out.push(metric.name, metric.unit, metric.description, metric.scope);
        stringsIn(metric.resource, out);
        for (const point of metric.points) stringsIn(point.attributes, out);
      }
      for (const log of collected.logs) {
        out.push(log.severityText);
        stringsIn(log.body, out);
        stringsIn(log.attributes, out);
        stringsIn(log.resource, out);
      }
      return out;
    },
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const failures: string[] = [];
  const server = createServer((request, response) => {
    void (async () => {
      const received = await readBody(request);
      // OTEL_EXPORTER_OTLP_COMPRESSION=gzip: kept and searched as the exporter meant it, uncompressed.
      const body = request.headers['content-encoding'] === 'gzip' ? gunzipSync(received) : received;
      const path = request.url ?? '';
      const contentType = request.headers['content-type'] ?? '';
      collected.requests.push({ path, contentType, body });
      try {
        if (!contentType.startsWith('application/x-protobuf')) throw new Error(`content type ${contentType}, not protobuf`);
        if (path === '/v1/traces') collected.spans.push(...decodeTraces(body));
        else if (path === '/v1/metrics') collected.metrics.push(...decodeMetrics(body));
        else if (path === '/v1/logs') collected.logs.push(...decodeLogs(body));
        else throw new Error(`unknown path ${path}`);
        response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      } catch (error) {
        failures.push(`${path}: ${error instanceof Error ? error.message : String(error)}`);
        response.writeHead(400).end();
      }
    })();
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  collected.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = collected.close;
  collected.close = async () => {
    server.closeAllConnections();
    await close();
  };
  return collected;
}

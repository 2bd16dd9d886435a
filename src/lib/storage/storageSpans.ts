/**
 * A span per storage call (docs/api.md#telemetry): the SDK clients of `clients.ts` get one more
 * pipeline policy each, which names the call from its method and URL and runs it in a client span
 * named `<operation> <table, container or queue>` with `db.system.name` (`azure.storage.table`,
 * `.blob`, `.queue`), `db.operation.name`, `db.collection.name` and `http.response.status_code`.
 * Nothing else of the request is recorded: the URL holds partition and row keys (an owner's e-mail
 * address is the key of `users`), blob names and, for a SAS, a signature.
 *
 * The policy is placed per call, so one span covers the SDK's retries of that call. Added only when
 * telemetry is wanted (`telemetryWanted`), so without it the clients are exactly as before.
 */
import type { TableServiceClientOptions } from '@azure/data-tables';
import type { RequestPolicy, RequestPolicyFactory, WebResource } from '@azure/storage-blob';
import type { Attributes } from '@opentelemetry/api';
import { inClientSpan, inTrace, staticAttributes } from '../telemetry/index.js';

/** The storage service a client speaks to. */
export type StorageService = 'table' | 'blob' | 'queue';

/** What a span says of a storage call: the operation, and the table, container or queue when the URL names one. */
export interface StorageCall {
  operation: string;
  collection: string | null;
}

const TABLE_ENTITY = /^\(\s*PartitionKey=/;

/**
 * Names a storage call from its HTTP method, its URL and the path of the account's endpoint (`/` in
 * Azure, `/<account>` for Azurite's path-style URLs): the SDK method it is (`getEntity`,
 * `submitTransaction`, `upload`, `download`, `sendMessage`...) and the table, container or queue it
 * touches. Reads nothing of the keys, the blob's name or the query but `comp`, `restype` and
 * `peekonly`.
 * @param table the table of a `TableClient` (a transaction's URL, `/$batch`, names none)
 */
export function storageCall(service: StorageService, method: string, url: URL, basePath: string, table?: string): StorageCall {
  const base = basePath.replace(/\/+$/, '');
  const rest = url.pathname.startsWith(`${base}/`) ? url.pathname.slice(base.length + 1) : url.pathname.replace(/^\/+/, '');
  const segments = rest.split('/').filter((segment) => segment !== '');
  const verb = method.toUpperCase();
  const comp = url.searchParams.get('comp');
  if (service === 'table') return tableCall(verb, segments[0] ?? '', table);
  if (service === 'blob') return blobCall(verb, segments, comp, url.searchParams.get('restype'));
  return queueCall(verb, segments, comp, url.searchParams.get('peekonly') === 'true');
}

/** `decodeURIComponent`, or the text as it is when it is not valid percent-encoding. */
function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function tableCall(verb: string, segment: string, table: string | undefined): StorageCall {
  // Only the table's name and the start of the parentheses are decoded: the keys after them (an
  // owner's address, ids) are neither needed nor worth decoding on every call.
  const open = segment.indexOf('(');
  const name = decoded(open < 0 ? segment : segment.slice(0, open));
  if (name === '$batch') return { operation: 'submitTransaction', collection: table ?? null };
  if (name === 'Tables') return { operation: verb === 'GET' ? 'listTables' : verb === 'DELETE' ? 'deleteTable' : 'createTable', collection: null };
  const entity = open >= 0 && TABLE_ENTITY.test(decoded(segment.slice(open, open + 40)));
  const collection = table ?? (name === '' ? null : name);
  if (!entity) {
    if (verb === 'GET') return { operation: 'listEntities', collection };
    if (verb === 'POST') return { operation: 'createEntity', collection };
    return { operation: verb.toLowerCase(), collection };
  }
  const operations: Record<string, string> = { GET: 'getEntity', PUT: 'replaceEntity', MERGE: 'mergeEntity', PATCH: 'mergeEntity', DELETE: 'deleteEntity' };
  return { operation: operations[verb] ?? verb.toLowerCase(), collection };
}

function blobCall(verb: string, segments: string[], comp: string | null, restype: string | null): StorageCall {
  const container = segments[0] === undefined ? null : decoded(segments[0]);
  if (container === null) {
    if (comp === 'list') return { operation: 'listContainers', collection: null };
    if (comp === 'userdelegationkey') return { operation: 'getUserDelegationKey', collection: null };
    return { operation: `${verb === 'GET' ? 'get' : 'set'}ServiceProperties`, collection: null };
  }
  if (segments.length === 1 || restype === 'container') {
    if (comp === 'list') return { operation: 'listBlobs', collection: container };
    if (comp !== null) return { operation: `container:${comp}:${verb.toLowerCase()}`, collection: container };
    const operations: Record<string, string> = { PUT: 'createContainer', DELETE: 'deleteContainer', GET: 'getContainerProperties', HEAD: 'getContainerProperties' };
    return { operation: operations[verb] ?? verb.toLowerCase(), collection: container };
  }
  if (comp === null) {
    const operations: Record<string, string> = { PUT: 'upload', GET: 'download', HEAD: 'getProperties', DELETE: 'delete' };
    return { operation: operations[verb] ?? verb.toLowerCase(), collection: container };
  }
  const byComp: Record<string, string> = { block: 'stageBlock', blocklist: 'commitBlockList', metadata: 'setMetadata', properties: 'setHttpHeaders', lease: 'lease', tier: 'setTier', tags: 'tags' };
  return { operation: byComp[comp] ?? `${comp}:${verb.toLowerCase()}`, collection: container };
}

function queueCall(verb: string, segments: string[], comp: string | null, peek: boolean): StorageCall {
  const queue = segments[0] === undefined ? null : decoded(segments[0]);
  if (queue === null) return { operation: comp === 'list' ? 'listQueues' : `${verb === 'GET' ? 'get' : 'set'}ServiceProperties`, collection: null };
  if (segments[1] !== 'messages') {
    if (comp === 'metadata') return { operation: verb === 'PUT' ? 'setMetadata' : 'getProperties', collection: queue };
    const operations: Record<string, string> = { PUT: 'createQueue', DELETE: 'deleteQueue', GET: 'getProperties', HEAD: 'getProperties' };
    return { operation: operations[verb] ?? verb.toLowerCase(), collection: queue };
  }
  if (segments.length === 2) {
    const operations: Record<string, string> = { POST: 'sendMessage', GET: peek ? 'peekMessages' : 'receiveMessages', DELETE: 'clearMessages' };
    return { operation: operations[verb] ?? verb.toLowerCase(), collection: queue };
  }
  return { operation: verb === 'PUT' ? 'updateMessage' : verb === 'DELETE' ? 'deleteMessage' : verb.toLowerCase(), collection: queue };
}

/** A storage call's span name and attributes, by service, operation and collection: made (and redacted) once each. */
const callSpans = new Map<string, { name: string; attributes: Readonly<Attributes> }>();
/** Kinds of call kept at most in {@link callSpans} (operations × tables, containers and queues: a few hundred). */
const CALL_SPANS_KEPT = 2000;

function callSpanOf(service: StorageService, call: StorageCall): { name: string; attributes: Readonly<Attributes> } {
  const key = `${service} ${call.operation} ${call.collection ?? ''}`;
  const known = callSpans.get(key);
  if (known !== undefined) return known;
  const made = {
    name: call.collection === null ? call.operation : `${call.operation} ${call.collection}`,
    attributes: staticAttributes({
      'db.system.name': `azure.storage.${service}`,
      'db.operation.name': call.operation,
      ...(call.collection === null ? {} : { 'db.collection.name': call.collection }),
    }),
  };
  if (callSpans.size < CALL_SPANS_KEPT) callSpans.set(key, made);
  return made;
}

/** Runs one call in its span (see the module comment); outside a trace, sends it and names nothing. */
function inStorageSpan<T extends { status: number }>(service: StorageService, method: string, url: string, basePath: string, table: string | undefined, send: () => Promise<T>): Promise<T> {
  if (!inTrace()) return send();
  const { name, attributes } = callSpanOf(service, storageCall(service, method, new URL(url), basePath, table));
  return inClientSpan(name, attributes, send, statusOf);
}

const statusOf = (answer: { status: number }): number => answer.status;

/**
 * Options of a `TableClient` or `TableServiceClient` with the span policy added (see the module comment).
 * @param endpoint the account's table endpoint (its path is Azurite's account name, or `/`)
 * @param table the client's table, for the spans of its transactions
 */
export function withTableSpans<O extends TableServiceClientOptions>(options: O, endpoint: string, table?: string): O {
  const basePath = new URL(endpoint).pathname;
  const spans: AdditionalPolicy = {
    position: 'perCall',
    policy: {
      name: 'telemetrySpans',
      sendRequest: (request, next) => inStorageSpan('table', request.method, request.url, basePath, table, () => next(request)),
    },
  };
  return { ...options, additionalPolicies: [...(options.additionalPolicies ?? []), spans] };
}

/** A policy added to a Table client's pipeline (`@azure/core-client`'s `AdditionalPolicyConfig`). */
type AdditionalPolicy = NonNullable<TableServiceClientOptions['additionalPolicies']>[number];

/**
 * A request policy factory for the pipeline of a Blob or Queue service client (`newPipeline(...).factories`),
 * which `@azure/storage-blob` and `@azure/storage-queue` place per call (see the module comment).
 * @param endpoint the service client's URL (its path is Azurite's account name, or `/`)
 */
export function storageSpanFactory(service: 'blob' | 'queue', endpoint: string): RequestPolicyFactory {
  const basePath = new URL(endpoint).pathname;
  return {
    create: (next: RequestPolicy): RequestPolicy => ({
      sendRequest: (request: WebResource) => inStorageSpan(service, request.method, request.url, basePath, undefined, () => next.sendRequest(request)),
    }),
  };
}

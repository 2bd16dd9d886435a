/**
 * Offline checks of the Bicep templates in infra/ (docs/deploy.md).
 *
 * No Bicep compiler can be installed where this project is developed, so these checks parse every
 * .bicep file with tree-sitter-bicep (its wasm build, loaded by web-tree-sitter) and hold the
 * templates to the rules docs/deploy.md and docs/api.md#configuration set: syntax, API versions, module wiring, secure
 * parameters, no secret or key in a template, the hardening properties, the Flex Consumption rules,
 * the app settings, the role assignments and the storage layout. The full compile and lint run in
 * the workflow (.github/workflows/ci.yml, job "Bicep compile and lint").
 *
 * Every rule is also run on a small template with the defect it exists for (last describe block),
 * so a rule that silently stopped finding anything fails the suite.
 */
import { beforeAll, describe, expect, test } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Language, Parser, type Node } from 'web-tree-sitter';
import { loadConfig } from '../../src/lib/config.js';
import { CONTAINERS, TABLES } from '../../src/lib/storage/clients.js';
import { QUEUES } from '../../src/lib/storage/queues.js';
import { METRICS } from '../../src/lib/telemetry/index.js';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

/** One broken rule: which rule, where (repository-relative file, 1-based line) and what. */
interface Finding {
  rule: string;
  file: string;
  line: number;
  message: string;
}

// ---------------------------------------------------------------------------------------------
// Rule data
// ---------------------------------------------------------------------------------------------

/**
 * App settings the Flex Consumption plan rejects or ignores (their job moved to
 * properties.functionAppConfig), from "Flex Consumption plan deprecations" in the Functions app
 * settings reference, plus the ones this service must never set: a key-based host storage
 * connection string, a storage connection string (the app would stop using its identity) and the
 * instrumentation-key setting (local authentication is off).
 */
const FORBIDDEN_APP_SETTINGS = [
  'ENABLE_ORYX_BUILD',
  'FUNCTIONS_EXTENSION_VERSION',
  'FUNCTIONS_MAX_HTTP_CONCURRENCY',
  'FUNCTIONS_WORKER_DYNAMIC_CONCURRENCY_ENABLED',
  'FUNCTIONS_WORKER_PROCESS_COUNT',
  'FUNCTIONS_WORKER_RUNTIME',
  'FUNCTIONS_WORKER_RUNTIME_VERSION',
  'SCM_DO_BUILD_DURING_DEPLOYMENT',
  'WEBSITE_CONTENTAZUREFILECONNECTIONSTRING',
  'WEBSITE_CONTENTOVERVNET',
  'WEBSITE_CONTENTSHARE',
  'WEBSITE_DNS_SERVER',
  'WEBSITE_MAX_DYNAMIC_APPLICATION_SCALE_OUT',
  'WEBSITE_NODE_DEFAULT_VERSION',
  'WEBSITE_RUN_FROM_PACKAGE',
  'WEBSITE_SKIP_CONTENTSHARE_VALIDATION',
  'WEBSITE_VNET_ROUTE_ALL',
  'AzureWebJobsStorage',
  'STORAGE_CONNECTION_STRING',
  'APPINSIGHTS_INSTRUMENTATIONKEY',
];

/** Site properties (properties.*, siteConfig.*) that Flex Consumption rejects or renamed. */
const FORBIDDEN_SITE_PROPERTIES = [
  'alwaysOn',
  'containerSize',
  'ftpsState',
  'functionAppScaleLimit',
  'isXenon',
  'javaVersion',
  'linuxFxVersion',
  'minimumElasticInstanceCount',
  'netFrameworkVersion',
  'powerShellVersion',
  'preWarmedInstanceCount',
  'use32BitWorkerProcess',
  'vnetBackupRestoreEnabled',
  'vnetContentShareEnabled',
  'vnetImagePullEnabled',
  'vnetRouteAllEnabled',
  'windowsFxVersion',
];

/** App settings the service needs in Azure (docs/api.md#configuration, docs/deploy.md), set unconditionally. */
const REQUIRED_APP_SETTINGS = [
  'AzureWebJobsStorage__accountName',
  'AzureWebJobsStorage__credential',
  'AzureWebJobsStorage__clientId',
  'AZURE_CLIENT_ID',
  'APPLICATIONINSIGHTS_CONNECTION_STRING',
  'STORAGE_ACCOUNT_NAME',
  'JWT_SECRET',
  'JWT_ISSUER',
  'JWT_AUDIENCE',
  'JWT_TTL_SECONDS',
  'BCRYPT_COST',
  'SEAL_P12_BASE64',
  'SEAL_P12_PASSPHRASE',
  'UPLOAD_URL_TTL_SECONDS',
  'MAX_DOCUMENT_BYTES',
  'ALLOWED_ORIGINS',
  'AzureWebJobsStorage__queueServiceUri',
  'PUBLIC_BASE_URL',
  'ACS_EMAIL_ENDPOINT',
  'EMAIL_FROM',
  'SWEEP_SCHEDULE',
  'WEBHOOK_RETRY_SECONDS',
  'ENVELOPE_TTL_DAYS',
  'OUTBOUND_ALLOW_PRIVATE_NETWORKS',
  'REQUIRE_EMAIL_VERIFICATION',
];

/** App settings that hold secrets: each must be a Key Vault reference, never a value. */
const KEY_VAULT_APP_SETTINGS = ['JWT_SECRET', 'SEAL_P12_BASE64', 'SEAL_P12_PASSPHRASE', 'TURNSTILE_SECRET_KEY'];

/** Azure built-in roles these templates may assign, by role definition id. */
const KNOWN_ROLES: Record<string, string> = {
  'b7e6dc6d-f1e8-4753-8033-0f276bb0955b': 'Storage Blob Data Owner',
  'ba92f5b4-2d11-453d-a403-e96b0029c9fe': 'Storage Blob Data Contributor',
  '2a2b9908-6ea1-4ae2-8e65-a410df84e7d1': 'Storage Blob Data Reader',
  '0a9a7e1f-b9d0-4cc4-a60d-0319b160aaa3': 'Storage Table Data Contributor',
  '4633458b-17de-408a-b874-0445c86b69e6': 'Key Vault Secrets User',
  'b86a8fe4-44ce-4948-aee5-eccb2c155cd7': 'Key Vault Secrets Officer',
  '3913510d-42f4-4e42-8a64-420c390055eb': 'Monitoring Metrics Publisher',
  '974c5e8b-45b9-4653-ba55-5f855dd0fb88': 'Storage Queue Data Contributor',
  '19e7f393-937e-4f77-808e-94535e297925': 'Storage Queue Data Reader',
  '8a0f0c08-91a1-4084-bc3d-661d67233fed': 'Storage Queue Data Message Processor',
  'c6a89b2d-59bc-44d0-9896-0f6e12d7b80a': 'Storage Queue Data Message Sender',
  '09976791-48a7-449e-bb21-39d1a415f350': 'Communication and Email Service Owner',
};

/** Roles the app's identity must hold (docs/deploy.md); alternatives in an inner array. */
const REQUIRED_ROLES: string[][] = [
  ['Storage Blob Data Owner', 'Storage Blob Data Contributor'],
  ['Storage Table Data Contributor'],
  ['Key Vault Secrets User'],
  ['Monitoring Metrics Publisher'],
  ['Storage Queue Data Contributor'],
  ['Communication and Email Service Owner'],
];

/** Oldest API version that knows the properties these templates rely on (functionAppConfig). */
const MINIMUM_API_VERSIONS: Record<string, string> = {
  'Microsoft.Web/sites': '2023-12-01',
  'Microsoft.Web/serverfarms': '2023-12-01',
};

interface HardeningRule {
  type: string;
  path: string[];
  expected: string | boolean;
  why: string;
}

/** Properties that must be set to exactly this literal on every (non-existing) resource of the type. */
const HARDENING: HardeningRule[] = [
  { type: 'Microsoft.Storage/storageAccounts', path: ['properties', 'allowSharedKeyAccess'], expected: false, why: 'no account keys' },
  { type: 'Microsoft.Storage/storageAccounts', path: ['properties', 'minimumTlsVersion'], expected: 'TLS1_2', why: 'TLS 1.2' },
  { type: 'Microsoft.Storage/storageAccounts', path: ['properties', 'allowBlobPublicAccess'], expected: false, why: 'no anonymous blob access' },
  { type: 'Microsoft.Storage/storageAccounts', path: ['properties', 'supportsHttpsTrafficOnly'], expected: true, why: 'HTTPS only' },
  { type: 'Microsoft.Storage/storageAccounts/blobServices/containers', path: ['properties', 'publicAccess'], expected: 'None', why: 'private containers' },
  { type: 'Microsoft.KeyVault/vaults', path: ['properties', 'enableRbacAuthorization'], expected: true, why: 'RBAC mode' },
  { type: 'Microsoft.KeyVault/vaults', path: ['properties', 'enableSoftDelete'], expected: true, why: 'recoverable secrets' },
  { type: 'Microsoft.Web/serverfarms', path: ['sku', 'name'], expected: 'FC1', why: 'Flex Consumption' },
  { type: 'Microsoft.Web/serverfarms', path: ['sku', 'tier'], expected: 'FlexConsumption', why: 'Flex Consumption' },
  { type: 'Microsoft.Web/sites', path: ['kind'], expected: 'functionapp,linux', why: 'Linux function app' },
  { type: 'Microsoft.Web/sites', path: ['identity', 'type'], expected: 'UserAssigned', why: 'user-assigned managed identity' },
  { type: 'Microsoft.Web/sites', path: ['properties', 'httpsOnly'], expected: true, why: 'HTTPS only' },
  { type: 'Microsoft.Web/sites', path: ['properties', 'siteConfig', 'minTlsVersion'], expected: '1.2', why: 'TLS 1.2' },
  { type: 'Microsoft.Web/sites', path: ['properties', 'functionAppConfig', 'runtime', 'name'], expected: 'node', why: 'Node.js worker' },
  { type: 'Microsoft.Web/sites', path: ['properties', 'functionAppConfig', 'runtime', 'version'], expected: '22', why: 'Node 22 (what Azure runs)' },
  {
    type: 'Microsoft.Web/sites',
    path: ['properties', 'functionAppConfig', 'deployment', 'storage', 'authentication', 'type'],
    expected: 'UserAssignedIdentity',
    why: 'deployment package read with the identity, not a key',
  },
  { type: 'Microsoft.Web/sites/basicPublishingCredentialsPolicies', path: ['properties', 'allow'], expected: false, why: 'no basic-auth publishing' },
  { type: 'Microsoft.Insights/components', path: ['properties', 'DisableLocalAuth'], expected: true, why: 'telemetry only with Entra ID' },
];

/** Resource types the environment must declare (not merely reference with `existing`). */
const REQUIRED_RESOURCE_TYPES = [
  'Microsoft.Resources/resourceGroups',
  'Microsoft.ManagedIdentity/userAssignedIdentities',
  'Microsoft.Web/serverfarms',
  'Microsoft.Web/sites',
  'Microsoft.Storage/storageAccounts',
  'Microsoft.Storage/storageAccounts/blobServices',
  'Microsoft.Storage/storageAccounts/blobServices/containers',
  'Microsoft.Storage/storageAccounts/tableServices/tables',
  'Microsoft.Storage/storageAccounts/queueServices/queues',
  'Microsoft.KeyVault/vaults',
  'Microsoft.OperationalInsights/workspaces',
  'Microsoft.Insights/components',
  'Microsoft.Insights/workbooks',
  'Microsoft.Authorization/roleAssignments',
  'Microsoft.Communication/emailServices',
  'Microsoft.Communication/emailServices/domains',
  'Microsoft.Communication/communicationServices',
  'Microsoft.Insights/scheduledQueryRules',
  'Microsoft.EventGrid/systemTopics',
  'Microsoft.EventGrid/systemTopics/eventSubscriptions',
];

/** What the code uses (src/lib/storage/clients.ts): Azure has no `ensureStorage`, so Bicep must create it all. */
const REQUIRED_CONTAINERS = Object.values(CONTAINERS);
const REQUIRED_TABLES = Object.values(TABLES);
/** Every queue of the code and its `-poison` queue (the Functions host moves failed messages there). */
const REQUIRED_QUEUES = Object.values(QUEUES).flatMap((queue) => [queue, `${queue}-poison`]);
const REQUIRED_OUTPUTS = ['API_BASE_URL', 'AZURE_FUNCTION_APP_NAME', 'AZURE_RESOURCE_GROUP', 'STORAGE_ACCOUNT_NAME', 'AZURE_KEY_VAULT_NAME'];

/** Names that say "this holds a secret"... */
const SECRET_WORDS = /secret|password|passphrase|passwd|pwd|token|p12|pfx|privatekey|accountkey|apikey|connectionstring/i;
/** ...unless they end in a word that says it holds something about one (secretNames, keyVaultName). */
const NOT_A_SECRET = /(name|names|id|ids|uri|url|mode|enabled|type|version|seconds|count)$/i;

function isSecretName(name: string): boolean {
  return SECRET_WORDS.test(name) && !NOT_A_SECRET.test(name);
}

// ---------------------------------------------------------------------------------------------
// Syntax tree helpers
// ---------------------------------------------------------------------------------------------

let parser: Parser;

beforeAll(async () => {
  await Parser.init();
  const require = createRequire(import.meta.url);
  // Bytes rather than a path: a Uint8Array made in this realm (jest runs tests in a vm context).
  const wasm = new Uint8Array(readFileSync(require.resolve('tree-sitter-bicep/tree-sitter-bicep.wasm')));
  const language = await Language.load(wasm);
  parser = new Parser();
  parser.setLanguage(language);
});

interface ParamDecl {
  name: string;
  node: Node;
  decorators: string[];
  typeText: string;
  defaultValue: Node | undefined;
}

interface ResourceDecl {
  symbol: string;
  node: Node;
  /** The full type string, `Namespace/type@version`. */
  type: string;
  /** The type without the API version. */
  typeName: string;
  existing: boolean;
  /** The object literal of the resource (inside a loop or condition if there is one). */
  body: Node | undefined;
  loop: Node | undefined;
}

interface ModuleDecl {
  symbol: string;
  node: Node;
  path: string;
  body: Node | undefined;
}

interface OutputDecl {
  name: string;
  node: Node;
  value: Node | undefined;
}

interface BicepFile {
  /** Repository-relative path, with forward slashes. */
  file: string;
  source: string;
  root: Node;
  params: Map<string, ParamDecl>;
  vars: Map<string, Node>;
  resources: ResourceDecl[];
  modules: ModuleDecl[];
  outputs: OutputDecl[];
}

function lineOf(node: Node): number {
  return node.startPosition.row + 1;
}

/** Named children, without comments. */
function named(node: Node): Node[] {
  return node.namedChildren.filter((child): child is Node => child !== null && child.type !== 'comment' && child.type !== 'diagnostic_comment');
}

function walk(node: Node, visit: (node: Node) => void): void {
  visit(node);
  for (const child of node.children) {
    if (child !== null) walk(child, visit);
  }
}

function nodesOfType(root: Node, type: string): Node[] {
  const found: Node[] = [];
  walk(root, (node) => {
    if (node.type === type) found.push(node);
  });
  return found;
}

function decodeEscape(text: string): string {
  switch (text) {
    case '\\n':
      return '\n';
    case '\\r':
      return '\r';
    case '\\t':
      return '\t';
    default:
      if (text.startsWith('\\u{')) return String.fromCodePoint(Number.parseInt(text.slice(3, -1), 16));
      return text.slice(1);
  }
}

/** A string node's text: `literal` when it has no interpolation, and the text before the first one. */
function stringParts(node: Node): { literal: string | undefined; prefix: string } {
  let prefix = '';
  let interpolated = false;
  for (const child of node.namedChildren) {
    if (child === null) continue;
    if (child.type === 'interpolation') {
      interpolated = true;
      break;
    }
    if (child.type === 'string_content') prefix += child.text;
    else if (child.type === 'escape_sequence') prefix += decodeEscape(child.text);
  }
  return { literal: interpolated ? undefined : prefix, prefix };
}

function literalString(node: Node | undefined | null): string | undefined {
  return node?.type === 'string' ? stringParts(node).literal : undefined;
}

function propertyKey(property: Node): string | undefined {
  const key = named(property)[0];
  if (key === undefined) return undefined;
  if (key.type === 'identifier' || key.type === 'compatible_identifier') return key.text;
  return literalString(key);
}

function propertyValue(property: Node): Node | undefined {
  const parts = named(property);
  return parts.length >= 2 ? parts[parts.length - 1] : undefined;
}

/** The properties of an object literal, by key (keys that are expressions are left out). */
function objectProperties(object: Node | undefined): Map<string, Node> {
  const properties = new Map<string, Node>();
  if (object?.type !== 'object') return properties;
  for (const property of named(object)) {
    if (property.type !== 'object_property') continue;
    const key = propertyKey(property);
    const value = propertyValue(property);
    if (key !== undefined && value !== undefined) properties.set(key, value);
  }
  return properties;
}

function getPath(object: Node | undefined, keys: string[]): Node | undefined {
  let current = object;
  for (const key of keys) {
    current = objectProperties(current).get(key);
    if (current === undefined) return undefined;
  }
  return current;
}

/** The object literal a resource or module body ends in, through `[for ...]` and `if (...)`. */
function bodyObject(value: Node | undefined): { body: Node | undefined; loop: Node | undefined } {
  if (value === undefined) return { body: undefined, loop: undefined };
  if (value.type === 'object') return { body: value, loop: undefined };
  if (value.type === 'if_statement') return { body: bodyObject(named(value).at(-1)).body, loop: undefined };
  if (value.type === 'for_statement') return { body: bodyObject(named(value).at(-1)).body, loop: value };
  return { body: undefined, loop: undefined };
}

/** Names of the decorators just before a declaration (`description`, `secure`, ...). */
function decoratorsOf(declaration: Node): string[] {
  let sibling = declaration.previousNamedSibling;
  while (sibling !== null && sibling.type === 'comment') sibling = sibling.previousNamedSibling;
  if (sibling?.type !== 'decorators') return [];
  const names: string[] = [];
  for (const decorator of named(sibling)) {
    const call = named(decorator)[0];
    const fn = call?.childForFieldName('function') ?? call;
    if (fn === null || fn === undefined) continue;
    names.push(fn.type === 'member_expression' ? (fn.childForFieldName('property')?.text ?? fn.text) : fn.text);
  }
  return names;
}

/** The comment lines directly above a declaration (above its decorators, if any). */
function leadingComments(declaration: Node): string[] {
  const comments: string[] = [];
  let expectedRow = declaration.startPosition.row - 1;
  let sibling = declaration.previousSibling;
  if (sibling?.type === 'decorators') {
    expectedRow = sibling.startPosition.row - 1;
    sibling = sibling.previousSibling;
  }
  while (sibling !== null && sibling.type === 'comment' && sibling.endPosition.row >= expectedRow) {
    comments.unshift(sibling.text);
    expectedRow = sibling.startPosition.row - 1;
    sibling = sibling.previousSibling;
  }
  return comments;
}

function parseBicep(file: string, source: string): BicepFile {
  const tree = parser.parse(source);
  if (tree === null) throw new Error(`tree-sitter-bicep returned no tree for ${file}`);
  const root = tree.rootNode;
  const parsed: BicepFile = { file, source, root, params: new Map(), vars: new Map(), resources: [], modules: [], outputs: [] };
  for (const declaration of named(root)) {
    const parts = named(declaration);
    const symbol = parts[0]?.text ?? '';
    switch (declaration.type) {
      case 'parameter_declaration':
        parsed.params.set(symbol, {
          name: symbol,
          node: declaration,
          decorators: decoratorsOf(declaration),
          typeText: parts[1]?.text ?? '',
          defaultValue: parts[2],
        });
        break;
      case 'variable_declaration': {
        const value = parts.at(-1);
        if (value !== undefined && parts.length >= 2) parsed.vars.set(symbol, value);
        break;
      }
      case 'module_declaration':
        parsed.modules.push({ symbol, node: declaration, path: literalString(parts[1]) ?? '', body: bodyObject(parts[2]).body });
        break;
      case 'output_declaration':
        parsed.outputs.push({ name: symbol, node: declaration, value: parts.at(-1) });
        break;
      default:
        break;
    }
  }
  for (const declaration of nodesOfType(root, 'resource_declaration')) {
    const parts = named(declaration);
    const type = literalString(parts[1]) ?? '';
    const { body, loop } = bodyObject(parts.at(-1));
    parsed.resources.push({
      symbol: parts[0]?.text ?? '',
      node: declaration,
      type,
      typeName: type.split('@')[0] ?? type,
      existing: declaration.children.some((child) => child?.type === 'existing'),
      body,
      loop,
    });
  }
  return parsed;
}

const UNKNOWN = Symbol('unknown');
type Value = string | number | boolean | null | typeof UNKNOWN | Value[] | ValueObject;
interface ValueObject {
  [key: string]: Value;
}

/** The literal value of an expression, following variables; UNKNOWN for anything computed. */
function evaluate(node: Node | undefined, file: BicepFile, seen = new Set<string>()): Value {
  if (node === undefined) return UNKNOWN;
  switch (node.type) {
    case 'string':
      return literalString(node) ?? UNKNOWN;
    case 'number':
      return Number(node.text);
    case 'boolean':
      return node.text === 'true';
    case 'null':
      return null;
    case 'array':
      return named(node).map((element) => evaluate(element, file, seen));
    case 'object': {
      const object: ValueObject = {};
      for (const [key, value] of objectProperties(node)) object[key] = evaluate(value, file, seen);
      return object;
    }
    case 'parenthesized_expression':
      return evaluate(named(node)[0], file, seen);
    case 'identifier': {
      const value = file.vars.get(node.text);
      if (value === undefined || seen.has(node.text)) return UNKNOWN;
      return evaluate(value, file, new Set([...seen, node.text]));
    }
    case 'member_expression': {
      const object = evaluate(node.childForFieldName('object') ?? undefined, file, seen);
      const property = node.childForFieldName('property')?.text;
      if (property === undefined || object === null || typeof object !== 'object' || Array.isArray(object)) return UNKNOWN;
      return object[property] ?? UNKNOWN;
    }
    default:
      return UNKNOWN;
  }
}

/** Every string (in arrays and objects too) an evaluated value contains. */
function stringsIn(value: Value): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(stringsIn);
  return [];
}

/** Whether an expression reads a parameter, directly or through variables. */
function readsParameter(node: Node | undefined, file: BicepFile, accept: (param: ParamDecl) => boolean, seen = new Set<string>()): boolean {
  if (node === undefined) return false;
  let found = false;
  walk(node, (child) => {
    if (found || child.type !== 'identifier') return;
    // The key of an object property is a name, not a reference.
    if (child.parent?.type === 'object_property' && named(child.parent)[0]?.id === child.id) return;
    const param = file.params.get(child.text);
    if (param !== undefined && accept(param)) found = true;
    const value = file.vars.get(child.text);
    if (value !== undefined && !seen.has(child.text)) {
      seen.add(child.text);
      if (readsParameter(value, file, accept, seen)) found = true;
    }
  });
  return found;
}

/** The text a string-valued expression starts with (through variables), or undefined. */
function stringPrefix(node: Node | undefined, file: BicepFile, seen = new Set<string>()): string | undefined {
  if (node === undefined) return undefined;
  if (node.type === 'string') return stringParts(node).prefix;
  if (node.type === 'identifier' && !seen.has(node.text)) {
    return stringPrefix(file.vars.get(node.text), file, new Set([...seen, node.text]));
  }
  return undefined;
}

function finding(rule: string, file: BicepFile, node: Node, message: string): Finding {
  return { rule, file: file.file, line: lineOf(node), message };
}

/** The declaration (param, var, output, resource, module) a node belongs to. */
function enclosingDeclaration(node: Node): Node | undefined {
  let current: Node | null = node;
  while (current !== null) {
    if (/_declaration$/.test(current.type)) return current;
    current = current.parent;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Rules on one file
// ---------------------------------------------------------------------------------------------

type FileRule = (file: BicepFile, files: Map<string, BicepFile>) => Finding[];

/** The file parses: no ERROR and no MISSING node anywhere. */
const syntaxRule: FileRule = (file) => {
  const findings: Finding[] = [];
  walk(file.root, (node) => {
    if (node.type === 'ERROR' || node.isMissing) {
      const text = node.text.split('\n')[0]?.slice(0, 60) ?? '';
      findings.push(finding('syntax', file, node, `${node.isMissing ? `missing ${node.type}` : 'syntax error'} at column ${node.startPosition.column + 1}: ${JSON.stringify(text)}`));
    }
  });
  return findings;
};

const RESOURCE_TYPE = /^([A-Za-z0-9]+\.[A-Za-z0-9.]+(?:\/[A-Za-z0-9]+)+)@(\d{4}-\d{2}-\d{2})(-[A-Za-z]+)?$/;

/** Every resource names its API version; stable versions only; new enough for Flex Consumption. */
const apiVersionRule: FileRule = (file) => {
  const findings: Finding[] = [];
  for (const resource of file.resources) {
    const match = RESOURCE_TYPE.exec(resource.type);
    if (match === null) {
      const nested = resource.node.parent !== null && nodesOfTypeAbove(resource.node, 'resource_declaration');
      // A nested child resource ('blobServices') inherits its parent's version.
      if (!(nested && /^[A-Za-z0-9]+$/.test(resource.type))) {
        findings.push(finding('api-version', file, resource.node, `resource ${resource.symbol} has no API version: '${resource.type}'`));
      }
      continue;
    }
    const [, typeName = '', version = '', suffix] = match;
    if (suffix !== undefined) findings.push(finding('api-version', file, resource.node, `resource ${resource.symbol} uses a preview API version (${version}${suffix})`));
    const minimum = MINIMUM_API_VERSIONS[typeName];
    if (minimum !== undefined && version < minimum) {
      findings.push(finding('api-version', file, resource.node, `${typeName}@${version} predates functionAppConfig; use ${minimum} or later`));
    }
  }
  return findings;
};

function nodesOfTypeAbove(node: Node, type: string): boolean {
  let current = node.parent;
  while (current !== null) {
    if (current.type === type) return true;
    current = current.parent;
  }
  return false;
}

function moduleFile(file: BicepFile, module: ModuleDecl): string {
  return path.posix.normalize(path.posix.join(path.posix.dirname(file.file), module.path));
}

/** Modules are files in the repository, get only the parameters they declare and every required one. */
const moduleRule: FileRule = (file, files) => {
  const findings: Finding[] = [];
  for (const module of file.modules) {
    if (/^(br|ts)[:/]/.test(module.path)) {
      findings.push(finding('module', file, module.node, `module ${module.symbol} comes from a registry (${module.path}); the offline checks cannot see it`));
      continue;
    }
    const target = files.get(moduleFile(file, module));
    if (target === undefined) {
      findings.push(finding('module', file, module.node, `module ${module.symbol}: ${moduleFile(file, module)} does not exist`));
      continue;
    }
    const given = objectProperties(getPath(module.body, ['params']));
    for (const [name, value] of given) {
      if (!target.params.has(name)) findings.push(finding('module', file, value, `module ${module.symbol} passes ${name}, which ${target.file} does not declare`));
    }
    for (const param of target.params.values()) {
      if (param.defaultValue === undefined && !given.has(param.name)) {
        findings.push(finding('module', file, module.node, `module ${module.symbol} does not pass ${param.name}, which ${target.file} requires`));
      }
    }
  }
  // symbol.outputs.name must be an output of that module.
  const modulesBySymbol = new Map(file.modules.map((module) => [module.symbol, files.get(moduleFile(file, module))]));
  walk(file.root, (node) => {
    if (node.type !== 'member_expression') return;
    const inner = node.childForFieldName('object');
    if (inner?.type !== 'member_expression' || inner.childForFieldName('property')?.text !== 'outputs') return;
    const symbol = inner.childForFieldName('object')?.text ?? '';
    const target = modulesBySymbol.get(symbol);
    const output = node.childForFieldName('property')?.text ?? '';
    if (target !== undefined && !target.outputs.some((candidate) => candidate.name === output)) {
      findings.push(finding('module', file, node, `${symbol}.outputs.${output}: ${target.file} has no output ${output}`));
    }
  });
  return findings;
};

/** Parameters are described; secrets are @secure(), typed string or object, with no default value. */
const parameterRule: FileRule = (file) => {
  const findings: Finding[] = [];
  for (const param of file.params.values()) {
    if (!param.decorators.includes('description')) findings.push(finding('parameters', file, param.node, `parameter ${param.name} has no @description`));
    const secure = param.decorators.includes('secure');
    if (isSecretName(param.name) && !secure) findings.push(finding('parameters', file, param.node, `parameter ${param.name} holds a secret but is not @secure()`));
    if (secure) {
      if (!/^(string|object)$/.test(param.typeText)) findings.push(finding('parameters', file, param.node, `@secure() parameter ${param.name} must be a string or an object`));
      const fallback = evaluate(param.defaultValue, file);
      const empty = param.defaultValue === undefined || fallback === '' || (typeof fallback === 'object' && fallback !== null && !Array.isArray(fallback) && Object.keys(fallback).length === 0);
      if (!empty) findings.push(finding('parameters', file, param.node, `@secure() parameter ${param.name} has a default value: a secret in the template`));
    }
  }
  return findings;
};

function isListFunction(call: Node): string | undefined {
  const fn = call.childForFieldName('function');
  const name = fn?.type === 'member_expression' ? fn.childForFieldName('property')?.text : fn?.text;
  return name !== undefined && /^list[A-Z]/.test(name) ? name : undefined;
}

/** No key or secret is read out of a resource (listKeys() and friends), and no output carries one. */
const secretFlowRule: FileRule = (file) => {
  const findings: Finding[] = [];
  for (const call of nodesOfType(file.root, 'call_expression')) {
    const name = isListFunction(call);
    if (name !== undefined) findings.push(finding('secret-flow', file, call, `${name}() reads keys or secrets out of a resource`));
  }
  for (const output of file.outputs) {
    if (isSecretName(output.name)) findings.push(finding('secret-flow', file, output.node, `output ${output.name} is named like a secret`));
    if (readsParameter(output.value, file, (param) => param.decorators.includes('secure'))) {
      findings.push(finding('secret-flow', file, output.node, `output ${output.name} exposes a @secure() parameter`));
    }
  }
  return findings;
};

/** A property or variable named like a secret is never given a literal value (a Key Vault reference is fine). */
const secretLiteralRule: FileRule = (file) => {
  const findings: Finding[] = [];
  const check = (name: string, value: Node | undefined, at: Node) => {
    if (value?.type !== 'string' || !isSecretName(name)) return;
    const { literal, prefix } = stringParts(value);
    if (literal === '') return;
    if (prefix.startsWith('@Microsoft.KeyVault(')) return;
    findings.push(finding('secret-literal', file, at, `${name} is given a value in the template instead of a Key Vault reference`));
  };
  for (const property of nodesOfType(file.root, 'object_property')) {
    // Objects that hold names or ids of secrets (secretNames, roleIds) are not secrets.
    const declaration = enclosingDeclaration(property);
    const declared = declaration === undefined ? '' : (named(declaration)[0]?.text ?? '');
    if (NOT_A_SECRET.test(declared)) continue;
    check(propertyKey(property) ?? '', propertyValue(property), property);
  }
  for (const [name, value] of file.vars) check(name, value, value);
  return findings;
};

/** string() of a bool gives 'True' or 'False' in ARM; the app reads only 'true' and 'false'. */
const booleanStringRule: FileRule = (file) => {
  const findings: Finding[] = [];
  for (const call of nodesOfType(file.root, 'call_expression')) {
    if (call.childForFieldName('function')?.text !== 'string') continue;
    const argument = named(call.childForFieldName('arguments') ?? call).find((node) => node.type !== 'arguments');
    const param = argument?.type === 'identifier' ? file.params.get(argument.text) : undefined;
    if (param?.typeText === 'bool') findings.push(finding('bool-string', file, call, `string(${param.name}) is 'True' or 'False'; write ${param.name} ? 'true' : 'false'`));
  }
  return findings;
};

/** The hardening properties, on every resource of the types in HARDENING. */
const hardeningRule: FileRule = (file) => {
  const findings: Finding[] = [];
  for (const resource of file.resources) {
    if (resource.existing) continue;
    for (const rule of HARDENING.filter((candidate) => candidate.type === resource.typeName)) {
      const node = getPath(resource.body, rule.path);
      const actual = evaluate(node, file);
      if (actual !== rule.expected) {
        const shown = node === undefined ? 'not set' : `set to ${node.text}`;
        findings.push(finding('hardening', file, node ?? resource.node, `${resource.typeName} ${resource.symbol}: ${rule.path.join('.')} must be ${JSON.stringify(rule.expected)} (${rule.why}), is ${shown}`));
      }
    }
  }
  return findings;
};

/** Nothing Flex Consumption rejects: no deprecated app setting anywhere, no deprecated site property. */
const flexRule: FileRule = (file) => {
  const findings: Finding[] = [];
  const forbidden = new Map(FORBIDDEN_APP_SETTINGS.map((name) => [name.toLowerCase(), name]));
  for (const property of nodesOfType(file.root, 'object_property')) {
    const key = propertyKey(property);
    const hit = key === undefined ? undefined : forbidden.get(key.toLowerCase());
    if (hit !== undefined) findings.push(finding('flex', file, property, `app setting ${hit} must not be set on Flex Consumption (or by this service)`));
  }
  for (const string of nodesOfType(file.root, 'string')) {
    const literal = stringParts(string).literal;
    const hit = literal === undefined ? undefined : forbidden.get(literal.toLowerCase());
    const isKey = string.parent?.type === 'object_property' && named(string.parent)[0]?.id === string.id;
    if (hit !== undefined && !isKey) {
      findings.push(finding('flex', file, string, `app setting ${hit} must not be set on Flex Consumption (or by this service)`));
    }
  }
  for (const site of file.resources.filter((resource) => resource.typeName === 'Microsoft.Web/sites' && !resource.existing)) {
    const properties = getPath(site.body, ['properties']);
    if (properties === undefined) continue;
    walk(properties, (node) => {
      if (node.type !== 'object_property') return;
      const key = propertyKey(node) ?? '';
      if (FORBIDDEN_SITE_PROPERTIES.includes(key)) findings.push(finding('flex', file, node, `site property ${key} is not valid on Flex Consumption`));
    });
    if (getPath(properties, ['functionAppConfig', 'scaleAndConcurrency']) === undefined) {
      findings.push(finding('flex', file, site.node, 'functionAppConfig.scaleAndConcurrency is not set'));
    }
    if (getPath(properties, ['keyVaultReferenceIdentity']) === undefined) {
      findings.push(finding('flex', file, site.node, 'keyVaultReferenceIdentity is not set: Key Vault references would use a system-assigned identity the app does not have'));
    }
  }
  return findings;
};

interface Setting {
  name: string;
  value: Node;
  conditional: boolean;
}

/** The app settings an expression builds: object literals, variables, union() and ternaries. */
function collectSettings(node: Node | undefined, file: BicepFile, conditional: boolean, out: Setting[], problems: Finding[], seen = new Set<string>()): void {
  if (node === undefined) return;
  switch (node.type) {
    case 'object':
      for (const property of named(node)) {
        if (property.type !== 'object_property') continue;
        const key = propertyKey(property);
        const value = propertyValue(property);
        if (key === undefined || value === undefined) problems.push(finding('app-settings', file, property, 'an app setting name is computed; the checks cannot read it'));
        else out.push({ name: key, value, conditional });
      }
      return;
    case 'identifier': {
      const value = file.vars.get(node.text);
      if (value === undefined || seen.has(node.text)) break;
      collectSettings(value, file, conditional, out, problems, new Set([...seen, node.text]));
      return;
    }
    case 'parenthesized_expression':
      collectSettings(named(node)[0], file, conditional, out, problems, seen);
      return;
    case 'ternary_expression':
      collectSettings(node.childForFieldName('consequence') ?? undefined, file, true, out, problems, seen);
      collectSettings(node.childForFieldName('alternative') ?? undefined, file, true, out, problems, seen);
      return;
    case 'call_expression':
      if (node.childForFieldName('function')?.text !== 'union') break;
      for (const argument of named(node.childForFieldName('arguments') ?? node)) collectSettings(argument, file, conditional, out, problems, seen);
      return;
    default:
      break;
  }
  problems.push(finding('app-settings', file, node, `app settings built from ${JSON.stringify(node.text.slice(0, 40))}, which the checks cannot read`));
}

/** The Function App's app settings, from siteConfig.appSettings or a sites/config 'appsettings' resource. */
function appSettingsOf(file: BicepFile): { settings: Setting[]; problems: Finding[]; found: boolean } {
  const settings: Setting[] = [];
  const problems: Finding[] = [];
  let found = false;
  for (const resource of file.resources) {
    if (resource.existing) continue;
    if (resource.typeName === 'Microsoft.Web/sites/config' && literalString(getPath(resource.body, ['name'])) === 'appsettings') {
      found = true;
      collectSettings(getPath(resource.body, ['properties']), file, false, settings, problems);
    }
    if (resource.typeName !== 'Microsoft.Web/sites') continue;
    const list = getPath(resource.body, ['properties', 'siteConfig', 'appSettings']);
    if (list === undefined) continue;
    found = true;
    if (list.type === 'array') {
      for (const entry of named(list)) {
        const name = literalString(getPath(entry, ['name']));
        const value = getPath(entry, ['value']);
        if (name === undefined || value === undefined) problems.push(finding('app-settings', file, entry, 'an app setting without a literal name and a value'));
        else settings.push({ name, value, conditional: false });
      }
    } else if (list.type === 'for_statement') {
      // [for setting in items(X): { name: setting.key, value: setting.value }]
      const parts = named(list);
      const collection = parts.at(-2);
      const source = collection?.type === 'call_expression' && collection.childForFieldName('function')?.text === 'items' ? named(collection.childForFieldName('arguments') ?? collection)[0] : undefined;
      if (source === undefined) problems.push(finding('app-settings', file, list, 'appSettings loops over something other than items(<object>)'));
      else collectSettings(source, file, false, settings, problems);
    } else {
      problems.push(finding('app-settings', file, list, 'appSettings is neither a list nor a loop over items(<object>)'));
    }
  }
  return { settings, problems, found };
}

/** Identity-based storage, every required setting, every secret a Key Vault reference. */
const appSettingsRule: FileRule = (file) => {
  const { settings, problems, found } = appSettingsOf(file);
  if (!found) return [];
  const findings = [...problems];
  const site = file.resources.find((resource) => resource.typeName === 'Microsoft.Web/sites') ?? file.resources[0];
  const at = site?.node ?? file.root;
  for (const name of REQUIRED_APP_SETTINGS) {
    const setting = settings.find((candidate) => candidate.name === name);
    if (setting === undefined) findings.push(finding('app-settings', file, at, `app setting ${name} is not set`));
    else if (setting.conditional) findings.push(finding('app-settings', file, setting.value, `app setting ${name} is set only under a condition`));
  }
  for (const setting of settings) {
    const prefix = stringPrefix(setting.value, file);
    if (KEY_VAULT_APP_SETTINGS.includes(setting.name) && !(prefix ?? '').startsWith('@Microsoft.KeyVault(')) {
      findings.push(finding('app-settings', file, setting.value, `app setting ${setting.name} must be a Key Vault reference (@Microsoft.KeyVault(...))`));
    }
  }
  const credential = settings.find((setting) => setting.name === 'AzureWebJobsStorage__credential');
  if (credential !== undefined && evaluate(credential.value, file) !== 'managedidentity') {
    findings.push(finding('app-settings', file, credential.value, "AzureWebJobsStorage__credential must be 'managedidentity'"));
  }
  return findings;
};

/** The GUIDs an expression resolves to (through variables and object members). */
function guidsIn(node: Node | undefined, file: BicepFile): string[] {
  if (node === undefined) return [];
  const guids = new Set<string>();
  const add = (value: Value) => {
    for (const text of stringsIn(value)) for (const match of text.matchAll(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi)) guids.add(match[0].toLowerCase());
  };
  const visit = (child: Node) => {
    // A member expression is evaluated whole (roleIds.keyVaultSecretsUser), never its parts.
    if (child.type === 'string' || child.type === 'member_expression' || child.type === 'identifier') {
      add(evaluate(child, file));
      return;
    }
    for (const grandchild of child.children) if (grandchild !== null) visit(grandchild);
  };
  visit(node);
  return [...guids];
}

/** Role assignments: guid() names, known roles, a comment naming the role, an explicit principal type. */
const roleAssignmentRule: FileRule = (file) => {
  const findings: Finding[] = [];
  for (const resource of file.resources.filter((candidate) => candidate.typeName === 'Microsoft.Authorization/roleAssignments' && !candidate.existing)) {
    const name = getPath(resource.body, ['name']);
    if (name?.type !== 'call_expression' || name.childForFieldName('function')?.text !== 'guid') {
      findings.push(finding('roles', file, name ?? resource.node, `role assignment ${resource.symbol} must be named with guid(...) so a redeployment finds it again`));
    }
    const roleIds = guidsIn(getPath(resource.body, ['properties', 'roleDefinitionId']), file);
    const roleId = roleIds[0];
    if (roleIds.length !== 1 || roleId === undefined) {
      findings.push(finding('roles', file, resource.node, `role assignment ${resource.symbol}: cannot tell its role from roleDefinitionId`));
    } else {
      const role = KNOWN_ROLES[roleId];
      if (role === undefined) {
        findings.push(finding('roles', file, resource.node, `role assignment ${resource.symbol}: role ${roleId} is not one these checks know; add it to KNOWN_ROLES with its name`));
      } else {
        const comments = [...leadingComments(resource.node), ...nodesOfType(resource.node, 'comment').map((comment) => comment.text)];
        if (!comments.some((comment) => comment.toLowerCase().includes(role.toLowerCase()))) {
          findings.push(finding('roles', file, resource.node, `role assignment ${resource.symbol} is not commented with its role's name (${role})`));
        }
      }
    }
    if (getPath(resource.body, ['properties', 'principalType']) === undefined) {
      findings.push(finding('roles', file, resource.node, `role assignment ${resource.symbol} has no principalType (a new identity may not have replicated yet)`));
    }
  }
  return findings;
};

const FILE_RULES: Record<string, FileRule> = {
  syntax: syntaxRule,
  'api-version': apiVersionRule,
  module: moduleRule,
  parameters: parameterRule,
  'secret-flow': secretFlowRule,
  'secret-literal': secretLiteralRule,
  'bool-string': booleanStringRule,
  hardening: hardeningRule,
  flex: flexRule,
  'app-settings': appSettingsRule,
  roles: roleAssignmentRule,
};

function runRule(rule: string, files: Map<string, BicepFile>): Finding[] {
  const check = FILE_RULES[rule];
  if (check === undefined) throw new Error(`no rule ${rule}`);
  return [...files.values()].flatMap((file) => check(file, files));
}

// ---------------------------------------------------------------------------------------------
// Rules on the whole environment
// ---------------------------------------------------------------------------------------------

function allResources(files: Map<string, BicepFile>): Array<{ file: BicepFile; resource: ResourceDecl }> {
  return [...files.values()].flatMap((file) => file.resources.map((resource) => ({ file, resource })));
}

/** The names a container or table resource creates: a literal name, or a loop over a literal array. */
function createdNames(file: BicepFile, resource: ResourceDecl): string[] {
  const name = getPath(resource.body, ['name']);
  if (resource.loop === undefined) {
    const literal = literalString(name);
    return literal === undefined ? [] : [literal];
  }
  const parts = named(resource.loop);
  const loopVariable = parts[0]?.text;
  if (name?.type !== 'identifier' || name.text !== loopVariable) return [];
  return stringsIn(evaluate(parts.at(-2), file));
}

function readInfra(): Map<string, BicepFile> {
  const files = new Map<string, BicepFile>();
  const visit = (directory: string) => {
    for (const entry of readdirSync(path.join(repoRoot, directory), { withFileTypes: true })) {
      const relative = path.posix.join(directory, entry.name);
      if (entry.isDirectory()) visit(relative);
      else if (entry.name.endsWith('.bicep')) files.set(relative, parseBicep(relative, readFileSync(path.join(repoRoot, relative), 'utf8')));
    }
  };
  visit('infra');
  return files;
}

function sources(templates: Record<string, string>): Map<string, BicepFile> {
  return new Map(Object.entries(templates).map(([file, source]) => [file, parseBicep(file, source)]));
}

// ---------------------------------------------------------------------------------------------
// The checks
// ---------------------------------------------------------------------------------------------

describe('infra/ Bicep templates (offline checks; the full compile runs in ci.yml)', () => {
  let infra: Map<string, BicepFile>;
  let main: BicepFile;

  beforeAll(() => {
    infra = readInfra();
    const found = infra.get('infra/main.bicep');
    if (found === undefined) throw new Error('infra/main.bicep is missing');
    main = found;
  });

  test('there is a main template and at least one module', () => {
    expect([...infra.keys()].filter((file) => file.startsWith('infra/modules/')).length).toBeGreaterThan(0);
  });

  test.each(Object.keys(FILE_RULES))('rule %s holds in every template', (rule) => {
    expect(runRule(rule, infra)).toEqual([]);
  });

  test('main.bicep deploys at subscription scope and creates the resource group', () => {
    const scope = nodesOfType(main.root, 'target_scope_assignment')[0];
    expect(literalString(scope === undefined ? undefined : named(scope)[0])).toBe('subscription');
    expect(main.resources.some((resource) => resource.typeName === 'Microsoft.Resources/resourceGroups' && !resource.existing)).toBe(true);
  });

  test("main.bicep's outputs include the API's base URL and the names the docs and workflow use", () => {
    expect(main.outputs.map((output) => output.name)).toEqual(expect.arrayContaining(REQUIRED_OUTPUTS));
    const apiBaseUrl = main.outputs.find((output) => output.name === 'API_BASE_URL');
    expect(apiBaseUrl?.value?.type).toBe('string');
    expect(apiBaseUrl?.value?.text).toMatch(/^'https:\/\/\$\{.+\}\/api'$/);
  });

  test('the environment declares every resource docs/deploy.md names', () => {
    const declared = new Set(allResources(infra).filter(({ resource }) => !resource.existing).map(({ resource }) => resource.typeName));
    expect(REQUIRED_RESOURCE_TYPES.filter((type) => !declared.has(type))).toEqual([]);
  });

  test('storage creates every container, table and queue of src/lib/storage/clients.ts, and a -poison queue for each queue', () => {
    const created = (type: string) =>
      allResources(infra)
        .filter(({ resource }) => resource.typeName === type && !resource.existing)
        .flatMap(({ file, resource }) => createdNames(file, resource));
    expect(created('Microsoft.Storage/storageAccounts/blobServices/containers')).toEqual(expect.arrayContaining(REQUIRED_CONTAINERS));
    expect(created('Microsoft.Storage/storageAccounts/tableServices/tables')).toEqual(expect.arrayContaining(REQUIRED_TABLES));
    expect(created('Microsoft.Storage/storageAccounts/queueServices/queues').sort()).toEqual([...REQUIRED_QUEUES].sort());
    expect(REQUIRED_QUEUES).toEqual(expect.arrayContaining(['outbox-email', 'outbox-events', 'webhook-deliveries', 'webhook-deliveries-poison']));
  });

  test('the notification settings: links, e-mail, sweeper, webhooks; private networks never allowed; defaults the same as the service\'s own', () => {
    const file = [...infra.values()].find((candidate) => appSettingsOf(candidate).found)!;
    const settings = new Map(appSettingsOf(file).settings.map((setting) => [setting.name, setting.value]));
    expect(evaluate(settings.get('OUTBOUND_ALLOW_PRIVATE_NETWORKS'), file)).toBe('false');
    // Its older name is left unset: the new one decides alone.
    expect(settings.has('WEBHOOK_ALLOW_PRIVATE_NETWORKS')).toBe(false);
    // Only owners who verified their address send in its name.
    expect(evaluate(settings.get('REQUIRE_EMAIL_VERIFICATION'), file)).toBe('true');
    // PUBLIC_BASE_URL falls back to the app's own https:// address.
    expect(settings.get('PUBLIC_BASE_URL')?.text).toContain("'https://${site.properties.defaultHostName}'");
    // main.bicep's defaults are what the service uses when the setting is unset (docs/api.md#configuration).
    const defaultOf = (name: string) => evaluate(main.params.get(name)?.defaultValue, main);
    const base = { JWT_SECRET: 'x'.repeat(32), SEAL_P12_BASE64: 'AAAA' };
    const defaults = loadConfig(base);
    expect(defaultOf('sweepSchedule')).toBe(defaults.sweepSchedule);
    expect(defaultOf('envelopeTtlDays')).toBe(defaults.envelopeTtlDays);
    expect(loadConfig({ ...base, WEBHOOK_RETRY_SECONDS: String(defaultOf('webhookRetrySeconds')) }).webhookRetrySeconds).toEqual(defaults.webhookRetrySeconds);
    // Each reaches its app setting through the functionApp module.
    const module = main.modules.find((candidate) => candidate.symbol === 'functionApp');
    for (const [param, setting] of [['sweepSchedule', 'SWEEP_SCHEDULE'], ['webhookRetrySeconds', 'WEBHOOK_RETRY_SECONDS'], ['envelopeTtlDays', 'ENVELOPE_TTL_DAYS'], ['publicBaseUrl', 'PUBLIC_BASE_URL']] as const) {
      expect([param, readsParameter(getPath(module?.body, ['params', param]), main, (candidate) => candidate.name === param)]).toEqual([param, true]);
      expect([setting, readsParameter(settings.get(setting), file, (candidate) => candidate.name === param)]).toEqual([setting, true]);
    }
  });

  test('sealed PDFs under WORM (docs/deploy.md#immutable-sealed-pdfs): container sealed with version-level immutability for sealedRetentionDays (SEALED_RETENTION_DAYS, default the service\'s), blob versioning, blob and container soft delete, earlier versions deleted after the soft-delete window', () => {
    const storage = infra.get('infra/modules/storage.bicep')!;
    const declared = (type: string) => storage.resources.filter((resource) => resource.typeName === type && !resource.existing);
    const [blobService] = declared('Microsoft.Storage/storageAccounts/blobServices');
    const blobProperties = evaluate(getPath(blobService?.body, ['properties']), storage) as ValueObject;
    expect(blobProperties.isVersioningEnabled).toBe(true);
    expect(blobProperties.deleteRetentionPolicy).toMatchObject({ enabled: true });
    expect(blobProperties.containerDeleteRetentionPolicy).toMatchObject({ enabled: true });
    for (const policy of ['deleteRetentionPolicy', 'containerDeleteRetentionPolicy']) {
      expect([policy, readsParameter(getPath(blobService?.body, ['properties', policy, 'days']), storage, (param) => param.name === 'softDeleteDays')]).toEqual([policy, true]);
    }
    // The sealed container: version-level immutability on, and its default policy's period the parameter.
    const sealed = declared('Microsoft.Storage/storageAccounts/blobServices/containers').find((resource) => literalString(getPath(resource.body, ['name'])) === 'sealed');
    expect(evaluate(getPath(sealed?.body, ['properties', 'immutableStorageWithVersioning', 'enabled']), storage)).toBe(true);
    const [policy] = declared('Microsoft.Storage/storageAccounts/blobServices/containers/immutabilityPolicies');
    expect(getPath(policy?.body, ['parent'])?.text).toBe(sealed?.symbol);
    expect(literalString(getPath(policy?.body, ['name']))).toBe('default');
    expect(readsParameter(getPath(policy?.body, ['properties', 'immutabilityPeriodSinceCreationInDays']), storage, (param) => param.name === 'sealedRetentionDays')).toBe(true);
    expect(evaluate(getPath(policy?.body, ['properties', 'allowProtectedAppendWrites']), storage)).toBe(false);
    // No other container is under WORM: uploads and frozen copies are deleted by purges.
    for (const other of declared('Microsoft.Storage/storageAccounts/blobServices/containers').filter((resource) => resource !== sealed)) {
      expect(getPath(other.body, ['properties', 'immutableStorageWithVersioning'])).toBeUndefined();
    }
    // Earlier versions go once the restore window is over.
    const [lifecycle] = declared('Microsoft.Storage/storageAccounts/managementPolicies');
    const rules = evaluate(getPath(lifecycle?.body, ['properties', 'policy', 'rules']), storage) as ValueObject[];
    expect(rules.some((rule) => rule.enabled === true && typeof ((rule.definition as ValueObject).actions as ValueObject).version === 'object')).toBe(true);
    expect(readsParameter(getPath(lifecycle?.body, ['properties', 'policy']), storage, (param) => param.name === 'softDeleteDays')).toBe(true);
    // main.bicep: the parameter, its default the service's, passed to the storage and to SEALED_RETENTION_DAYS.
    expect(evaluate(main.params.get('sealedRetentionDays')?.defaultValue, main)).toBe(loadConfig({ JWT_SECRET: 'x'.repeat(32), SEAL_P12_BASE64: 'AAAA' }).sealedRetentionDays);
    for (const symbol of ['storage', 'functionApp']) {
      const module = main.modules.find((candidate) => candidate.symbol === symbol);
      expect([symbol, readsParameter(getPath(module?.body, ['params', 'sealedRetentionDays']), main, (param) => param.name === 'sealedRetentionDays')]).toEqual([symbol, true]);
    }
    const appFile = [...infra.values()].find((candidate) => appSettingsOf(candidate).found)!;
    const setting = appSettingsOf(appFile).settings.find((candidate) => candidate.name === 'SEALED_RETENTION_DAYS');
    expect(readsParameter(setting?.value, appFile, (param) => param.name === 'sealedRetentionDays')).toBe(true);
  });

  test('e-mail: a Communication Service linked to an Azure-managed domain, the app allowed to send on that resource only, its endpoint in ACS_EMAIL_ENDPOINT', () => {
    const declared = (type: string) => allResources(infra).filter(({ resource }) => resource.typeName === type && !resource.existing);
    const [communication] = declared('Microsoft.Communication/communicationServices');
    const [domain] = declared('Microsoft.Communication/emailServices/domains');
    expect(communication).toBeDefined();
    expect(domain).toBeDefined();
    expect(evaluate(getPath(domain!.resource.body, ['properties', 'domainManagement']), domain!.file)).toBe('AzureManaged');
    expect(evaluate(getPath(domain!.resource.body, ['properties', 'userEngagementTracking']), domain!.file)).toBe('Disabled');
    expect(getPath(communication!.resource.body, ['properties', 'linkedDomains'])?.text).toContain(`${domain!.resource.symbol}.id`);
    const grants = declared('Microsoft.Authorization/roleAssignments').filter(
      ({ file, resource }) => KNOWN_ROLES[guidsIn(getPath(resource.body, ['properties', 'roleDefinitionId']), file)[0] ?? ''] === 'Communication and Email Service Owner',
    );
    expect(grants).toHaveLength(1);
    const [grant] = grants;
    expect(getPath(grant!.resource.body, ['scope'])?.text).toBe(communication!.resource.symbol);
    expect(readsParameter(getPath(grant!.resource.body, ['properties', 'principalId']), grant!.file, (param) => param.name === 'appPrincipalId')).toBe(true);
    const module = main.modules.find((candidate) => candidate.symbol === 'functionApp');
    expect(getPath(module?.body, ['params', 'acsEmailEndpoint'])?.text).toBe('email.outputs.endpoint');
    // No access key is read out of the Communication Service (the secret-flow rule forbids listKeys() everywhere).
    expect(runRule('secret-flow', infra)).toEqual([]);
  });

  test('text messages: an Event Grid system topic on the Communication Service, a subscription for SMSReceived and SMSDeliveryReportReceived to /api/events/acs?code=<secret>, SMS_FROM from a parameter, the connection string and the secret from Key Vault', () => {
    const declared = (type: string) => allResources(infra).filter(({ resource }) => resource.typeName === type && !resource.existing);
    const [topic] = declared('Microsoft.EventGrid/systemTopics');
    expect(topic).toBeDefined();
    expect(evaluate(getPath(topic!.resource.body, ['properties', 'topicType']), topic!.file)).toBe('Microsoft.Communication.CommunicationServices');
    // Its source is the Communication Service that sends the texts.
    const source = getPath(topic!.resource.body, ['properties', 'source'])!.text;
    const sourceSymbol = source.replace(/\.id$/, '');
    expect(topic!.file.resources.find((resource) => resource.symbol === sourceSymbol)?.typeName).toBe('Microsoft.Communication/communicationServices');

    const [subscription] = declared('Microsoft.EventGrid/systemTopics/eventSubscriptions');
    expect(subscription).toBeDefined();
    const { file, resource } = subscription!;
    expect(evaluate(getPath(resource.body, ['properties', 'filter', 'includedEventTypes']), file)).toEqual(['Microsoft.Communication.SMSReceived', 'Microsoft.Communication.SMSDeliveryReportReceived']);
    expect(evaluate(getPath(resource.body, ['properties', 'destination', 'endpointType']), file)).toBe('WebHook');
    const endpoint = getPath(resource.body, ['properties', 'destination', 'properties', 'endpointUrl']);
    expect(endpoint?.text).toMatch(/^'https:\/\/\$\{[A-Za-z]+\}\/api\/events\/acs\?code=\$\{[A-Za-z]+\}'$/);
    // The code is the @secure() secret, never a literal; the subscription waits for it (Event Grid's handshake needs the app's code).
    expect(readsParameter(endpoint, file, (param) => param.decorators.includes('secure') && param.name === 'acsEventSecret')).toBe(true);
    expect(resource.node.text).toMatch(/= if \(!empty\(acsEventSecret\)\)/);
    const module = main.modules.find((candidate) => candidate.symbol === 'sms');
    expect(getPath(module?.body, ['params', 'appHostName'])?.text).toBe('functionApp.outputs.defaultHostName');
    expect(readsParameter(getPath(module?.body, ['params', 'acsEventSecret']), main, (param) => param.name === 'acsEventSecret' && param.decorators.includes('secure'))).toBe(true);

    // The app settings: SMS_FROM from main.bicep's smsFrom; the connection string and the secret as Key Vault references.
    const app = [...infra.values()].find((candidate) => appSettingsOf(candidate).found)!;
    const settings = new Map(appSettingsOf(app).settings.map((setting) => [setting.name, setting]));
    expect(settings.get('ACS_CONNECTION_STRING')?.value.text).toMatch(/^'@Microsoft\.KeyVault\(VaultName=\$\{keyVaultName\};SecretName=\$\{secretNames\.acsConnectionString\}\)'$/);
    expect(settings.get('ACS_EVENT_SECRET')?.value.text).toMatch(/^'@Microsoft\.KeyVault\(VaultName=\$\{keyVaultName\};SecretName=\$\{secretNames\.acsEventSecret\}\)'$/);
    expect(readsParameter(settings.get('SMS_FROM')?.value, app, (param) => param.name === 'smsFrom')).toBe(true);
    expect(readsParameter(getPath(main.modules.find((candidate) => candidate.symbol === 'functionApp')?.body, ['params', 'smsFrom']), main, (param) => param.name === 'smsFrom')).toBe(true);
    // Without a sender none of them is set (a Key Vault reference to a secret never set would stop the app).
    for (const name of ['ACS_CONNECTION_STRING', 'SMS_FROM', 'ACS_EVENT_SECRET', 'SMS_DAILY_QUOTA']) expect([name, settings.get(name)?.conditional]).toEqual([name, true]);
    // The default daily quota is the service's own.
    expect(evaluate(main.params.get('smsDailyQuota')?.defaultValue, main)).toBe(loadConfig({ JWT_SECRET: 'x'.repeat(32), SEAL_P12_BASE64: 'AAAA' }).limits.smsDailyQuota);
    // The secrets are written to Key Vault only when given, under the names the references read.
    const vaultSecrets = declared('Microsoft.KeyVault/vaults/secrets').map(({ resource: secret }) => getPath(secret.body, ['name'])?.text);
    expect(vaultSecrets).toEqual(expect.arrayContaining(['secretNames.acsConnectionString', 'secretNames.acsEventSecret']));
  });

  test('a log alert fires, per queue, when the Functions host moves a message to a -poison queue', () => {
    const alerts = allResources(infra).filter(({ resource }) => resource.typeName === 'Microsoft.Insights/scheduledQueryRules' && !resource.existing);
    // One alert on the host's poison line (the others watch the service's telemetry, below).
    const poison = alerts.filter(({ file, resource }) => String(evaluate(getPath(named(getPath(resource.body, ['properties', 'criteria', 'allOf'])!)[0], ['query']), file)).includes('MaxDequeueCount'));
    expect(poison).toHaveLength(1);
    const { file, resource } = poison[0]!;
    expect(evaluate(getPath(resource.body, ['kind']), file)).toBe('LogAlert');
    expect(evaluate(getPath(resource.body, ['properties', 'enabled']), file)).toBe(true);
    const criterion = named(getPath(resource.body, ['properties', 'criteria', 'allOf'])!)[0];
    const query = evaluate(getPath(criterion, ['query']), file);
    expect(typeof query).toBe('string');
    // The host's own words ("Message has reached MaxDequeueCount of 5. Moving message to queue '<queue>-poison'.").
    expect(query).toContain('MaxDequeueCount');
    expect(query).toContain('-poison');
    expect(evaluate(getPath(criterion, ['operator']), file)).toBe('GreaterThan');
    expect(evaluate(getPath(criterion, ['threshold']), file)).toBe(0);
    expect(evaluate(getPath(criterion, ['dimensions']), file)).toEqual([{ name: 'Queue', operator: 'Include', values: ['*'] }]);
    expect(getPath(resource.body, ['properties', 'scopes'])?.text).toContain('applicationInsights.id');
    // The operator is told when alertEmail is set.
    expect(readsParameter(getPath(resource.body, ['properties', 'actions']), file, (param) => param.name === 'alertEmail')).toBe(true);
  });

  test('telemetry (docs/api.md#telemetry): Application Insights in the app settings, signed in with the identity; log alerts on the 5xx rate, the outbox\'s oldest age and seal failures; a workbook', () => {
    const appFile = [...infra.values()].find((candidate) => appSettingsOf(candidate).found)!;
    const settings = new Map(appSettingsOf(appFile).settings.map((setting) => [setting.name, setting.value]));
    expect(settings.get('APPLICATIONINSIGHTS_CONNECTION_STRING')?.text).toContain('applicationInsights.properties.ConnectionString');
    expect(settings.get('APPLICATIONINSIGHTS_AUTHENTICATION_STRING')?.text).toContain('Authorization=AAD');

    const alerts = allResources(infra).filter(({ resource }) => resource.typeName === 'Microsoft.Insights/scheduledQueryRules' && !resource.existing);
    expect(alerts).toHaveLength(4);
    const criterionOf = (resource: ResourceDecl) => named(getPath(resource.body, ['properties', 'criteria', 'allOf'])!)[0];
    const queryOf = ({ file, resource }: { file: BicepFile; resource: ResourceDecl }) => String(evaluate(getPath(criterionOf(resource), ['query']), file));
    const alertOn = (words: string[]) => {
      const found = alerts.filter((alert) => words.every((word) => queryOf(alert).includes(word)));
      expect([words, found.length]).toEqual([words, 1]);
      const alert = found[0]!;
      expect(evaluate(getPath(alert.resource.body, ['kind']), alert.file)).toBe('LogAlert');
      expect(evaluate(getPath(alert.resource.body, ['properties', 'enabled']), alert.file)).toBe(true);
      expect(getPath(alert.resource.body, ['properties', 'scopes'])?.text).toContain('applicationInsights.id');
      expect(readsParameter(getPath(alert.resource.body, ['properties', 'actions']), alert.file, (param) => param.name === 'alertEmail')).toBe(true);
      expect(evaluate(getPath(criterionOf(alert.resource), ['operator']), alert.file)).toBe('GreaterThan');
      return { ...alert, criterion: criterionOf(alert.resource) };
    };
    // The 5xx rate: the service's own request spans, by status, as a percentage, above a parameter.
    const serverErrors = alertOn(['requests', 'resultCode', '>= 500']);
    expect(evaluate(getPath(serverErrors.criterion, ['metricMeasureColumn']), serverErrors.file)).toBe('ErrorPercent');
    expect(readsParameter(getPath(serverErrors.criterion, ['threshold']), serverErrors.file, (param) => param.name === 'serverErrorRatePercent')).toBe(true);
    // The outbox's oldest age and failed seals: the metrics the code exports, by the names it gives them.
    const outbox = alertOn(['customMetrics', `"${METRICS.outboxOldestAge}"`]);
    expect(evaluate(getPath(outbox.criterion, ['metricMeasureColumn']), outbox.file)).toBe('AgeSeconds');
    expect(readsParameter(getPath(outbox.criterion, ['threshold']), outbox.file, (param) => param.name === 'outboxAgeAlertSeconds')).toBe(true);
    const seals = alertOn(['customMetrics', `"${METRICS.sealDuration}"`, '"seal.outcome"', '"failed"']);
    expect(evaluate(getPath(seals.criterion, ['threshold']), seals.file)).toBe(0);

    // The workbook, on the component, with a panel for each metric the service exports.
    const workbooks = allResources(infra).filter(({ resource }) => resource.typeName === 'Microsoft.Insights/workbooks' && !resource.existing);
    expect(workbooks).toHaveLength(1);
    const { file, resource } = workbooks[0]!;
    expect(evaluate(getPath(resource.body, ['kind']), file)).toBe('shared');
    expect(getPath(resource.body, ['properties', 'sourceId'])?.text).toBe('applicationInsights.id');
    expect(getPath(resource.body, ['properties', 'serializedData'])?.text).toBe('string(workbook)');
    const panels = stringsIn(evaluate(file.vars.get('workbookQueries'), file)).join('\n');
    for (const metric of Object.values(METRICS)) expect([metric, panels.includes(`"${metric}"`)]).toEqual([metric, true]);
    expect(panels).toContain('requests');
  });

  test("Blob CORS origins come from a parameter, and main.bicep's allowedOrigins reaches both the Blob service and ALLOWED_ORIGINS", () => {
    const blobServices = allResources(infra).filter(({ resource }) => resource.typeName === 'Microsoft.Storage/storageAccounts/blobServices' && !resource.existing);
    expect(blobServices.length).toBeGreaterThan(0);
    for (const { file, resource } of blobServices) {
      const rules = getPath(resource.body, ['properties', 'cors', 'corsRules']);
      expect(rules).toBeDefined();
      expect(readsParameter(rules, file, (param) => /origin/i.test(param.name))).toBe(true);
    }
    const passesOrigins = (symbol: string, param: string) => {
      const module = main.modules.find((candidate) => candidate.symbol === symbol);
      return readsParameter(getPath(module?.body, ['params', param]), main, (candidate) => candidate.name === 'allowedOrigins');
    };
    expect(passesOrigins('storage', 'allowedOrigins')).toBe(true);
    expect(passesOrigins('functionApp', 'allowedOrigins')).toBe(true);
  });

  test('the app settings live on the Flex Consumption Function App and reference Key Vault for every secret', () => {
    const withSettings = [...infra.values()].filter((file) => appSettingsOf(file).found);
    expect(withSettings.map((file) => file.file)).toHaveLength(1);
    const settings = withSettings.flatMap((file) => appSettingsOf(file).settings).map((setting) => setting.name);
    expect(settings).toEqual(expect.arrayContaining([...REQUIRED_APP_SETTINGS, 'TURNSTILE_SECRET_KEY']));
  });

  test('TURNSTILE_SITE_KEY (public) comes from main.bicep\'s turnstileSiteKey as a plain setting, set only with Turnstile on', () => {
    const app = [...infra.values()].find((candidate) => appSettingsOf(candidate).found)!;
    const settings = new Map(appSettingsOf(app).settings.map((setting) => [setting.name, setting]));
    expect(readsParameter(settings.get('TURNSTILE_SITE_KEY')?.value, app, (param) => param.name === 'turnstileSiteKey' && !param.decorators.includes('secure'))).toBe(true);
    expect(settings.get('TURNSTILE_SITE_KEY')?.conditional).toBe(true);
    expect(readsParameter(getPath(main.modules.find((candidate) => candidate.symbol === 'functionApp')?.body, ['params', 'turnstileSiteKey']), main, (param) => param.name === 'turnstileSiteKey')).toBe(true);
  });

  test("the app's identity gets Blob Data Owner or Contributor, Table and Queue Data Contributor, Key Vault Secrets User, Monitoring Metrics Publisher and Communication and Email Service Owner", () => {
    const assigned = allResources(infra)
      .filter(({ resource }) => resource.typeName === 'Microsoft.Authorization/roleAssignments' && !resource.existing)
      .flatMap(({ file, resource }) => guidsIn(getPath(resource.body, ['properties', 'roleDefinitionId']), file))
      .map((id) => KNOWN_ROLES[id]);
    expect(REQUIRED_ROLES.filter((alternatives) => !alternatives.some((role) => assigned.includes(role)))).toEqual([]);
  });

  test('main.parameters.json (azd) names only main.bicep parameters, covers the required ones and holds no secure one', () => {
    const document = JSON.parse(readFileSync(path.join(repoRoot, 'infra/main.parameters.json'), 'utf8')) as { parameters?: Record<string, { value?: unknown }> };
    const given = document.parameters ?? {};
    expect(Object.keys(given).filter((name) => !main.params.has(name))).toEqual([]);
    const required = [...main.params.values()].filter((param) => param.defaultValue === undefined).map((param) => param.name);
    expect(required.filter((name) => !(name in given))).toEqual([]);
    const secure = [...main.params.values()].filter((param) => param.decorators.includes('secure')).map((param) => param.name);
    expect(secure.filter((name) => name in given)).toEqual([]);
    // Values come from the azd environment (${VAR}); nothing is written into the file.
    for (const [name, entry] of Object.entries(given)) expect([name, entry.value]).toEqual([name, expect.stringMatching(/^\$\{[A-Z0-9_]+\}$/)]);
  });
});

describe('the Bicep checks catch real defects', () => {
  const good = {
    storage: `
@description('d')
param origins string[]
resource account 'Microsoft.Storage/storageAccounts@2023-05-01' = {
  name: 'x'
  properties: {
    allowSharedKeyAccess: false
    minimumTlsVersion: 'TLS1_2'
    allowBlobPublicAccess: false
    supportsHttpsTrafficOnly: true
  }
}
`,
    roles: `
@description('d')
param principalId string
// Key Vault Secrets User: reads the app's secrets.
resource grant 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(principalId, '4633458b-17de-408a-b874-0445c86b69e6')
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', '4633458b-17de-408a-b874-0445c86b69e6')
    principalId: principalId
    principalType: 'ServicePrincipal'
  }
}
`,
    site: `
@description('d')
param vault string
var settings = {
  AzureWebJobsStorage__credential: 'managedidentity'
  JWT_SECRET: '@Microsoft.KeyVault(VaultName=\${vault};SecretName=jwt-secret)'
}
resource site 'Microsoft.Web/sites@2024-04-01' = {
  name: 'x'
  properties: {
    keyVaultReferenceIdentity: 'id'
    siteConfig: {
      appSettings: [for setting in items(settings): { name: setting.key, value: setting.value }]
    }
    functionAppConfig: {
      scaleAndConcurrency: {}
    }
  }
}
`,
  };

  const check = (rule: string, source: string, extra: Record<string, string> = {}) => runRule(rule, sources({ 'infra/main.bicep': source, ...extra })).map((found) => found.message);

  test('the good fixtures pass the rules they are used for', () => {
    expect(check('hardening', good.storage)).toEqual([]);
    expect(check('roles', good.roles)).toEqual([]);
    expect(check('flex', good.site)).toEqual([]);
    expect(check('secret-literal', good.site)).toEqual([]);
    expect(check('syntax', good.storage + good.roles)).toEqual([]);
  });

  test('a syntax error', () => {
    expect(check('syntax', "resource a 'Microsoft.Storage/storageAccounts@2023-05-01' = {\n  name: 'x'\n  properties: {\n}\n")).not.toEqual([]);
    expect(check('syntax', "param p string =\nvar v = 1\n")).not.toEqual([]);
  });

  test('a resource without an API version, with a preview one, or one too old for Flex Consumption', () => {
    expect(check('api-version', "resource a 'Microsoft.Storage/storageAccounts' = {\n  name: 'x'\n}\n")).toEqual([expect.stringContaining('has no API version')]);
    expect(check('api-version', "resource a 'Microsoft.Web/sites@2024-11-01-preview' = {\n  name: 'x'\n}\n")).toEqual([expect.stringContaining('preview')]);
    expect(check('api-version', "resource a 'Microsoft.Web/sites@2022-03-01' = {\n  name: 'x'\n}\n")).toEqual([expect.stringContaining('predates functionAppConfig')]);
    expect(check('api-version', "resource a 'Microsoft.Storage/storageAccounts@2023-05-01' = {\n  name: 'x'\n  resource b 'blobServices' = {\n    name: 'default'\n  }\n}\n")).toEqual([]);
  });

  test('a module that is missing, from a registry, or given the wrong parameters', () => {
    expect(check('module', "module m 'modules/absent.bicep' = {\n  name: 'm'\n}\n")).toEqual([expect.stringContaining('does not exist')]);
    expect(check('module', "module m 'br/public:avm/res/web/site:0.15.1' = {\n  name: 'm'\n}\n")).toEqual([expect.stringContaining('registry')]);
    const module = "@description('d')\nparam needed string\n@description('d')\nparam optional string = ''\noutput there string = needed\n";
    const caller = "module m 'modules/m.bicep' = {\n  name: 'm'\n  params: {\n    typo: 'x'\n  }\n}\noutput o string = m.outputs.notThere\n";
    expect(check('module', caller, { 'infra/modules/m.bicep': module })).toEqual([
      expect.stringContaining('passes typo'),
      expect.stringContaining('does not pass needed'),
      expect.stringContaining('has no output notThere'),
    ]);
  });

  test('a secret parameter that is not @secure(), or a @secure() one with a literal default', () => {
    expect(check('parameters', "@description('d')\nparam jwtSecret string\n")).toEqual([expect.stringContaining('is not @secure()')]);
    expect(check('parameters', "@secure()\n@description('d')\nparam sealP12Passphrase string = 'hunter2hunter2'\n")).toEqual([expect.stringContaining('has a default value')]);
    expect(check('parameters', "param location string\n")).toEqual([expect.stringContaining('no @description')]);
    expect(check('parameters', "@secure()\n@description('d')\nparam jwtSecret string = ''\n@description('d')\nparam keyVaultName string\n")).toEqual([]);
  });

  test('a key read out with listKeys(), or an output that leaks a secure parameter', () => {
    expect(check('secret-flow', "resource sa 'Microsoft.Storage/storageAccounts@2023-05-01' existing = {\n  name: 'x'\n}\nvar key = sa.listKeys().keys[0].value\n")).toEqual([
      expect.stringContaining('listKeys()'),
    ]);
    expect(check('secret-flow', "@secure()\n@description('d')\nparam jwtSecret string = ''\nvar copy = jwtSecret\noutput leaked string = copy\n")).toEqual([
      expect.stringContaining('exposes a @secure() parameter'),
    ]);
  });

  test('a literal secret value in a template', () => {
    expect(check('secret-literal', "var settings = {\n  JWT_SECRET: 'a-literal-jwt-secret-that-is-long-enough'\n}\n")).toEqual([expect.stringContaining('JWT_SECRET')]);
    expect(check('secret-literal', "var turnstileSecretKey = '0x4AAAAAAAexampleexample'\n")).toEqual([expect.stringContaining('turnstileSecretKey')]);
    expect(check('secret-literal', "var secretNames = {\n  jwtSecret: 'jwt-secret'\n}\n")).toEqual([]);
  });

  test("string() of a bool parameter (ARM writes 'True')", () => {
    expect(check('bool-string', "@description('d')\nparam required bool = false\nvar settings = {\n  TURNSTILE_REQUIRED: string(required)\n}\n")).toEqual([expect.stringContaining("is 'True' or 'False'")]);
  });

  test('a storage account with shared keys, old TLS or public blobs; a vault without RBAC', () => {
    const weak = good.storage.replace('allowSharedKeyAccess: false', 'allowSharedKeyAccess: true').replace("'TLS1_2'", "'TLS1_0'").replace('allowBlobPublicAccess: false\n', '');
    expect(check('hardening', weak)).toEqual([
      expect.stringContaining('allowSharedKeyAccess must be false'),
      expect.stringContaining('minimumTlsVersion must be "TLS1_2"'),
      expect.stringContaining('allowBlobPublicAccess must be false (no anonymous blob access), is not set'),
    ]);
    expect(check('hardening', "resource kv 'Microsoft.KeyVault/vaults@2023-07-01' = {\n  name: 'x'\n  properties: {\n    enableSoftDelete: true\n  }\n}\n")).toEqual([
      expect.stringContaining('enableRbacAuthorization'),
    ]);
  });

  test('a setting or site property Flex Consumption rejects', () => {
    const withRunFromPackage = good.site.replace("AzureWebJobsStorage__credential: 'managedidentity'", "AzureWebJobsStorage__credential: 'managedidentity'\n  WEBSITE_RUN_FROM_PACKAGE: '1'");
    expect(check('flex', withRunFromPackage)).toEqual([expect.stringContaining('WEBSITE_RUN_FROM_PACKAGE')]);
    const asList = "var list = [\n  {\n    name: 'FUNCTIONS_WORKER_RUNTIME'\n    value: 'node'\n  }\n]\n";
    expect(check('flex', asList)).toEqual([expect.stringContaining('FUNCTIONS_WORKER_RUNTIME')]);
    const withLinuxFx = good.site.replace('keyVaultReferenceIdentity', "siteConfig2: {\n      linuxFxVersion: 'NODE|22'\n    }\n    keyVaultReferenceIdentity");
    expect(check('flex', withLinuxFx)).toEqual([expect.stringContaining('linuxFxVersion')]);
  });

  test('a secret app setting that is not a Key Vault reference, or a key-based host storage connection', () => {
    const plain = good.site.replace("'@Microsoft.KeyVault(VaultName=${vault};SecretName=jwt-secret)'", 'vault');
    expect(check('app-settings', plain)).toEqual(expect.arrayContaining([expect.stringContaining('JWT_SECRET must be a Key Vault reference')]));
    const keyed = good.site.replace("AzureWebJobsStorage__credential: 'managedidentity'", "AzureWebJobsStorage__credential: 'connectionstring'");
    expect(check('app-settings', keyed)).toEqual(expect.arrayContaining([expect.stringContaining("must be 'managedidentity'")]));
    expect(check('app-settings', good.site)).toEqual(expect.arrayContaining([expect.stringContaining('STORAGE_ACCOUNT_NAME is not set')]));
  });

  test('a role assignment without guid(), without a comment naming its role, or with an unknown role', () => {
    expect(check('roles', good.roles.replace("name: guid(principalId, '4633458b-17de-408a-b874-0445c86b69e6')", "name: 'fixed-name'"))).toEqual([expect.stringContaining('guid(')]);
    expect(check('roles', good.roles.replace("// Key Vault Secrets User: reads the app's secrets.", '// Reads the secrets.'))).toEqual([expect.stringContaining('(Key Vault Secrets User)')]);
    expect(check('roles', good.roles.replaceAll('4633458b-17de-408a-b874-0445c86b69e6', '8e3af657-a8ff-443c-a75c-2fe8c4bcb635'))).toEqual([expect.stringContaining('not one these checks know')]);
    expect(check('roles', good.roles.replace("    principalType: 'ServicePrincipal'\n", ''))).toEqual([expect.stringContaining('no principalType')]);
  });
});

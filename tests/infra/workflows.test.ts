/**
 * Offline checks of the pipeline and the operator's documents (docs/deploy.md):
 * the workflow files and azure.yaml parse and do what docs/deploy.md describes, in order, with the
 * actions it names; infra/main.parameters.json, the deploy workflow and docs/deploy.md agree with
 * infra/main.bicep; and docs/deploy.md covers every step an operator needs.
 *
 * Each structural check is also run on a small broken workflow, so a check that silently stopped
 * finding anything fails the suite.
 */
import { describe, expect, test } from '@jest/globals';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseDocument } from 'yaml';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const read = (file: string) => readFileSync(path.join(repoRoot, file), 'utf8');

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
  env?: Record<string, unknown>;
}

interface Job {
  uses?: string;
  needs?: string | string[];
  if?: string;
  permissions?: Record<string, string> | string;
  environment?: string | { name?: string };
  strategy?: { matrix?: Record<string, unknown> };
  env?: Record<string, unknown>;
  steps?: Step[];
}

interface Workflow {
  name?: string;
  on?: Record<string, unknown> | string | string[];
  permissions?: Record<string, string> | string;
  jobs?: Record<string, Job>;
}

/** Parses YAML strictly: a syntax error, a duplicate key or a warning is a failure. */
function parseYaml(text: string, file: string): unknown {
  const document = parseDocument(text, { uniqueKeys: true, prettyErrors: true });
  const problems = [...document.errors, ...document.warnings].map((problem) => `${file}: ${problem.message}`);
  if (problems.length > 0) throw new Error(problems.join('\n'));
  return document.toJS();
}

function workflow(file: string, text = read(file)): Workflow {
  return parseYaml(text, file) as Workflow;
}

function triggers(flow: Workflow): Record<string, unknown> {
  const on = flow.on;
  if (typeof on === 'string') return { [on]: null };
  if (Array.isArray(on)) return Object.fromEntries(on.map((event) => [event, null]));
  return on ?? {};
}

function steps(job: Job | undefined): Step[] {
  return job?.steps ?? [];
}

function allSteps(flow: Workflow): Step[] {
  return Object.values(flow.jobs ?? {}).flatMap(steps);
}

/** Index of the first step matching, or -1. */
function stepIndex(job: Job | undefined, match: (step: Step) => boolean): number {
  return steps(job).findIndex(match);
}

const usesAction = (action: string) => (step: Step) => (step.uses ?? '').toLowerCase().startsWith(`${action.toLowerCase()}@`);
const runs = (pattern: RegExp) => (step: Step) => pattern.test(step.run ?? '');

/** Problems with a CI workflow: README's test command on Node 20 and 22, every push and PR, Bicep compiled. */
function ciProblems(flow: Workflow): string[] {
  const problems: string[] = [];
  const on = triggers(flow);
  for (const event of ['push', 'pull_request']) if (!(event in on)) problems.push(`not run on ${event}`);
  const jobs = Object.values(flow.jobs ?? {});
  const testJob = jobs.find((job) => steps(job).some(runs(/^\s*npm test\s*$/m)));
  if (testJob === undefined) {
    problems.push('no job runs npm test');
  } else {
    const versions = (testJob.strategy?.matrix?.node ?? testJob.strategy?.matrix?.['node-version']) as unknown;
    const list = Array.isArray(versions) ? versions.map(String) : [];
    for (const version of ['20', '22']) if (!list.includes(version)) problems.push(`npm test does not run on Node ${version}`);
    const setupNode = steps(testJob).find(usesAction('actions/setup-node'));
    if (!/\$\{\{\s*matrix\.(node|node-version)\s*\}\}/.test(String(setupNode?.with?.['node-version'] ?? ''))) problems.push('setup-node does not use the matrix version');
    const install = stepIndex(testJob, runs(/^\s*npm ci\s*$/m));
    const test = stepIndex(testJob, runs(/^\s*npm test\s*$/m));
    if (install === -1 || install > test) problems.push('npm ci does not run before npm test');
    const tools = stepIndex(testJob, runs(/apt-get install[^\n]*poppler-utils[^\n]*qpdf|apt-get install[^\n]*qpdf[^\n]*poppler-utils/));
    if (tools === -1 || tools > test) problems.push('poppler-utils and qpdf are not installed before npm test');
  }
  if (!allSteps(flow).some(runs(/az bicep build\b[^\n]*infra\/main\.bicep/))) problems.push('no step compiles infra/main.bicep (az bicep build)');
  return problems;
}

/** Problems with a deploy workflow: on main, OIDC login, Bicep, functions-action, smoke test, in that order. */
function deployProblems(flow: Workflow): string[] {
  const problems: string[] = [];
  const push = triggers(flow).push as { branches?: string[] } | null | undefined;
  if (!(push?.branches ?? []).includes('main')) problems.push('not run on pushes to main');
  const jobs = flow.jobs ?? {};
  const deployName = Object.keys(jobs).find((name) => steps(jobs[name]).some(usesAction('Azure/functions-action')));
  const deploy = deployName === undefined ? undefined : jobs[deployName];
  if (deploy === undefined) return [...problems, 'no job deploys with Azure/functions-action'];

  // Tests first: the deploy job needs a job that runs ci.yml.
  const needs = typeof deploy.needs === 'string' ? [deploy.needs] : (deploy.needs ?? []);
  if (!needs.some((name) => /(^|\/)ci\.yml$/.test(jobs[name]?.uses ?? ''))) problems.push('the deploy job does not wait for the tests (a job that uses ci.yml)');

  const permissions: Record<string, string> = typeof deploy.permissions === 'object' ? deploy.permissions : typeof flow.permissions === 'object' ? flow.permissions : {};
  if (permissions['id-token'] !== 'write') problems.push('the deploy job cannot request an OpenID Connect token (permissions: id-token: write)');

  const login = stepIndex(deploy, usesAction('azure/login'));
  const loginStep = steps(deploy)[login];
  if (loginStep === undefined) problems.push('no azure/login step');
  else {
    for (const input of ['client-id', 'tenant-id', 'subscription-id']) if (loginStep.with?.[input] === undefined) problems.push(`azure/login has no ${input}`);
    if (loginStep.with?.creds !== undefined || loginStep.with?.['client-secret'] !== undefined) problems.push('azure/login uses a client secret, not OpenID Connect');
  }
  const infra = stepIndex(deploy, (step) => usesAction('azure/bicep-deploy')(step) || runs(/az deployment (sub|group) create[\s\S]*infra\/main\.bicep/)(step));
  if (infra === -1) problems.push('no step deploys infra/main.bicep');
  const app = stepIndex(deploy, usesAction('Azure/functions-action'));
  const appStep = steps(deploy)[app];
  if (String(appStep?.with?.sku ?? '').toLowerCase() !== 'flexconsumption') problems.push('Azure/functions-action is not told the app is on Flex Consumption (sku: flexconsumption)');
  const build = stepIndex(deploy, runs(/npm run build[\s\S]*npm ci --omit=dev/));
  if (build === -1 || build > app) problems.push('the package is not built with production dependencies only (npm run build, then npm ci --omit=dev) before deploying');
  const smoke = stepIndex(deploy, runs(/curl[\s\S]*\/health/));
  if (smoke === -1) problems.push('no smoke test of GET /api/health');
  if (!(login < infra && infra < app && app < smoke)) problems.push('steps are not in the order login, infrastructure, app, smoke test');
  return problems;
}

/** Problems common to every workflow: pinned actions, declared permissions, no pull_request_target. */
function hygieneProblems(flow: Workflow): string[] {
  const problems: string[] = [];
  if (flow.permissions === undefined) problems.push('no top-level permissions (the default token can write)');
  if ('pull_request_target' in triggers(flow)) problems.push('pull_request_target runs untrusted code with secrets');
  for (const step of allSteps(flow)) {
    const uses = step.uses;
    if (uses === undefined || uses.startsWith('./')) continue;
    if (!/@(v\d+(\.\d+)*|[0-9a-f]{40})$/.test(uses)) problems.push(`${uses} is not pinned to a version or commit`);
  }
  return problems;
}

describe('GitHub Actions workflows', () => {
  test('both workflow files parse as YAML, without duplicate keys', () => {
    expect(() => workflow('.github/workflows/ci.yml')).not.toThrow();
    expect(() => workflow('.github/workflows/deploy.yml')).not.toThrow();
  });

  test("ci.yml runs the README's test command (npm ci, npm test) on Node 20 and 22 for every push and pull request, and compiles the Bicep", () => {
    expect(ciProblems(workflow('.github/workflows/ci.yml'))).toEqual([]);
  });

  test('ci.yml can be called by deploy.yml, and together they test every push, main included', () => {
    const ci = workflow('.github/workflows/ci.yml');
    const on = triggers(ci);
    expect(on).toHaveProperty('workflow_call');
    const push = on.push as { 'branches-ignore'?: string[]; branches?: string[] } | null;
    // If ci.yml skips main, deploy.yml must test main through it.
    if ((push?.['branches-ignore'] ?? []).includes('main')) {
      const deploy = workflow('.github/workflows/deploy.yml');
      expect(Object.values(deploy.jobs ?? {}).some((job) => /(^|\/)ci\.yml$/.test(job.uses ?? ''))).toBe(true);
    }
  });

  test('the README names the same test command', () => {
    expect(existsSync(path.join(repoRoot, 'README.md'))).toBe(true);
    expect(read('README.md')).toContain('npm test');
  });

  test('deploy.yml, on main: tests, OIDC login, Bicep, Azure/functions-action on Flex Consumption, smoke test of /api/health', () => {
    expect(deployProblems(workflow('.github/workflows/deploy.yml'))).toEqual([]);
  });

  test('every workflow pins its actions, declares permissions and avoids pull_request_target', () => {
    expect(hygieneProblems(workflow('.github/workflows/ci.yml'))).toEqual([]);
    expect(hygieneProblems(workflow('.github/workflows/deploy.yml'))).toEqual([]);
  });

  test('deploy.yml gives every ${VAR} placeholder of infra/main.parameters.json a value', () => {
    const placeholders = [...read('infra/main.parameters.json').matchAll(/\$\{([A-Z0-9_]+)\}/g)].map((match) => match[1]);
    const flow = workflow('.github/workflows/deploy.yml');
    const deploy = Object.values(flow.jobs ?? {}).find((job) => steps(job).some(usesAction('Azure/functions-action')));
    const provided = new Set(Object.keys({ ...(deploy?.env ?? {}), ...Object.assign({}, ...steps(deploy).map((step) => step.env ?? {})) }));
    expect(placeholders.filter((name) => name !== undefined && !provided.has(name))).toEqual([]);
  });
});

describe('azure.yaml (azd)', () => {
  test('parses, deploys the project root as the api service to a Function App, and provisions infra/main.bicep', () => {
    const config = parseYaml(read('azure.yaml'), 'azure.yaml') as {
      name?: string;
      infra?: { provider?: string; path?: string; module?: string };
      services?: Record<string, { project?: string; host?: string; language?: string }>;
    };
    expect(config.name).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
    expect(config.services?.api).toMatchObject({ project: '.', host: 'function', language: expect.stringMatching(/^(js|ts)$/) });
    const infraPath = config.infra?.path ?? 'infra';
    const module = config.infra?.module ?? 'main';
    expect(existsSync(path.join(repoRoot, infraPath, `${module}.bicep`))).toBe(true);
    expect(existsSync(path.join(repoRoot, infraPath, `${module}.parameters.json`))).toBe(true);
  });

  test('the Function App carries the azd-service-name tag of the service', () => {
    expect(read('infra/modules/functionapp.bicep')).toMatch(/'azd-service-name':\s*'api'/);
  });
});

describe('docs/deploy.md', () => {
  const doc = existsSync(path.join(repoRoot, 'docs/deploy.md')) ? read('docs/deploy.md') : '';
  const mainBicep = read('infra/main.bicep');
  const mainParams = new Set([...mainBicep.matchAll(/^param\s+(\w+)/gm)].map((match) => match[1]));

  test('says that the full Bicep compile runs in the workflow', () => {
    expect(doc).toMatch(/full (Bicep )?compile[\s\S]{0,200}workflow/i);
    expect(doc).toContain('az bicep build');
  });

  test('walks from an empty subscription to a working API in numbered steps', () => {
    const steps = [...doc.matchAll(/^## (\d+)\. (.+)$/gm)].map((match) => ({ number: Number(match[1]), title: match[2] ?? '' }));
    expect(steps.map((step) => step.number)).toEqual(steps.map((_, index) => index + 1));
    const titles = steps.map((step) => step.title).join('\n');
    for (const topic of [/install|prerequisite/i, /federated credential/i, /first deployment/i, /secrets? in key vault/i, /invitation code/i, /rotate the jwt secret/i, /rotate the sealing certificate/i]) {
      expect(titles).toMatch(topic);
    }
    expect(doc).toMatch(/^## What it costs at idle$/m);
  });

  test('names every Key Vault secret the app settings reference', () => {
    const secretNames = [...mainBicep.matchAll(/^\s+\w+: '([a-z0-9-]+)'$/gm)].map((match) => match[1]).filter((name) => name !== undefined && /secret|seal|jwt|turnstile/.test(name));
    expect(secretNames.length).toBeGreaterThanOrEqual(4);
    for (const name of secretNames) expect(doc).toContain(`--name ${name}`);
  });

  test('documents every repository variable the deploy workflow reads', () => {
    const variables = new Set([...read('.github/workflows/deploy.yml').matchAll(/\bvars\.([A-Z0-9_]+)/g)].map((match) => match[1]));
    expect([...variables].filter((name) => name !== undefined && !doc.includes(name))).toEqual([]);
  });

  test('passes only parameters main.bicep declares to az deployment', () => {
    // The commands in the code blocks, with backslash continuations joined.
    const codeLines = [...doc.matchAll(/```[a-z]*\n([\s\S]*?)```/g)].flatMap((block) => (block[1] ?? '').replace(/\\\n/g, ' ').split('\n'));
    const commands = codeLines.filter((line) => line.includes('az deployment sub create'));
    expect(commands.length).toBeGreaterThan(0);
    const passed = commands.flatMap((command) => [...command.matchAll(/(?:^|\s)([A-Za-z][A-Za-z0-9]*)=/g)].map((match) => match[1]));
    expect(passed.length).toBeGreaterThan(0);
    expect(passed.filter((name) => name !== undefined && !mainParams.has(name))).toEqual([]);
  });

  test('tells the operator the identity needs Storage Table Data Contributor to create invitation codes', () => {
    expect(doc).toContain('npm run --silent invite');
    expect(doc).toMatch(/Storage Table Data Contributor/);
    expect(doc).toContain('operatorPrincipalId');
  });
});

describe('the workflow checks catch real defects', () => {
  const ciYaml = read('.github/workflows/ci.yml');
  const deployYaml = read('.github/workflows/deploy.yml');

  test('a YAML syntax error or a duplicate key', () => {
    expect(() => workflow('bad.yml', 'on: [push\njobs: {}\n')).toThrow();
    expect(() => workflow('bad.yml', 'name: a\nname: b\n')).toThrow(/bad\.yml/);
  });

  test('CI that skips pull requests, runs on Node 20 only, or never compiles the Bicep', () => {
    expect(ciProblems(workflow('ci.yml', ciYaml.replace('  pull_request:\n', '')))).toEqual(['not run on pull_request']);
    expect(ciProblems(workflow('ci.yml', ciYaml.replace('node: [20, 22]', 'node: [20]')))).toEqual(['npm test does not run on Node 22']);
    expect(ciProblems(workflow('ci.yml', ciYaml.replace('az bicep build', 'az bicep version')))).toEqual(['no step compiles infra/main.bicep (az bicep build)']);
    expect(ciProblems(workflow('ci.yml', ciYaml.replace('poppler-utils qpdf', 'poppler-utils')))).toEqual(['poppler-utils and qpdf are not installed before npm test']);
  });

  test('a deployment with a client secret, without sku: flexconsumption, or without a smoke test', () => {
    const withSecret = deployYaml.replace('client-id: ${{ vars.AZURE_CLIENT_ID }}', 'creds: ${{ secrets.AZURE_CREDENTIALS }}');
    expect(deployProblems(workflow('deploy.yml', withSecret))).toEqual(['azure/login has no client-id', 'azure/login uses a client secret, not OpenID Connect']);
    expect(deployProblems(workflow('deploy.yml', deployYaml.replace('sku: flexconsumption', 'sku: consumption')))).toEqual([
      'Azure/functions-action is not told the app is on Flex Consumption (sku: flexconsumption)',
    ]);
    const noSmoke = deployYaml.replace(/curl[^\n]*/g, 'echo skipped');
    expect(deployProblems(workflow('deploy.yml', noSmoke))).toEqual(['no smoke test of GET /api/health', 'steps are not in the order login, infrastructure, app, smoke test']);
    expect(deployProblems(workflow('deploy.yml', deployYaml.replace('      id-token: write\n', '')))).toEqual([
      'the deploy job cannot request an OpenID Connect token (permissions: id-token: write)',
    ]);
    expect(deployProblems(workflow('deploy.yml', deployYaml.replace('    needs: test\n', '')))).toEqual(['the deploy job does not wait for the tests (a job that uses ci.yml)']);
  });

  test('an action that is not pinned', () => {
    expect(hygieneProblems(workflow('deploy.yml', deployYaml.replace('azure/login@v2', 'azure/login@main')))).toEqual(['azure/login@main is not pinned to a version or commit']);
  });
});

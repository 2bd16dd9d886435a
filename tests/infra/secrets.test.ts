/**
 * "Nothing in the repository holds a secret" (docs/deploy.md): every file that
 * deploys the service (infra/, azure.yaml, the workflows, docs/deploy.md) is scanned for secret and
 * key literals, and the workflows may not take credentials from GitHub secrets at all: Azure
 * access is OpenID Connect, and the service's secrets live in Key Vault.
 *
 * The scanner is run on samples of every kind of secret it looks for (built at run time, so this
 * file itself holds none), and on the look-alikes the deployment files legitimately contain.
 */
import { describe, expect, test } from '@jest/globals';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

interface Finding {
  file: string;
  line: number;
  kind: string;
}

/** Literal secrets and keys, by kind. */
const SECRET_PATTERNS: Array<{ kind: string; pattern: RegExp }> = [
  { kind: 'storage account key in a connection string', pattern: /AccountKey=[A-Za-z0-9+/=]{10,}/i },
  { kind: 'shared access key or signature', pattern: /SharedAccess(?:Key|Signature)=[^;\s"']{10,}/i },
  { kind: 'SAS signature in a URL', pattern: /[?&]sig=[A-Za-z0-9%+/=]{16,}/ },
  { kind: 'storage or other 512-bit key (88 base64 characters)', pattern: /(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{86}==(?![A-Za-z0-9+/=])/ },
  { kind: 'Application Insights instrumentation key', pattern: /InstrumentationKey=[0-9a-f]{8}-[0-9a-f]{4}/i },
  { kind: 'PEM private key', pattern: /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----/ },
  { kind: 'PKCS#12 or other DER structure in base64', pattern: /MII[A-Za-z0-9+/]{200,}/ },
  { kind: 'JSON Web Token', pattern: /eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/ },
  { kind: 'Entra ID client secret', pattern: /(?<![A-Za-z0-9_.~-])[A-Za-z0-9_.~-]{3}\dQ~[A-Za-z0-9_.~-]{31,34}(?![A-Za-z0-9_.~-])/ },
  { kind: 'GitHub token', pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})/ },
  { kind: 'Cloudflare Turnstile secret key', pattern: /\b0x4[A-Za-z0-9_-]{20,}/ },
  { kind: 'Cloudflare Turnstile test secret key', pattern: /\b[123]x0{20,}AA\b/ },
  { kind: 'App Service publish profile', pattern: /userPWD=|<publishData>/i },
  { kind: 'service principal secret for azure/login', pattern: /["']?clientSecret["']?\s*:/ },
];

/** Every secret pattern found in a text, with its line. */
function scan(file: string, text: string): Finding[] {
  const findings: Finding[] = [];
  text.split('\n').forEach((line, index) => {
    for (const { kind, pattern } of SECRET_PATTERNS) {
      if (pattern.test(line)) findings.push({ file, line: index + 1, kind });
    }
  });
  return findings;
}

/** The files that deploy the service, repository-relative. */
function deploymentFiles(): string[] {
  const files: string[] = [];
  const visit = (directory: string) => {
    if (!existsSync(path.join(repoRoot, directory))) return;
    for (const entry of readdirSync(path.join(repoRoot, directory), { withFileTypes: true })) {
      const relative = path.posix.join(directory, entry.name);
      if (entry.isDirectory()) visit(relative);
      else files.push(relative);
    }
  };
  visit('infra');
  visit('.github/workflows');
  for (const file of ['azure.yaml', 'docs/deploy.md']) if (existsSync(path.join(repoRoot, file))) files.push(file);
  return files;
}

const read = (file: string) => readFileSync(path.join(repoRoot, file), 'utf8');

describe('no secret or key in the deployment files', () => {
  const files = deploymentFiles();

  test('the deployment files are all there to scan', () => {
    expect(files).toEqual(
      expect.arrayContaining(['infra/main.bicep', 'infra/main.parameters.json', 'azure.yaml', '.github/workflows/ci.yml', '.github/workflows/deploy.yml', 'docs/deploy.md']),
    );
  });

  test('no file holds a secret or key literal', () => {
    expect(files.flatMap((file) => scan(file, read(file)))).toEqual([]);
  });

  test('the workflows take no credential from GitHub secrets (OpenID Connect only)', () => {
    const workflows = files.filter((file) => file.startsWith('.github/workflows/'));
    const offending = workflows.flatMap((file) =>
      read(file)
        .split('\n')
        .map((line, index) => ({ file, line: index + 1, text: line.trim() }))
        .filter(({ text }) => !text.startsWith('#') && /\bsecrets\.|\bsecrets:\s*inherit|\b(?:creds|publish-profile|client-secret)\s*:/.test(text)),
    );
    expect(offending).toEqual([]);
  });
});

describe('the secret scanner catches real secrets', () => {
  // Built at run time, so that this file holds no secret-shaped literal.
  const base64 = (length: number) => 'Zm9vYmFy'.repeat(Math.ceil(length / 8)).slice(0, length);
  const samples: Array<[string, string]> = [
    ['storage account key in a connection string', `DefaultEndpointsProtocol=https;AccountName=st1;Account${'Key'}=${base64(86)}==`],
    ['SAS signature in a URL', `https://st1.blob.core.windows.net/documents/a.pdf?sv=2024-11-04&sp=r&${'sig'}=${base64(40)}%3D`],
    ['storage or other 512-bit key (88 base64 characters)', `value: '${base64(86)}=='`],
    ['Application Insights instrumentation key', `Instrumentation${'Key'}=00000000-1111-2222-3333-444444444444;IngestionEndpoint=https://x`],
    ['PEM private key', `-----BEGIN ${'PRIVATE'} KEY-----`],
    ['PEM private key', `-----BEGIN RSA ${'PRIVATE'} KEY-----`],
    ['PKCS#12 or other DER structure in base64', `SEAL_P12_BASE64: 'MII${base64(400)}'`],
    ['JSON Web Token', `Authorization: Bearer ${'eyJ'}hbGciOiJIUzI1NiJ9.${'eyJ'}zdWIiOiIxMjM0NTYifQ.${base64(43)}`],
    ['Entra ID client secret', `AZURE_CLIENT_SECRET=ab${'c8Q'}~${'x'.repeat(34)}`],
    ['GitHub token', `token: ${'gh'}p_${'a1B2'.repeat(9)}`],
    ['Cloudflare Turnstile secret key', `TURNSTILE_SECRET_KEY: '${'0x4'}AAAAAAA${'Bc'.repeat(14)}'`],
    ['Cloudflare Turnstile test secret key', `TURNSTILE_SECRET_KEY=${'1x'}${'0'.repeat(31)}AA`],
    ['App Service publish profile', `<publishData><publishProfile user${'PWD'}="x" /></publishData>`],
    ['service principal secret for azure/login', `{"clientId": "x", "${'client'}Secret": "y"}`],
  ];

  test.each(samples)('finds a %s', (kind, line) => {
    expect(scan('sample', line).map((found) => found.kind)).toContain(kind);
  });

  test('leaves alone what the deployment files legitimately contain', () => {
    const lookAlikes = [
      "JWT_SECRET: '@Microsoft.KeyVault(VaultName=${keyVaultName};SecretName=${secretNames.jwtSecret})'",
      'client-id: ${{ vars.AZURE_CLIENT_ID }}',
      "storageBlobDataOwner: 'b7e6dc6d-f1e8-4753-8033-0f276bb0955b' // Storage Blob Data Owner",
      'az keyvault secret set --vault-name "$KV" --name jwt-secret --value "$(openssl rand -base64 48)" --output none',
      'base64 < seal.p12 | tr -d \'\\n\' > seal.p12.b64',
      'AzureWebJobsStorage__credential: \'managedidentity\'',
      "APPLICATIONINSIGHTS_AUTHENTICATION_STRING: 'ClientId=${identityClientId};Authorization=AAD'",
      `"value": "${'$'}{AZURE_PRINCIPAL_ID}"`,
    ];
    expect(lookAlikes.flatMap((line) => scan('look-alike', line))).toEqual([]);
  });
});

/**
 * The service's settings (docs/api.md#configuration), read from the environment (Function App settings in Azure,
 * `local.settings.json` / generated secrets on a laptop) and parsed once with zod.
 * A missing or invalid required setting stops start-up with one line naming it.
 */
import { z } from 'zod';
import { ConfigError } from './errors.js';
import { DEFAULT_SWEEP_SCHEDULE, SWEEP_SCHEDULE_FORMAT, SWEEP_SCHEDULE_PROBLEM } from './sweepSchedule.js';
import { checkSealingCertificateForLevel, SEAL_LEVELS, sealLevelOf, type SealLevel } from './sealLevel.js';

const DEFAULT_TURNSTILE_VERIFY_URL = 'https://challenges.cloudflare.com/turnstile/v0/siteverify';

const optionalText = z
  .string()
  .optional()
  .transform((value) => (value === undefined || value.trim() === '' ? undefined : value.trim()));

function integer(defaultValue: number, min: number, max: number) {
  return optionalText.pipe(
    z
      .string()
      .regex(/^-?\d+$/, 'must be a whole number')
      .transform(Number)
      .pipe(z.number().int().min(min).max(max))
      .optional()
      .transform((value) => value ?? defaultValue),
  );
}

/** `true`/`1` or `false`/`0`; `undefined` when unset or blank (for a setting with an alias, which then decides). */
const optionalBooleanFlag = optionalText.pipe(
  z
    .enum(['true', 'false', '1', '0'])
    .optional()
    .transform((value) => (value === undefined ? undefined : value === 'true' || value === '1')),
);

/** `true`/`1` or `false`/`0`; unset or blank: `false`. */
const booleanFlag = optionalBooleanFlag.transform((value) => value ?? false);

const httpUrl = z.url({ protocol: /^https?$/ });

/** `SMS_FROM`: an E.164 number, or an alphanumeric sender id as Communication Services takes it. */
const SMS_SENDER = /^(?:\+[1-9][0-9]{6,14}|(?=[A-Za-z0-9 ]*[A-Za-z])[A-Za-z0-9 ]{1,11})$/;

/**
 * The endpoint of a Communication Services connection string (`endpoint=...;accesskey=...`, keys in
 * any case), or `null` when it is not one: the endpoint must be `https:`, or `http:` on a loopback
 * address (the local fake, docs/api.md#sms), and the key base64.
 */
export function acsEndpointOf(connectionString: string): string | null {
  const parts = new Map<string, string>();
  for (const part of connectionString.split(';')) {
    const at = part.indexOf('=');
    if (at > 0) parts.set(part.slice(0, at).trim().toLowerCase(), part.slice(at + 1).trim());
  }
  const endpoint = parts.get('endpoint');
  const key = parts.get('accesskey');
  if (endpoint === undefined || key === undefined || !/^[A-Za-z0-9+/]+={0,2}$/.test(key)) return null;
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return null;
  }
  if (url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname))) return url.origin;
  return null;
}

/** Whether a URL's host name is a loopback address (`localhost`, 127.0.0.0/8, `[::1]`). */
export function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127(?:\.\d{1,3}){3}$/.test(hostname);
}

/** Environment variables and how each one is parsed. Keys are the setting names users see. */
const environmentSchema = z.object({
  STORAGE_CONNECTION_STRING: optionalText,
  STORAGE_ACCOUNT_NAME: optionalText.pipe(
    z.string().regex(/^[a-z0-9]{3,24}$/, 'must be 3 to 24 lower-case letters and digits').optional(),
  ),
  JWT_SECRET: optionalText.pipe(
    z
      .string({ error: 'is required (at least 32 bytes)' })
      .refine((value) => Buffer.byteLength(value, 'utf8') >= 32, 'must be at least 32 bytes'),
  ),
  JWT_ISSUER: optionalText.transform((value) => value ?? 'envelope-signing-service'),
  JWT_AUDIENCE: optionalText.transform((value) => value ?? 'envelope-api'),
  JWT_TTL_SECONDS: integer(3600, 60, 86_400),
  BCRYPT_COST: integer(12, 10, 15),
  TURNSTILE_SECRET_KEY: optionalText,
  TURNSTILE_VERIFY_URL: optionalText.pipe(httpUrl.optional()).transform((value) => value ?? DEFAULT_TURNSTILE_VERIFY_URL),
  TURNSTILE_REQUIRED: booleanFlag,
  TURNSTILE_SITE_KEY: optionalText,
  SEAL_P12_BASE64: optionalText.pipe(
    z.string({ error: 'is required (base64 of a PKCS#12 file)' }).regex(/^[A-Za-z0-9+/=\s]+$/, 'must be base64'),
  ),
  SEAL_P12_PASSPHRASE: z.string().optional().transform((value) => value ?? ''),
  TSA_URL: optionalText.pipe(httpUrl.optional()),
  // The public log (docs/api.md#public-log): the Ed25519 seed of its key, and how often it signs a head.
  LOG_SIGNING_KEY: optionalText.pipe(
    z
      .string()
      .regex(/^[A-Za-z0-9+/_-]{43}=?$/, 'must be 32 bytes in base64 or base64url (openssl rand -base64 32)')
      .transform((value) => new Uint8Array(Buffer.from(value.replace(/-/g, '+').replace(/_/g, '/'), 'base64')))
      .optional(),
  ),
  LOG_STH_INTERVAL_SECONDS: integer(3600, 1, 86_400),
  SEAL_LEVEL: optionalText.pipe(z.enum(SEAL_LEVELS, { error: `must be one of ${SEAL_LEVELS.join(', ')}` }).optional()),
  UPLOAD_URL_TTL_SECONDS: integer(900, 1, 86_400),
  MAX_DOCUMENT_BYTES: integer(26_214_400, 1024, 2_147_483_647),
  MAX_DOCUMENTS_PER_ENVELOPE: integer(10, 1, 100),
  MAX_ENVELOPE_BYTES: integer(104_857_600, 1024, 2_147_483_647),
  ALLOWED_ORIGINS: optionalText.transform((value) =>
    (value ?? '*')
      .split(',')
      .map((origin) => origin.trim())
      .filter((origin) => origin !== ''),
  ),
  PORT: integer(7071, 0, 65_535),
  PUBLIC_BASE_URL: optionalText.pipe(httpUrl.optional()),
  SMTP_URL: optionalText.pipe(z.url({ protocol: /^smtps?$/, error: 'must be an smtp:// or smtps:// URL' }).optional()),
  ACS_EMAIL_ENDPOINT: optionalText.pipe(z.url({ protocol: /^https$/, error: 'must be an https:// URL' }).optional()),
  EMAIL_FROM: optionalText.transform((value) => value ?? 'Envelope Signing <no-reply@localhost>'),
  // Text messages (docs/api.md#sms): Azure Communication Services' connection string and the sender.
  ACS_CONNECTION_STRING: optionalText.pipe(
    z
      .string()
      .transform((value, context) => {
        const endpoint = acsEndpointOf(value);
        if (endpoint === null) {
          context.addIssue({ code: 'custom', message: 'must be endpoint=https://<resource>.communication.azure.com/;accesskey=<base64 key> (http:// only for a loopback address)' });
          return z.NEVER;
        }
        return { connectionString: value, endpoint };
      })
      .optional(),
  ),
  SMS_FROM: optionalText.pipe(
    z
      .string()
      .regex(SMS_SENDER, 'must be a phone number in E.164 (+ and 7 to 15 digits) or an alphanumeric sender id (1 to 11 letters, digits and spaces, at least one letter)')
      .optional(),
  ),
  // Communication Services' events through Event Grid (docs/api.md#events-from-communication-services): the shared secret.
  ACS_EVENT_SECRET: optionalText.pipe(
    z
      .string()
      .regex(/^[A-Za-z0-9_-]{32,128}$/, 'must be 32 to 128 letters, digits, _ or - (it is written into the subscription\'s URL as ?code=)')
      .optional(),
  ),
  ENVELOPE_TTL_DAYS: integer(30, 1, 365),
  SWEEP_SCHEDULE: optionalText.transform((value) => value ?? DEFAULT_SWEEP_SCHEDULE).pipe(z.string().regex(SWEEP_SCHEDULE_FORMAT, SWEEP_SCHEDULE_PROBLEM)),
  WEBHOOK_RETRY_SECONDS: optionalText.transform((value) => value ?? '5,300,1800,7200,18000,36000,36000').pipe(
    z
      .string()
      .regex(/^\s*\d{1,6}\s*(,\s*\d{1,6}\s*){0,19}$/, 'must be a comma-separated list of 1 to 20 whole numbers of seconds')
      .transform((value) => value.split(',').map((part) => Number(part.trim()))),
  ),
  // Outbound network policy (docs/api.md#configuration): WEBHOOK_ALLOW_PRIVATE_NETWORKS is its older
  // name, still read; when both are set, OUTBOUND_ALLOW_PRIVATE_NETWORKS wins.
  OUTBOUND_ALLOW_PRIVATE_NETWORKS: optionalBooleanFlag,
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: optionalBooleanFlag,
  REQUIRE_EMAIL_VERIFICATION: optionalText.pipe(
    z
      .enum(['true', 'false', '1', '0'])
      .optional()
      .transform((value) => value === undefined || value === 'true' || value === '1'),
  ),
  REMINDER_DAY_SECONDS: integer(86_400, 1, 86_400),
  // Retention (docs/api.md#retention): the length of a day of retentionDays, lowered only by tests
  // (refused unless NODE_ENV=test or the local host runs, loadConfig).
  RETENTION_DAY_SECONDS: optionalText.pipe(z.string().regex(/^\d+$/, 'must be a whole number').transform(Number).pipe(z.number().int().min(1).max(86_400)).optional()),
  // The sealed container's immutability period (docs/deploy.md#immutable-sealed-pdfs), the Bicep's sealedRetentionDays.
  SEALED_RETENTION_DAYS: integer(3650, 1, 146_000),
  // Embedded signing (docs/api.md "Embedded signing").
  EMBED_TOKEN_TTL_SECONDS: integer(900, 60, 86_400),
  // Signer authentication (docs/api.md "Signer authentication"): how long a verified code holds.
  SIGNING_AUTH_TTL_SECONDS: integer(3600, 1, 86_400),
  // Rate limits and quotas (docs/api.md "Rate limits and quotas").
  RATE_LIMIT_PER_MINUTE: integer(600, 1, 1_000_000_000),
  AUTH_RATE_LIMIT_PER_MINUTE: integer(20, 1, 1_000_000_000),
  TRUST_PROXY: optionalText.pipe(
    z
      .string()
      .regex(/^(?:true|false|\d{1,2})$/, 'must be the number of proxies in front of the service (0 to 99), true (1) or false (0)')
      .transform((value) => (value === 'true' ? 1 : value === 'false' ? 0 : Number(value)))
      .optional()
      .transform((value) => value ?? 0),
  ),
  MAX_CONCURRENT_PASSWORD_HASHES: integer(4, 1, 64),
  EMAIL_DAILY_QUOTA: integer(1000, 1, 1_000_000_000),
  SMS_DAILY_QUOTA: integer(100, 1, 1_000_000_000),
  // Bulk send (docs/api.md#bulk-send): the most rows one job takes.
  BULK_MAX_ROWS: integer(1000, 1, 100_000),
  MAIL_CATCHER_SMTP_PORT: integer(1025, 0, 65_535),
  MAIL_CATCHER_WEB_PORT: integer(1080, 0, 65_535),
  SMS_CATCHER_PORT: integer(1090, 0, 65_535),
  /** Set by App Service on every Function App: tells Azure from a laptop. */
  WEBSITE_SITE_NAME: optionalText,
});

export interface Config {
  storage:
    | { kind: 'connectionString'; connectionString: string }
    | { kind: 'managedIdentity'; accountName: string };
  jwt: {
    /** HS256 key bytes (at least 32). */
    secret: Uint8Array;
    issuer: string;
    audience: string;
    /** Token lifetime, seconds. */
    ttlSeconds: number;
  };
  bcryptCost: number;
  /** `siteKey`: the public key the public link page's widget shows (docs/api.md#public-links), unset: no widget. */
  turnstile: { secretKey: string | undefined; verifyUrl: string; required: boolean; siteKey: string | undefined };
  seal: { p12: Uint8Array; passphrase: string };
  /**
   * Whether an owner must verify its e-mail address (the link Register e-mails) before it may send or
   * complete envelopes (`REQUIRE_EMAIL_VERIFICATION`, default `true`; `npm start` sets `false` unless told).
   */
  requireEmailVerification: boolean;
  /** The public log (docs/api.md#public-log). */
  log: {
    /**
     * The 32-byte Ed25519 seed of the log key (`LOG_SIGNING_KEY`); required in Azure, generated into
     * `.local/secrets.json` by `npm start`. Unset elsewhere: the log appends but makes no heads.
     */
    signingKey: Uint8Array | undefined;
    /** `LOG_STH_INTERVAL_SECONDS`: the least time between two signed tree heads, and the most before a completion is covered by one (1 to 86400, default 3600). */
    headIntervalSeconds: number;
  };
  /** RFC 3161 timestamp authority; unset means PAdES B-B seals without a timestamp. */
  tsaUrl: string | undefined;
  /** PAdES baseline level of every seal (`SEAL_LEVEL`; `sealLevel.ts`): B-LTA with a timestamp authority, else B-B, by default. */
  sealLevel: SealLevel;
  /** Lifetime of an upload SAS, seconds. */
  uploadUrlTtlSeconds: number;
  /** Largest document accepted, bytes. */
  maxDocumentBytes: number;
  /** Most documents one envelope or template holds (docs/api.md#several-documents). */
  maxDocumentsPerEnvelope: number;
  /** Largest sum of an envelope's (or template's) documents, bytes (docs/api.md#several-documents). */
  maxEnvelopeBytes: number;
  /** CORS origins for the API and the Blob service; `['*']` allows any. */
  allowedOrigins: string[];
  /** Port of the local host (not used in Azure). */
  port: number;
  /** Origin that links in e-mails point at, without a trailing slash (`<publicBaseUrl>/api/sign#<token>`). */
  publicBaseUrl: string;
  email: {
    /** nodemailer SMTP URL; wins over `acsEndpoint`. */
    smtpUrl: string | undefined;
    /** Azure Communication Services e-mail endpoint, used with the managed identity when `smtpUrl` is unset. */
    acsEndpoint: string | undefined;
    /** Sender of every e-mail (RFC 5322 mailbox). */
    from: string;
  };
  /** Text messages (docs/api.md#sms); without a connection string every text fails (and is retried) until one is set. */
  sms: {
    /** Communication Services' connection string (`endpoint=...;accesskey=...`), as set. */
    connectionString: string | undefined;
    /** Its endpoint's origin. */
    endpoint: string | undefined;
    /** The sender: an E.164 number or an alphanumeric sender id. */
    from: string | undefined;
  };
  /** Default lifetime of a sent envelope when `expiresAt` is unset, days (1 to 365). */
  envelopeTtlDays: number;
  /** NCRONTAB schedule of the sweeper: six fields, seconds first. */
  sweepSchedule: string;
  /** Delays between webhook delivery attempts, seconds; after the last, the delivery is `failed`. */
  webhookRetrySeconds: number[];
  /**
   * `OUTBOUND_ALLOW_PRIVATE_NETWORKS` (alias `WEBHOOK_ALLOW_PRIVATE_NETWORKS`; the first wins when both
   * are set): allow `http:` and loopback/private addresses wherever the service reaches out or lets a
   * page go: webhook targets, the seal's OCSP, CRL and issuer-certificate sources, and embedded views'
   * `http://localhost` origins and return URLs (development only).
   */
  outboundAllowPrivateNetworks: boolean;
  /** Length of a "day" for `remindEveryDays`, seconds (86400 unless a test lowers it). */
  reminderDaySeconds: number;
  /**
   * Length of a "day" of an organisation's `retentionDays`, seconds (`RETENTION_DAY_SECONDS`, 86400;
   * another value only with `NODE_ENV=test` or on the local host: docs/api.md#retention).
   */
  retentionDaySeconds: number;
  /**
   * Days a sealed PDF stays immutable after it is written (`SEALED_RETENTION_DAYS`, default 3650: the
   * Bicep's policy on container `sealed`), for the end date of a refused deletion when storage does
   * not give one (docs/api.md#sealed-pdfs-are-immutable).
   */
  sealedRetentionDays: number;
  /** Lifetime of an embedded signing view's token, seconds (docs/api.md#embedded-signing; 60 to 86400, default 900). */
  embedTokenTtlSeconds: number;
  /** How long a recipient's access code or one-time code, once verified, lets its signing link through, seconds. */
  signingAuthTtlSeconds: number;
  /** Local host only: the mail catcher's SMTP and web ports (0 picks free ones). */
  mailCatcher: { smtpPort: number; webPort: number };
  /** Local host only: the port of the fake of Communication Services' SMS API (0 picks a free one; docs/api.md#sms). */
  /** Most rows of one bulk job (`BULK_MAX_ROWS`, default 1000; docs/api.md#bulk-send). */
  bulkMaxRows: number;
  smsCatcherPort: number;
  /**
   * The secret Event Grid sends with Communication Services' events, as `aeg-sas-key` or `?code=`
   * (docs/api.md#events-from-communication-services); unset: every event is refused.
   */
  acsEventSecret: string | undefined;
  limits: {
    /** Requests per owner and minute on the owner endpoints, per instance. */
    ownerRequestsPerMinute: number;
    /** Register and Login requests per client address and minute, per instance. */
    authRequestsPerMinute: number;
    /** Proxies in front of the service whose `X-Forwarded-For` entries are trusted (0: none). */
    trustProxy: number;
    /** bcrypt hashes and comparisons running at once per instance; four times as many may wait. */
    maxConcurrentPasswordHashes: number;
    /** E-mails an owner's sends and resends may queue per UTC day, across all instances. */
    emailDailyQuota: number;
    /** Text messages an organisation's members' envelopes may queue per UTC day, across all instances. */
    smsDailyQuota: number;
  };
}

/** Set by the local host (`src/local`) before it reads the settings: what a test-only setting needs. */
let localHostRuns = false;

/**
 * Marks this process as the local host (`npm start`, the tests' services): settings that shorten time
 * for tests (`RETENTION_DAY_SECONDS`) are accepted. Only `src/local` calls it; the Functions host
 * never loads that folder.
 */
export function markLocalHost(): void {
  localHostRuns = true;
}

/** Default length of a retention day, seconds (docs/api.md#retention). */
export const RETENTION_DAY_SECONDS = 86_400;

/**
 * Parses the settings from `env`.
 * @param options `localHost`: whether the local host runs (default: whether it marked this process, {@link markLocalHost})
 * @throws ConfigError naming the first setting that is missing or invalid; `RETENTION_DAY_SECONDS` set
 *   to anything but 86400 outside tests (`NODE_ENV=test`) and the local host: a shorter day would purge
 *   envelopes early (docs/api.md#retention)
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, options: { localHost?: boolean } = {}): Config {
  assertKeyVaultReferencesResolved(env);
  const parsed = environmentSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const setting = String(issue?.path[0] ?? 'environment');
    throw new ConfigError(setting, issue?.message ?? 'invalid');
  }
  const values = parsed.data;
  const sealLevel = sealLevelOf(values.SEAL_LEVEL, values.TSA_URL);
  const seal = { p12: Buffer.from(values.SEAL_P12_BASE64, 'base64'), passphrase: values.SEAL_P12_PASSPHRASE };
  checkSealingCertificateForLevel(sealLevel, seal);
  const retentionDaySeconds = values.RETENTION_DAY_SECONDS ?? RETENTION_DAY_SECONDS;
  if (retentionDaySeconds !== RETENTION_DAY_SECONDS && env.NODE_ENV !== 'test' && !(options.localHost ?? localHostRuns)) {
    throw new ConfigError('RETENTION_DAY_SECONDS', `is for tests only: set it only with NODE_ENV=test or on the local host (${RETENTION_DAY_SECONDS} in production)`);
  }
  return {
    storage: loadStorageSettings(env),
    jwt: {
      secret: new TextEncoder().encode(values.JWT_SECRET),
      issuer: values.JWT_ISSUER,
      audience: values.JWT_AUDIENCE,
      ttlSeconds: values.JWT_TTL_SECONDS,
    },
    bcryptCost: values.BCRYPT_COST,
    turnstile: {
      secretKey: values.TURNSTILE_SECRET_KEY,
      verifyUrl: values.TURNSTILE_VERIFY_URL,
      required: values.TURNSTILE_REQUIRED,
      siteKey: values.TURNSTILE_SITE_KEY,
    },
    seal,
    log: { signingKey: logSigningKey(values.LOG_SIGNING_KEY, values.WEBSITE_SITE_NAME), headIntervalSeconds: values.LOG_STH_INTERVAL_SECONDS },
    tsaUrl: values.TSA_URL,
    sealLevel,
    requireEmailVerification: values.REQUIRE_EMAIL_VERIFICATION,
    uploadUrlTtlSeconds: values.UPLOAD_URL_TTL_SECONDS,
    maxDocumentBytes: values.MAX_DOCUMENT_BYTES,
    maxDocumentsPerEnvelope: values.MAX_DOCUMENTS_PER_ENVELOPE,
    maxEnvelopeBytes: values.MAX_ENVELOPE_BYTES,
    allowedOrigins: values.ALLOWED_ORIGINS,
    port: values.PORT,
    publicBaseUrl: publicBaseUrl(values.PUBLIC_BASE_URL, values.WEBSITE_SITE_NAME, values.PORT),
    email: { smtpUrl: values.SMTP_URL, acsEndpoint: values.ACS_EMAIL_ENDPOINT, from: values.EMAIL_FROM },
    sms: smsSettings(values.ACS_CONNECTION_STRING, values.SMS_FROM),
    envelopeTtlDays: values.ENVELOPE_TTL_DAYS,
    sweepSchedule: values.SWEEP_SCHEDULE,
    webhookRetrySeconds: values.WEBHOOK_RETRY_SECONDS,
    outboundAllowPrivateNetworks: values.OUTBOUND_ALLOW_PRIVATE_NETWORKS ?? values.WEBHOOK_ALLOW_PRIVATE_NETWORKS ?? false,
    reminderDaySeconds: values.REMINDER_DAY_SECONDS,
    retentionDaySeconds,
    sealedRetentionDays: values.SEALED_RETENTION_DAYS,
    embedTokenTtlSeconds: values.EMBED_TOKEN_TTL_SECONDS,
    signingAuthTtlSeconds: values.SIGNING_AUTH_TTL_SECONDS,
    mailCatcher: { smtpPort: values.MAIL_CATCHER_SMTP_PORT, webPort: values.MAIL_CATCHER_WEB_PORT },
    smsCatcherPort: values.SMS_CATCHER_PORT,
    acsEventSecret: values.ACS_EVENT_SECRET,
    bulkMaxRows: values.BULK_MAX_ROWS,
    limits: {
      ownerRequestsPerMinute: values.RATE_LIMIT_PER_MINUTE,
      authRequestsPerMinute: values.AUTH_RATE_LIMIT_PER_MINUTE,
      trustProxy: values.TRUST_PROXY,
      maxConcurrentPasswordHashes: values.MAX_CONCURRENT_PASSWORD_HASHES,
      emailDailyQuota: values.EMAIL_DAILY_QUOTA,
      smsDailyQuota: values.SMS_DAILY_QUOTA,
    },
  };
}

/**
 * `PUBLIC_BASE_URL` without a trailing slash; on a laptop it defaults to the local host's address.
 * @throws ConfigError in Azure (App Service sets WEBSITE_SITE_NAME) when it is unset: links in
 *   e-mails must point at the public address
 */
function publicBaseUrl(value: string | undefined, siteName: string | undefined, port: number): string {
  if (value !== undefined) return value.replace(/\/+$/, '');
  if (siteName !== undefined) throw new ConfigError('PUBLIC_BASE_URL', 'is required in Azure (the origin that links in e-mails point at)');
  return `http://127.0.0.1:${port}`;
}

/**
 * The log key's seed (docs/api.md#public-log).
 * @throws ConfigError in Azure (App Service sets WEBSITE_SITE_NAME) when it is unset: every deployment signs its log's heads
 */
function logSigningKey(value: Uint8Array | undefined, siteName: string | undefined): Uint8Array | undefined {
  if (value === undefined && siteName !== undefined) throw new ConfigError('LOG_SIGNING_KEY', 'is required in Azure (32 random bytes in base64: the public log\'s Ed25519 key, kept in Key Vault)');
  return value;
}

/** @throws ConfigError naming SMS_FROM when a connection string is set without a sender (docs/api.md#sms) */
function smsSettings(acs: { connectionString: string; endpoint: string } | undefined, from: string | undefined): Config['sms'] {
  if (acs !== undefined && from === undefined) throw new ConfigError('SMS_FROM', 'is required with ACS_CONNECTION_STRING (an E.164 number or an alphanumeric sender id)');
  return { connectionString: acs?.connectionString, endpoint: acs?.endpoint, from };
}

/**
 * App Service passes an unresolved Key Vault reference through as its literal text
 * (`@Microsoft.KeyVault(...)`), which would otherwise pass as a 32-byte JWT key.
 * @throws ConfigError naming the first setting that still holds a reference
 */
function assertKeyVaultReferencesResolved(env: NodeJS.ProcessEnv): void {
  for (const name of Object.keys(environmentSchema.shape)) {
    if (env[name]?.trim().startsWith('@Microsoft.KeyVault(')) {
      throw new ConfigError(name, 'is an unresolved Key Vault reference; check the identity\'s access to the vault');
    }
  }
}

const storageSchema = environmentSchema.pick({ STORAGE_CONNECTION_STRING: true, STORAGE_ACCOUNT_NAME: true });

/**
 * Only the storage settings, for commands that need nothing else (`npm run invite`).
 * A connection string wins over an account name; neither means `UseDevelopmentStorage=true`.
 * @throws ConfigError naming the invalid setting
 */
export function loadStorageSettings(env: NodeJS.ProcessEnv = process.env): Config['storage'] {
  const parsed = storageSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(String(issue?.path[0] ?? 'environment'), issue?.message ?? 'invalid');
  }
  const values = parsed.data;
  return values.STORAGE_CONNECTION_STRING !== undefined || values.STORAGE_ACCOUNT_NAME === undefined
    ? { kind: 'connectionString', connectionString: values.STORAGE_CONNECTION_STRING ?? 'UseDevelopmentStorage=true' }
    : { kind: 'managedIdentity', accountName: values.STORAGE_ACCOUNT_NAME };
}

let cached: Config | undefined;

/** The settings of this process, parsed on first use and kept. @throws ConfigError */
export function getConfig(): Config {
  cached ??= loadConfig();
  return cached;
}

/** Forgets the parsed settings so the next {@link getConfig} reads the environment again (tests, local host start-up). */
export function resetConfig(): void {
  cached = undefined;
}

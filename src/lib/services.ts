/**
 * The repositories and settings a request needs, built once per process from {@link getConfig} and
 * {@link getStorage}.
 */
import { getConfig, type Config } from './config.js';
import { getStorage, type Storage } from './storage/clients.js';
import { EnvelopeRepository } from './storage/envelopeRepository.js';
import { InvitationRepository } from './storage/invitationRepository.js';
import { SealRepository } from './storage/sealRepository.js';
import { UserRepository } from './storage/userRepository.js';
import { LoginThrottle } from './auth/loginThrottle.js';
import { SigningLinkRepository } from './envelopes/signingLinks.js';
import { OutboxStore } from './notifications/outboxRepository.js';
import { dueIndexOf, type DueIndex } from './storage/dueIndex.js';
import { WebhookRepository } from './notifications/webhooks/webhookRepository.js';
import { WebhookDeliveryRepository } from './storage/webhookDeliveryRepository.js';
import { ApiKeyRepository } from './storage/apiKeyRepository.js';
import { IdempotencyKeyRepository } from './storage/idempotencyKeyRepository.js';
import { TemplateRepository } from './storage/templateRepository.js';
import { OrganizationIndex } from './storage/organizationIndex.js';
import { OrganizationRepository } from './storage/organizationRepository.js';
import { PublicLogStore } from './transparency/logStore.js';
import { RetentionRepository } from './storage/retentionRepository.js';
import { SmsNumberRepository } from './envelopes/smsNumbers.js';
import { BulkJobRepository } from './storage/bulkJobRepository.js';
import { PublicLinkRepository } from './storage/publicLinkRepository.js';

export interface Services {
  config: Config;
  storage: Storage;
  users: UserRepository;
  invitations: InvitationRepository;
  envelopes: EnvelopeRepository;
  seals: SealRepository;
  loginThrottle: LoginThrottle;
  signingLinks: SigningLinkRepository;
  dueIndex: DueIndex;
  outbox: OutboxStore;
  webhooks: WebhookRepository;
  webhookDeliveries: WebhookDeliveryRepository;
  apiKeys: ApiKeyRepository;
  idempotencyKeys: IdempotencyKeyRepository;
  templates: TemplateRepository;
  organizations: OrganizationRepository;
  /** Which member owns each envelope of an organisation (docs/api.md#what-members-share). */
  organizationIndex: OrganizationIndex;
  /** Which member owns each template of an organisation (docs/architecture.md#the-organizations-envelope-index). */
  templateIndex: OrganizationIndex;
  /** The public append-only log's rows (docs/api.md#public-log). */
  publicLog: PublicLogStore;
  /** Retention periods, the index of finished envelopes and the purge log (docs/api.md#retention). */
  retention: RetentionRepository;
  /** Phone numbers' opt-outs and accepted texts (docs/api.md#opting-out-of-text-messages). */
  smsNumbers: SmsNumberRepository;
  /** Bulk jobs and their rows (docs/api.md#bulk-send). */
  bulkJobs: BulkJobRepository;
  /** Public links: the template behind each, uses, codes (docs/api.md#public-links). */
  publicLinks: PublicLinkRepository;
}

let cached: Services | undefined;
let cachedBackground: Services | undefined;

/**
 * The services of this process for HTTP requests (storage calls retried briefly, `clients.ts`
 * `StorageRole`). @throws ConfigError when a setting is missing or invalid
 */
export function getServices(): Services {
  if (cached === undefined) {
    cached = createServices(getConfig(), getStorage());
    if (cached.config.turnstile.secretKey === undefined) {
      console.warn('TURNSTILE_SECRET_KEY is not set: captcha tokens sent to Register and Login are ignored.');
    }
  }
  return cached;
}

/**
 * The services of this process for queue and timer functions: the same repositories over storage
 * clients that retry longer (`clients.ts` `StorageRole`). @throws ConfigError
 */
export function getBackgroundServices(): Services {
  cachedBackground ??= createServices(getConfig(), getStorage('background'));
  return cachedBackground;
}

/** Forgets the services (tests that change settings). */
export function resetServices(): void {
  cached = undefined;
  cachedBackground = undefined;
}

export function createServices(config: Config, storage: Storage): Services {
  const dueIndex = dueIndexOf(storage);
  return {
    config,
    storage,
    users: new UserRepository(storage.tables.users),
    invitations: new InvitationRepository(storage.tables.invitations),
    envelopes: new EnvelopeRepository(storage.tables.envelopes),
    seals: new SealRepository(storage.tables.seals),
    loginThrottle: new LoginThrottle(storage.tables.loginAttempts),
    signingLinks: new SigningLinkRepository(storage.tables.signingLinks),
    dueIndex,
    outbox: new OutboxStore(storage.tables.envelopes, storage.queues, dueIndex),
    webhooks: new WebhookRepository(storage.tables.webhooks),
    webhookDeliveries: new WebhookDeliveryRepository(storage.tables.webhookDeliveries),
    apiKeys: new ApiKeyRepository(storage.tables.apiKeys),
    bulkJobs: new BulkJobRepository(storage.tables.bulkJobs),
    publicLinks: new PublicLinkRepository(storage.tables.publicLinks),
    idempotencyKeys: new IdempotencyKeyRepository(storage.tables.envelopes, dueIndex),
    templates: new TemplateRepository(storage.tables.templates),
    organizations: new OrganizationRepository(storage.tables.organizations),
    organizationIndex: new OrganizationIndex(storage.tables.organizations, 'envelope'),
    templateIndex: new OrganizationIndex(storage.tables.organizations, 'template'),
    publicLog: new PublicLogStore(storage.tables.publicLog, storage.tables.publicLogState),
    retention: new RetentionRepository(storage.tables.retention),
    smsNumbers: new SmsNumberRepository(storage.tables.smsNumbers),
  };
}

/**
 * The SSRF rules of webhooks (docs/api.md#webhooks) with real DNS: host names resolved through a DNS server
 * on loopback that this test controls. Each refused range is refused when a name resolves to it (A or
 * AAAA), at creation and at every attempt; a name that rebinds to a private address after creation
 * is refused at delivery, and nothing connects to it.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { QueueClient } from '@azure/storage-queue';
import { isAppError } from '../../src/lib/errors.js';
import { uuidv7 } from '../../src/lib/ids.js';
import { createWebhook } from '../../src/lib/notifications/webhooks/create.js';
import { deliverAttempt, enqueueDelivery } from '../../src/lib/notifications/webhooks/deliver.js';
import { listDeliveries } from '../../src/lib/notifications/webhooks/list.js';
import type { DeliveryRecord } from '../../src/lib/notifications/webhooks/model.js';
import { dnsServerResolver, resolveTarget, systemResolver, TargetRefusedError, type HostResolver } from '../../src/lib/outbound/target.js';
import { getServices, type Services } from '../../src/lib/services.js';
import { ensureStorage } from '../../src/lib/storage/setup.js';
import { reloadSettings } from '../support/contract.js';
import { startFakeDns, type FakeDns } from '../support/dnsServer.js';
import { startReceiver, type Receiver } from '../support/webhookReceiver.js';

let dns: FakeDns;
let resolve: HostResolver;
let strict: Services;
let permissive: Services;
let queue: QueueClient;

beforeAll(async () => {
  dns = await startFakeDns();
  resolve = dnsServerResolver([dns.server]);
  reloadSettings();
  const base = getServices();
  await ensureStorage(base.storage, { allowedOrigins: ['*'] });
  queue = base.storage.queueService.getQueueClient(`webhook-deliveries-${randomBytes(6).toString('hex')}`);
  await queue.create();
  const storage = { ...base.storage, queues: { ...base.storage.queues, webhookDeliveries: queue } };
  strict = { ...base, storage, config: { ...base.config, outboundAllowPrivateNetworks: false, webhookRetrySeconds: [1] } };
  permissive = { ...strict, config: { ...strict.config, outboundAllowPrivateNetworks: true } };
});

afterAll(async () => {
  await dns.close();
  await queue.delete();
});

const PUBLIC_V4 = '93.184.215.14';
const PUBLIC_V6 = '2606:2800:21f:cb07:6820:80da:af6b:8b2c';

/** [record type, address, words of the refusal]: one host name per row, resolving to that address only. */
const refusedRecords: ['A' | 'AAAA', string, string][] = [
  ['A', '127.0.0.1', 'loopback'],
  ['A', '10.20.30.40', 'private (RFC 1918)'],
  ['A', '172.20.0.5', 'private (RFC 1918)'],
  ['A', '192.168.178.1', 'private (RFC 1918)'],
  ['A', '169.254.10.10', 'link-local'],
  ['A', '169.254.169.254', 'instance metadata'],
  ['A', '168.63.129.16', 'Azure platform'],
  ['A', '100.64.1.1', 'CGNAT'],
  ['A', '0.0.0.0', 'unspecified'],
  ['A', '224.0.0.251', 'multicast'],
  ['A', '255.255.255.255', 'broadcast'],
  ['A', '198.51.100.7', 'reserved'],
  ['AAAA', '::1', 'loopback'],
  ['AAAA', '::', 'unspecified'],
  ['AAAA', 'fd00:ec2::254', 'instance metadata'],
  ['AAAA', 'fc00::5', 'unique-local'],
  ['AAAA', 'fe80::1', 'link-local'],
  ['AAAA', 'ff02::fb', 'multicast'],
  ['AAAA', '::ffff:127.0.0.1', 'loopback'],
  ['AAAA', '::ffff:192.168.0.10', 'private (RFC 1918)'],
  ['AAAA', '64:ff9b::a9fe:a9fe', 'instance metadata'],
  ['AAAA', '64:ff9b::a00:1', 'private (RFC 1918)'],
  ['AAAA', '2002:a00:1::1', 'private (RFC 1918)'],
];

describe('resolving a webhook host', () => {
  test.each(refusedRecords)('a name whose %s record is %s is refused (%s)', async (type, address, words) => {
    const name = `r${randomBytes(4).toString('hex')}.test`;
    dns.records.set(name, { [type]: [address] });
    const refusal = await resolveTarget(name, { allowPrivate: false, resolve }).then(
      () => null,
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(TargetRefusedError);
    expect((refusal as TargetRefusedError).reason).toBe('address');
    expect((refusal as TargetRefusedError).message).toContain(`the host ${name} resolves to`);
    expect((refusal as TargetRefusedError).message).toContain(words);
  });

  test('a name with public A and AAAA records is accepted, with every address', async () => {
    dns.records.set('public.test', { A: [PUBLIC_V4], AAAA: [PUBLIC_V6] });
    const addresses = await resolveTarget('public.test', { allowPrivate: false, resolve });
    expect(addresses).toEqual(expect.arrayContaining([{ address: PUBLIC_V4, family: 4 }, { address: PUBLIC_V6, family: 6 }]));
    expect(addresses).toHaveLength(2);
  });

  test('one private address among public ones refuses the name', async () => {
    dns.records.set('mixed.test', { A: [PUBLIC_V4, '10.0.0.8'], AAAA: [PUBLIC_V6] });
    await expect(resolveTarget('mixed.test', { allowPrivate: false, resolve })).rejects.toThrow('resolves to 10.0.0.8, a private (RFC 1918) address');
    dns.records.set('mixed6.test', { A: [PUBLIC_V4], AAAA: ['fd12::1'] });
    await expect(resolveTarget('mixed6.test', { allowPrivate: false, resolve })).rejects.toThrow('resolves to fd12::1, a unique-local (private) IPv6 address');
  });

  test('a name that does not exist is unresolvable', async () => {
    await expect(resolveTarget('nowhere.test', { allowPrivate: false, resolve })).rejects.toMatchObject({ reason: 'unresolvable', message: 'the host nowhere.test could not be resolved (ENOTFOUND)' });
    dns.records.set('empty.test', {});
    await expect(resolveTarget('empty.test', { allowPrivate: false, resolve })).rejects.toMatchObject({ reason: 'unresolvable' });
  });

  test('a resolver that does not answer in time makes the host unresolvable', async () => {
    const silent: HostResolver = () => new Promise(() => {});
    const started = Date.now();
    await expect(resolveTarget('slow.test', { allowPrivate: false, resolve: silent, resolveTimeoutMs: 300 })).rejects.toMatchObject({
      reason: 'unresolvable',
      message: 'the host slow.test could not be resolved (ETIMEOUT)',
    });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  test('the system resolver refuses localhost', async () => {
    await expect(resolveTarget('localhost', { allowPrivate: false, resolve: systemResolver })).rejects.toThrow(/the host localhost resolves to (127\.0\.0\.1|::1), a loopback address/);
    expect(await resolveTarget('localhost', { allowPrivate: true, resolve: systemResolver })).not.toHaveLength(0);
  });

  test('with private networks allowed, private and loopback pass but metadata addresses never do', async () => {
    dns.records.set('lan.test', { A: ['192.168.1.20'], AAAA: ['::1'] });
    expect(await resolveTarget('lan.test', { allowPrivate: true, resolve })).toHaveLength(2);
    dns.records.set('metadata.test', { A: ['169.254.169.254'] });
    await expect(resolveTarget('metadata.test', { allowPrivate: true, resolve })).rejects.toThrow('the cloud instance metadata address');
  });
});

describe('creating a webhook', () => {
  async function refusal(url: string, services: Services = strict): Promise<{ status: number; type: string; detail: string; errors: unknown } | null> {
    try {
      await createWebhook({ services, ownerId: uuidv7(), request: { url }, resolve });
      return null;
    } catch (error) {
      if (!isAppError(error)) throw error;
      return { status: error.status, type: error.type, detail: error.detail, errors: error.errors };
    }
  }

  test('refuses a host that resolves to a private address, naming it', async () => {
    dns.records.set('intranet.test', { A: ['10.1.2.3'] });
    expect(await refusal('https://intranet.test/hook')).toEqual({
      status: 400,
      type: 'urn:problem:invalid-webhook-url',
      detail: 'The webhook url the host intranet.test resolves to 10.1.2.3, a private (RFC 1918) address, which webhooks may not reach.',
      errors: [{ path: 'url', message: 'the host intranet.test resolves to 10.1.2.3, a private (RFC 1918) address, which webhooks may not reach' }],
    });
  });

  test('refuses private IP literals, http:, credentials, unresolvable hosts and non-URLs', async () => {
    expect((await refusal('https://[::1]:8443/'))?.detail).toBe('The webhook url ::1 is a loopback address, which webhooks may not reach.');
    expect((await refusal('https://169.254.169.254/latest/meta-data/'))?.detail).toContain('the cloud instance metadata address');
    expect((await refusal('https://2130706433/'))?.detail).toBe('The webhook url 127.0.0.1 is a loopback address, which webhooks may not reach.');
    expect((await refusal(`http://${PUBLIC_V4}/hook`))?.detail).toBe('The webhook url must be an https: URL.');
    expect((await refusal(`https://user:secret@${PUBLIC_V4}/`))?.detail).toBe('The webhook url must not contain a user name or password.');
    expect((await refusal('https://missing.test/'))?.detail).toBe('The webhook url the host missing.test could not be resolved (ENOTFOUND).');
    expect((await refusal('hooks.example.com/path'))?.detail).toBe('The webhook url is not an absolute URL.');
  });

  test('accepts a public host, and with private networks allowed, http: and loopback', async () => {
    dns.records.set('hooks.public.test', { A: [PUBLIC_V4] });
    expect(await refusal('https://hooks.public.test/envelopes')).toBeNull();
    expect(await refusal(`https://[${PUBLIC_V6}]/hook`)).toBeNull();
    expect(await refusal('http://127.0.0.1:9/hook', permissive)).toBeNull();
  });
});

describe('at every attempt', () => {
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await startReceiver({ kind: 'status', status: 200 });
  });
  afterAll(async () => {
    await receiver.close();
  });

  /**
   * A webhook at `url` (created under `creator`'s rules) with one pending delivery; `between` runs
   * after the creation; returns what the first attempt (under `sender`'s rules) logged.
   */
  async function firstAttempt(url: string, creator: Services, sender: Services, between: () => void = () => {}) {
    const ownerId = uuidv7();
    const created = await createWebhook({ services: creator, ownerId, request: { url }, resolve });
    between();
    const eventId = randomUUID();
    const record: DeliveryRecord = {
      webhookId: created.id,
      ownerId,
      event: { id: eventId, type: 'envelope.sent', createdAt: new Date().toISOString(), data: { envelopeId: uuidv7(), status: 'sent' } },
      createdAt: new Date().toISOString(),
      autoAttempt: 0,
      recordedAutoAttempt: 0,
      attemptCount: 0,
      autoAttemptNumber: 0,
      claimedAt: null,
      status: 'pending',
      recentRedeliveries: [],
    };
    expect(await sender.webhookDeliveries.create(record)).toBeNull();
    const outcome = await deliverAttempt(sender, { kind: 'attempt', ownerId, webhookId: created.id, eventId, attempt: 1, notBefore: record.createdAt }, { resolve, timeoutMs: 2000 });
    expect(outcome.kind).toBe('attempted');
    return (await listDeliveries({ services: sender, ownerId, webhookId: created.id }))[0]!;
  }

  test('a name that rebinds to loopback after creation is refused, and nothing connects to it', async () => {
    const name = `rebind${randomBytes(3).toString('hex')}.test`;
    dns.records.set(name, { A: [PUBLIC_V4] });
    const before = receiver.requests.length;
    // Created while the name resolves to a public address; then DNS answers with the receiver's.
    const attempt = await firstAttempt(`https://${name}:${receiver.port}/hook`, strict, strict, () => dns.records.set(name, { A: ['127.0.0.1'] }));
    expect(attempt).toMatchObject({
      outcome: 'retrying',
      responseStatus: null,
      error: `not sent: the host ${name} resolves to 127.0.0.1, a loopback address, which webhooks may not reach`,
    });
    expect(receiver.requests.length).toBe(before);
    // The retry was queued all the same: DNS may answer differently next time.
    expect((await queue.getProperties()).approximateMessagesCount).toBeGreaterThanOrEqual(1);
    await queue.clearMessages();
  });

  test('a loopback URL accepted while private networks were allowed is refused once they are not', async () => {
    const before = receiver.requests.length;
    const attempt = await firstAttempt(`https://127.0.0.1:${receiver.port}/hook`, permissive, strict);
    expect(attempt.error).toBe('not sent: 127.0.0.1 is a loopback address, which webhooks may not reach');
    expect(receiver.requests.length).toBe(before);
    await queue.clearMessages();
  });

  test('http: accepted while private networks were allowed is refused once they are not, even to a public address', async () => {
    const attempt = await firstAttempt(`http://${PUBLIC_V4}/hook`, permissive, strict);
    expect(attempt.error).toBe('not sent: must be an https: URL');
    await queue.clearMessages();
  });

  test('the same delivery reaches the receiver when private networks are allowed (so the refusals above are the rule, not a broken sender)', async () => {
    const before = receiver.requests.length;
    const attempt = await firstAttempt(receiver.url, permissive, permissive);
    expect(attempt).toMatchObject({ outcome: 'succeeded', responseStatus: 200 });
    expect(receiver.requests.length).toBe(before + 1);
  });

  test('enqueueDelivery caps the visibility delay at the queue\'s 7 days', async () => {
    await expect(enqueueDelivery(queue, { kind: 'attempt', ownerId: uuidv7(), webhookId: uuidv7(), eventId: randomUUID(), attempt: 2, notBefore: new Date(Date.now() + 30 * 86_400_000).toISOString() }, 30 * 86_400)).resolves.toBeUndefined();
    expect((await queue.getProperties()).approximateMessagesCount).toBe(1);
    await queue.clearMessages();
  });
});

/**
 * The e-mail transports (docs/api.md#e-mail): SMTP with nodemailer against real SMTP servers (the suite's
 * mail catcher, and `smtp-server` for authentication and refusals), Azure Communication Services with
 * its SDK against a loopback HTTPS server speaking the service's REST protocol (POST
 * `/emails:send?api-version=...` → 202 with `Operation-Location`, then polling the operation), and no
 * transport at all.
 */
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { mkdtemp } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { AccessToken, TokenCredential } from '@azure/core-auth';
import { SMTPServer } from 'smtp-server';
import { createEmailTransport, EmailNotConfiguredError, operationIdOf, type OutgoingEmail } from '../../src/lib/notifications/transport.js';
import { emailSource, waitForEmail } from '../support/mail.js';
import { tool } from '../support/tools.js';

function outgoing(overrides: Partial<OutgoingEmail> = {}): OutgoingEmail {
  return {
    id: `${randomUUID()}.0`,
    to: { email: `ada-${randomUUID()}@example.com`, name: 'Ada Lovelace' },
    replyTo: 'owner@example.com',
    subject: 'Please review and sign: Lease.pdf',
    text: 'Open the document:\nhttps://sign.example.com/api/sign#abc\n',
    html: '<!DOCTYPE html><p>Open <a href="https://sign.example.com/api/sign#abc">the document</a></p>',
    ...overrides,
  };
}

describe('SMTP (nodemailer)', () => {
  test('delivers text and HTML, sender, recipient, Reply-To and a Message-ID made from the e-mail id, without attachments', async () => {
    const email = outgoing();
    await createEmailTransport({ smtpUrl: process.env.SMTP_URL, acsEndpoint: undefined, from: 'Envelope Signing <no-reply@sign.example.com>' }).send(email);
    const caught = await waitForEmail(email.to.email);
    expect(caught.subject).toBe(email.subject);
    expect(caught.text.trim()).toBe(email.text.trim());
    expect(caught.html).toBe(email.html);
    expect(caught.from).toBe('no-reply@sign.example.com');
    expect(caught.to).toEqual([email.to.email]);
    expect(caught.headers['message-id']).toBe(`<${email.id}@sign.example.com>`);
    expect(caught.attachments).toBe(0);
    const source = await emailSource(caught);
    expect(source).toMatch(/^Reply-To: owner@example\.com\r?$/m);
    expect(source).toMatch(/^From: Envelope Signing <no-reply@sign\.example\.com>\r?$/m);
    expect(source).not.toMatch(/Content-Disposition: attachment/i);
  });

  describe('against a server that checks credentials and refuses some recipients', () => {
    let server: SMTPServer;
    let port: number;
    const received: { user: string | undefined; to: string[] }[] = [];

    beforeAll(async () => {
      server = new SMTPServer({
        authOptional: false,
        disabledCommands: ['STARTTLS'],
        allowInsecureAuth: true,
        logger: false,
        onAuth(auth, _session, callback) {
          if (auth.username === 'mailer' && auth.password === 'p@ss word') callback(null, { user: auth.username });
          else callback(new Error('Invalid username or password'));
        },
        onRcptTo(address, _session, callback) {
          if (address.address.startsWith('refused')) {
            const error = new Error('Mailbox unavailable') as Error & { responseCode: number };
            error.responseCode = 451;
            callback(error);
          } else callback();
        },
        onData(stream, session, callback) {
          stream.resume();
          stream.on('end', () => {
            received.push({ user: session.user as string | undefined, to: session.envelope.rcptTo.map((entry) => entry.address) });
            callback();
          });
        },
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.server.address() as AddressInfo).port;
    });
    afterAll(async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });

    test('logs in with the user and password of SMTP_URL', async () => {
      const email = outgoing();
      await createEmailTransport({ smtpUrl: `smtp://mailer:${encodeURIComponent('p@ss word')}@127.0.0.1:${port}`, acsEndpoint: undefined, from: 'a@b.c' }).send(email);
      expect(received.at(-1)).toEqual({ user: 'mailer', to: [email.to.email] });
    });

    test('rejects when the server refuses the login or the recipient', async () => {
      const wrongPassword = createEmailTransport({ smtpUrl: `smtp://mailer:wrong@127.0.0.1:${port}`, acsEndpoint: undefined, from: 'a@b.c' });
      await expect(wrongPassword.send(outgoing())).rejects.toThrow(/Invalid username or password/);
      const transport = createEmailTransport({ smtpUrl: `smtp://mailer:${encodeURIComponent('p@ss word')}@127.0.0.1:${port}`, acsEndpoint: undefined, from: 'a@b.c' });
      await expect(transport.send(outgoing({ to: { email: 'refused@example.com', name: null } }))).rejects.toThrow(/451/);
    });

    test('describes itself without the password', () => {
      const transport = createEmailTransport({ smtpUrl: `smtp://mailer:secret@127.0.0.1:${port}`, acsEndpoint: undefined, from: 'a@b.c' });
      expect(transport.description).toBe(`SMTP smtp://127.0.0.1:${port}`);
      expect(transport.configured).toBe(true);
    });
  });
});

describe('no transport', () => {
  test('is not configured, and every send fails naming both settings', async () => {
    const transport = createEmailTransport({ smtpUrl: undefined, acsEndpoint: undefined, from: 'a@b.c' });
    expect(transport.configured).toBe(false);
    const failure = transport.send(outgoing());
    await expect(failure).rejects.toBeInstanceOf(EmailNotConfiguredError);
    await expect(failure).rejects.toThrow(/SMTP_URL.*ACS_EMAIL_ENDPOINT/);
  });
});

/** What the fake Communication Services endpoint saw. */
interface AcsRequest {
  method: string;
  path: string;
  apiVersion: string | null;
  authorization: string | undefined;
  operationId: string | undefined;
  body: unknown;
}

describe('Azure Communication Services (EmailClient against a loopback HTTPS server speaking its REST protocol)', () => {
  let server: https.Server;
  let endpoint: string;
  let ca: string;
  const requests: AcsRequest[] = [];
  /** Operation id → polls left before the terminal status, and that status. */
  const operations = new Map<string, { pollsLeft: number; final: 'Succeeded' | 'Failed' }>();
  const scopes: string[] = [];
  const credential: TokenCredential = {
    async getToken(requested): Promise<AccessToken> {
      scopes.push(...[requested].flat());
      return { token: 'static-test-token', expiresOnTimestamp: Date.now() + 3_600_000 };
    },
  };

  beforeAll(async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'acs-fake-'));
    const created = await tool('openssl', [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
      '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1',
      '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem'),
    ]);
    if (created.code !== 0) throw new Error(created.stderr);
    ca = await readFile(path.join(dir, 'cert.pem'), 'utf8');
    server = https.createServer({ key: await readFile(path.join(dir, 'key.pem')), cert: ca }, (request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const url = new URL(request.url ?? '/', endpoint);
        const text = Buffer.concat(chunks).toString('utf8');
        requests.push({
          method: request.method ?? '',
          path: url.pathname,
          apiVersion: url.searchParams.get('api-version'),
          authorization: request.headers.authorization,
          operationId: request.headers['operation-id'] as string | undefined,
          body: text === '' ? null : JSON.parse(text),
        });
        const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
          response.writeHead(status, { 'Content-Type': 'application/json', ...headers });
          response.end(JSON.stringify(body));
        };
        if (request.headers.authorization !== 'Bearer static-test-token') return send(401, { error: { code: 'Unauthorized', message: 'Bad token' } });
        if (request.method === 'POST' && url.pathname === '/emails:send') {
          const id = String(request.headers['operation-id'] ?? randomUUID());
          const recipient = (JSON.parse(text) as { recipients: { to: { address: string }[] } }).recipients.to[0]!.address;
          operations.set(id, { pollsLeft: 1, final: recipient.startsWith('bounce') ? 'Failed' : 'Succeeded' });
          return send(202, { id, status: 'Running', error: null }, {
            'Operation-Location': `${endpoint}/emails/operations/${id}?api-version=${url.searchParams.get('api-version')}`,
            'Retry-After': '1',
          });
        }
        const polled = /^\/emails\/operations\/([^/]+)$/.exec(url.pathname);
        if (request.method === 'GET' && polled !== null) {
          const operation = operations.get(polled[1]!);
          if (operation === undefined) return send(404, { error: { code: 'NotFound', message: 'No such operation' } });
          if (operation.pollsLeft > 0) {
            operation.pollsLeft--;
            return send(200, { id: polled[1], status: 'Running', error: null }, { 'Retry-After': '1' });
          }
          return send(200, {
            id: polled[1],
            status: operation.final,
            error: operation.final === 'Failed' ? { code: 'EmailDroppedAllRecipientsSuppressed', message: 'Message dropped because all recipients were suppressed' } : null,
          });
        }
        send(404, { error: { code: 'NotFound', message: 'No such route' } });
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    endpoint = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  function transport() {
    return createEmailTransport(
      { smtpUrl: undefined, acsEndpoint: endpoint, from: 'Envelope Signing <DoNotReply@sign.example.com>' },
      { acsCredential: credential, acsClientOptions: { tlsOptions: { ca }, retryOptions: { maxRetries: 0 } } },
    );
  }

  test('sends one message with a bearer token for Communication Services, then polls the operation until it succeeded', async () => {
    const email = outgoing();
    requests.length = 0;
    await transport().send(email);
    expect(scopes).toContain('https://communication.azure.com//.default');
    const post = requests.find((request) => request.method === 'POST')!;
    expect(post).toMatchObject({ path: '/emails:send', authorization: 'Bearer static-test-token', operationId: operationIdOf(email.id) });
    expect(post.apiVersion).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(post.body).toEqual({
      senderAddress: 'DoNotReply@sign.example.com',
      content: { subject: email.subject, plainText: email.text, html: email.html },
      recipients: { to: [{ address: email.to.email, displayName: 'Ada Lovelace' }] },
      replyTo: [{ address: 'owner@example.com' }],
    });
    const polls = requests.filter((request) => request.method === 'GET');
    expect(polls.map((request) => request.path)).toEqual([`/emails/operations/${operationIdOf(email.id)}`, `/emails/operations/${operationIdOf(email.id)}`]);
    expect(polls.every((request) => request.authorization === 'Bearer static-test-token')).toBe(true);
  });

  test('every attempt of one e-mail names the same operation (a UUID)', async () => {
    const email = outgoing();
    requests.length = 0;
    await transport().send(email);
    await transport().send(email);
    const ids = requests.filter((request) => request.method === 'POST').map((request) => request.operationId);
    expect(ids).toHaveLength(2);
    expect(ids[0]).toBe(ids[1]);
    expect(ids[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(operationIdOf(`${email.id}x`)).not.toBe(ids[0]);
  });

  test('rejects when the operation ends Failed', async () => {
    await expect(transport().send(outgoing({ to: { email: 'bounce@example.com', name: null } }))).rejects.toThrow(/suppressed|Failed/i);
  });
});

/**
 * How e-mails leave the service (docs/api.md#e-mail): through `SMTP_URL` with nodemailer, else through
 * Azure Communication Services at `ACS_EMAIL_ENDPOINT` with the managed identity
 * (`DefaultAzureCredential`), always from `EMAIL_FROM` (an RFC 5322 mailbox, `Name <address>`;
 * Communication Services takes only the address, which must belong to a domain connected to it). Both libraries are imported on the first
 * send, so a cold start loads neither.
 *
 * With neither setting, the service still starts (HTTP functions do not need e-mail) and logs one
 * warning; every send then fails with {@link EmailNotConfiguredError}, so the queue retries the
 * message and finally moves it to the poison queue, and the recipient's `lastEmail` becomes `failed`.
 * Setting SMTP_URL or ACS_EMAIL_ENDPOINT and restarting lets later e-mails through.
 *
 * "Sent" means accepted: by the SMTP server (its `250` to the message), or by Communication Services
 * (its send operation `Succeeded`). A failure throws; the caller leaves retrying to the queue.
 */
import { createHash } from 'node:crypto';
import type { EmailClientOptions } from '@azure/communication-email';
import type { TokenCredential } from '@azure/core-auth';
import { getConfig, type Config } from '../config.js';

/** One e-mail ready to go. */
export interface OutgoingEmail {
  /**
   * Stable id of this e-mail, the same on every attempt (`<batchId>.<index>`): the local part of its
   * `Message-ID`, and the source of the Communication Services operation id.
   */
  id: string;
  to: { email: string; name: string | null };
  /** Where replies go (the owner, for e-mails to recipients), or `null`. */
  replyTo: string | null;
  subject: string;
  text: string;
  html: string;
}

export interface EmailTransport {
  /** `false` when neither SMTP_URL nor ACS_EMAIL_ENDPOINT is set: every send throws. */
  readonly configured: boolean;
  /** What it sends through, for logs: never a password. */
  readonly description: string;
  /**
   * Sends one e-mail and resolves once the server accepted it.
   * @throws EmailNotConfiguredError without a transport; the library's error when the server refuses
   *   or does not answer
   */
  send(email: OutgoingEmail): Promise<void>;
}

/** Thrown by every send when neither SMTP_URL nor ACS_EMAIL_ENDPOINT is set. */
export class EmailNotConfiguredError extends Error {
  constructor() {
    super('No e-mail transport: set SMTP_URL (an SMTP server) or ACS_EMAIL_ENDPOINT (Azure Communication Services)');
    this.name = 'EmailNotConfiguredError';
  }
}

export interface CreateEmailTransportOptions {
  /** Credential for Communication Services; default `DefaultAzureCredential` (imported on first use). */
  acsCredential?: TokenCredential;
  /** Pipeline options of the Communication Services client (tests pass `tlsOptions` for a loopback fake). */
  acsClientOptions?: EmailClientOptions;
}

/** Seconds the SMTP transport waits for a connection, the greeting and each reply. */
const SMTP_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 60_000 };

/** The transport for the e-mail settings: SMTP wins over Communication Services; neither → every send throws. */
export function createEmailTransport(settings: Config['email'], options: CreateEmailTransportOptions = {}): EmailTransport {
  if (settings.smtpUrl !== undefined) return smtpTransport(settings.smtpUrl, settings.from);
  if (settings.acsEndpoint !== undefined) return acsTransport(settings.acsEndpoint, settings.from, options);
  return {
    configured: false,
    description: 'none (SMTP_URL and ACS_EMAIL_ENDPOINT are unset)',
    send: () => Promise.reject(new EmailNotConfiguredError()),
  };
}

function smtpTransport(smtpUrl: string, from: string): EmailTransport {
  const url = new URL(smtpUrl);
  let transporter: Promise<import('nodemailer').Transporter> | undefined;
  return {
    configured: true,
    description: `SMTP ${url.protocol}//${url.host}`,
    async send(email) {
      transporter ??= import('nodemailer').then((nodemailer) => nodemailer.createTransport({ url: smtpUrl, ...SMTP_TIMEOUTS }));
      await (
        await transporter
      ).sendMail({
        messageId: `<${email.id}@${domainOf(from)}>`,
        from,
        to: { name: email.to.name ?? '', address: email.to.email },
        ...(email.replyTo === null ? {} : { replyTo: email.replyTo }),
        subject: email.subject,
        text: email.text,
        html: email.html,
      });
    },
  };
}

function acsTransport(endpoint: string, from: string, options: CreateEmailTransportOptions): EmailTransport {
  let client: Promise<import('@azure/communication-email').EmailClient> | undefined;
  const connect = async () => {
    const { EmailClient } = await import('@azure/communication-email');
    const credential = options.acsCredential ?? new (await import('@azure/identity')).DefaultAzureCredential();
    return new EmailClient(endpoint, credential, options.acsClientOptions ?? {});
  };
  return {
    configured: true,
    description: `Azure Communication Services ${new URL(endpoint).host}`,
    async send(email) {
      client ??= connect();
      const poller = await (
        await client
      ).beginSend(
        {
          senderAddress: addressOf(from),
          content: { subject: email.subject, plainText: email.text, html: email.html },
          recipients: { to: [{ address: email.to.email, ...(email.to.name === null ? {} : { displayName: email.to.name }) }] },
          ...(email.replyTo === null ? {} : { replyTo: [{ address: email.replyTo }] }),
        },
        { operationId: operationIdOf(email.id) },
      );
      const result = await poller.pollUntilDone();
      if (result.status !== 'Succeeded') throw new Error(`Communication Services did not send the e-mail: ${result.status}${result.error?.message ? ` (${result.error.message})` : ''}`);
    },
  };
}

/** The address of an RFC 5322 mailbox: `Name <a@b>` → `a@b`. */
export function addressOf(mailbox: string): string {
  return /<([^<>]+)>\s*$/.exec(mailbox)?.[1]?.trim() ?? mailbox.trim();
}

function domainOf(mailbox: string): string {
  const address = addressOf(mailbox);
  return address.slice(address.lastIndexOf('@') + 1) || 'localhost';
}

/**
 * A UUID derived from the e-mail's stable id, sent as the `Operation-Id` of the send so that every
 * attempt of one e-mail names the same operation.
 */
export function operationIdOf(id: string): string {
  const bytes = createHash('sha256').update(id, 'utf8').digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x80; // version 8 (RFC 9562: custom)
  bytes[8] = (bytes[8]! & 0x3f) | 0x80; // RFC 9562 variant
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

let cached: EmailTransport | undefined;

/** The transport of this process, from {@link getConfig} on first use; warns once when there is none. */
export function getEmailTransport(): EmailTransport {
  if (cached === undefined) {
    cached = createEmailTransport(getConfig().email);
    if (!cached.configured) console.warn(`E-mail is not configured: ${new EmailNotConfiguredError().message}. E-mails fail and end in the poison queue.`);
  }
  return cached;
}

/** Forgets the transport (tests that change settings). */
export function resetEmailTransport(): void {
  cached = undefined;
}

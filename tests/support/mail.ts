/**
 * E-mails the service sent during the tests, read from the suite's mail catcher (a real SMTP server,
 * MailDev, started by `globalSetup.ts`; every service a test starts sends through it: SMTP_URL).
 * Helpers poll its REST API (`GET /api/email`) until what they wait for arrived; they never sleep a
 * fixed time. E-mails are matched by recipient address exactly as the service sent it (use lower-case
 * addresses in tests).
 *
 * ```ts
 * import { waitForEmail, waitForSigningLink, signingLinkIn } from '../support/mail.js';
 *
 * // the invitation to ada@example.com, and the token of its signing link
 * const { token, url, email } = await waitForSigningLink('ada@example.com', { subject: /^Please review and sign/ });
 * await api.request('GET', '/signing', { token });         // use the token against your own service
 *
 * // the second e-mail to the owner (for example after a decline)
 * const declined = await waitForEmail(owner.email, { subject: /^Declined:/ });
 * expect(declined.text).toContain('The reason given');
 *
 * // exactly one completed e-mail, and no more after a while of other work
 * expect(await emailsTo('ada@example.com', { subject: /^Completed:/ })).toHaveLength(1);
 * ```
 *
 * Links point at `PUBLIC_BASE_URL` (`https://envelope-signing.test` in the suite, see `globalSetup.ts`):
 * open the page of your own service with `${apiUrl}/sign#${token}`.
 */
import { patience } from './patience.js';

/** One e-mail as the mail catcher received it. */
export interface CaughtEmail {
  /** The mail catcher's id. */
  id: string;
  subject: string;
  /** The plain-text part. */
  text: string;
  /** The HTML part. */
  html: string;
  /** Sender address. */
  from: string;
  /** Recipient addresses. */
  to: string[];
  /** Header names (lower-case) and values, as the mail catcher keeps them: text headers only (no address headers; see {@link emailSource}). */
  headers: Record<string, string | string[]>;
  /** Number of attachments. */
  attachments: number;
  /** When the mail catcher received it (ISO 8601, second precision). */
  time: string;
}

export interface EmailQuery {
  /** Only e-mails whose subject matches (a string must equal the subject). */
  subject?: string | RegExp;
}

export interface WaitOptions extends EmailQuery {
  /** How many matching e-mails to wait for; default 1. */
  count?: number;
  /** Milliseconds before giving up; default 60000 (scaled by TEST_TIME_SCALE, `patience.ts`). */
  timeoutMs?: number;
}

/** The signing link of an e-mail and its token. */
export interface SigningLink {
  /** `<PUBLIC_BASE_URL>/api/sign#<token>`. */
  url: string;
  /** 43 base64url characters. */
  token: string;
}

/** The suite's mail catcher web address (`TEST_MAIL_CATCHER_URL`). @throws Error outside the jest run */
export function mailCatcherUrl(): string {
  const url = process.env.TEST_MAIL_CATCHER_URL;
  if (url === undefined || url === '') throw new Error('TEST_MAIL_CATCHER_URL is not set: the mail helpers work inside the jest run (globalSetup)');
  return url;
}

interface MailDevEmail {
  id: string;
  subject?: string;
  text?: string;
  html?: string;
  from?: { address: string }[];
  to?: { address: string }[];
  headers?: Record<string, string | string[]>;
  attachments?: unknown[];
  time: string;
}

/**
 * E-mails to `address` received so far, oldest first, matching `query`.
 * @param catcherUrl the mail catcher to read; default {@link mailCatcherUrl}
 */
export async function emailsTo(address: string, query: EmailQuery = {}, catcherUrl: string = mailCatcherUrl()): Promise<CaughtEmail[]> {
  const response = await fetch(`${catcherUrl}/api/email?${new URLSearchParams({ 'to.address': address })}`);
  if (!response.ok) throw new Error(`mail catcher answered ${response.status} to GET /api/email`);
  const emails = ((await response.json()) as MailDevEmail[]).map(toCaughtEmail);
  return emails.filter((email) => matches(email, query));
}

/**
 * Waits until at least `count` e-mails to `address` match, and returns all that match, oldest first.
 * @throws Error after `timeoutMs`, listing the subjects that did arrive
 */
export async function waitForEmails(address: string, options: WaitOptions = {}, catcherUrl: string = mailCatcherUrl()): Promise<CaughtEmail[]> {
  // Generous: the queue function sends within a second or two on a quiet machine, far later on a loaded one.
  const { count = 1, timeoutMs = patience(60_000) } = options;
  const deadline = Date.now() + timeoutMs;
  let interval = 50;
  for (;;) {
    const found = await emailsTo(address, options, catcherUrl);
    if (found.length >= count) return found;
    if (Date.now() > deadline) {
      const all = await emailsTo(address, {}, catcherUrl);
      throw new Error(
        `expected ${count} e-mail(s) to ${address}${options.subject === undefined ? '' : ` with subject ${String(options.subject)}`} within ${timeoutMs} ms, found ${found.length}; subjects received: ${JSON.stringify(all.map((email) => email.subject))}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, interval));
    interval = Math.min(interval * 2, 250);
  }
}

/** Waits for at least `count` (default 1) matching e-mails to `address` and returns the newest. */
export async function waitForEmail(address: string, options: WaitOptions = {}, catcherUrl: string = mailCatcherUrl()): Promise<CaughtEmail> {
  return (await waitForEmails(address, options, catcherUrl)).at(-1)!;
}

/**
 * The signing link an e-mail carries, from its text part (the HTML part must carry the same one).
 * @throws Error when the e-mail has no link, or more than one different link
 */
export function signingLinkIn(email: CaughtEmail): SigningLink {
  const pattern = /(https?:\/\/[^\s"'<>]+\/api\/sign#([A-Za-z0-9_-]{43}))(?![A-Za-z0-9_-])/g;
  const inText = [...new Set([...email.text.matchAll(pattern)].map((match) => match[1]!))];
  if (inText.length !== 1) throw new Error(`expected one signing link in "${email.subject}", found ${inText.length}`);
  const url = inText[0]!;
  if (!email.html.includes(`href="${url}"`)) throw new Error(`the HTML of "${email.subject}" does not link to ${url}`);
  return { url, token: url.slice(url.indexOf('#') + 1) };
}

/** The e-mail as it went over SMTP (RFC 5322 source: every header, the MIME parts). */
export async function emailSource(email: CaughtEmail, catcherUrl: string = mailCatcherUrl()): Promise<string> {
  const response = await fetch(`${catcherUrl}/api/email/${encodeURIComponent(email.id)}/source`);
  if (!response.ok) throw new Error(`mail catcher answered ${response.status} to GET /api/email/${email.id}/source`);
  return await response.text();
}

/** Waits for the newest matching e-mail to `address` and returns its signing link (see {@link signingLinkIn}). */
export async function waitForSigningLink(address: string, options: WaitOptions = {}, catcherUrl: string = mailCatcherUrl()): Promise<SigningLink & { email: CaughtEmail }> {
  const email = await waitForEmail(address, options, catcherUrl);
  return { ...signingLinkIn(email), email };
}

function toCaughtEmail(raw: MailDevEmail): CaughtEmail {
  return {
    id: raw.id,
    subject: raw.subject ?? '',
    text: raw.text ?? '',
    html: raw.html ?? '',
    from: raw.from?.[0]?.address ?? '',
    to: (raw.to ?? []).map((entry) => entry.address),
    headers: raw.headers ?? {},
    attachments: raw.attachments?.length ?? 0,
    time: raw.time,
  };
}

function matches(email: CaughtEmail, query: EmailQuery): boolean {
  if (query.subject === undefined) return true;
  return typeof query.subject === 'string' ? email.subject === query.subject : query.subject.test(email.subject);
}

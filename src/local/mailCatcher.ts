/**
 * A local mail catcher (MailDev, in this process): an SMTP server that keeps every e-mail it receives
 * instead of delivering it, and a web page (and REST API, `GET /api/email`) showing them. `npm start`
 * runs one unless SMTP_URL is set, and points the service's SMTP_URL at it; the test suite runs one
 * as its SMTP server. MailDev is a development dependency, imported only here and only when started.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export interface MailCatcherOptions {
  /** SMTP port; 0 picks a free one. */
  smtpPort: number;
  /** Web page and REST API port; 0 picks a free one. */
  webPort: number;
  /**
   * Folder that keeps the e-mails (they are shown again after a restart); omit for a temporary
   * folder removed at stop.
   */
  mailDirectory?: string;
  /** Most e-mails kept, oldest dropped first; 0 keeps all. Default 1000. */
  maxEmails?: number;
}

export interface RunningMailCatcher {
  /** `smtp://127.0.0.1:<port>`, for SMTP_URL. */
  smtpUrl: string;
  /** `http://127.0.0.1:<port>`: the web page; its REST API is under `/api` (`GET /api/email`). */
  webUrl: string;
  stop(): Promise<void>;
}

/**
 * Starts MailDev on 127.0.0.1 and resolves once its SMTP server and web page listen.
 * @throws Error when a port is taken (the message names both ports)
 */
export async function startMailCatcher(options: MailCatcherOptions): Promise<RunningMailCatcher> {
  const { MailDev } = await import('maildev');
  const temporary = options.mailDirectory === undefined ? await mkdtemp(path.join(os.tmpdir(), 'mail-catcher-')) : null;
  const maildev = new MailDev({
    smtp: options.smtpPort,
    web: options.webPort,
    ip: '127.0.0.1',
    webIp: '127.0.0.1',
    mailDirectory: options.mailDirectory ?? temporary!,
    maxEmails: options.maxEmails ?? 1000,
    silent: true,
  });
  let servers;
  // MailDev announces its web address with console.info whatever `silent` says; the caller prints
  // the address in its own words.
  const info = console.info;
  console.info = () => undefined;
  try {
    servers = await maildev.start();
  } catch (error) {
    await maildev.stop().catch(() => undefined);
    if (temporary !== null) await rm(temporary, { recursive: true, force: true });
    throw new Error(
      `the mail catcher could not listen on SMTP port ${options.smtpPort} and web port ${options.webPort}: ${error instanceof Error ? error.message : String(error)}`,
    );
  } finally {
    console.info = info;
  }
  const smtpPort = servers.smtp.getAddress().port;
  const webPort = servers.api?.getAddress()?.port;
  if (webPort === undefined) throw new Error('the mail catcher started without its web page');
  return {
    smtpUrl: `smtp://127.0.0.1:${smtpPort}`,
    webUrl: `http://127.0.0.1:${webPort}`,
    async stop() {
      await maildev.stop();
      if (temporary !== null) await rm(temporary, { recursive: true, force: true });
    },
  };
}

/**
 * A mail catcher for the bench: an SMTP server on loopback (RFC 5321, the `smtp-server` package)
 * that accepts every message and keeps nothing but a count. The service's e-mail sender delivers
 * to it (`SMTP_URL`), so an invitation's e-mail is sent once, as with a real relay, instead of
 * failing and being retried by the queue function (which would load Azurite after each suite).
 */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface MailSink {
  /** `smtp://127.0.0.1:<port>`, for `SMTP_URL`. */
  url: string;
  /** Messages accepted so far. */
  accepted(): number;
  close(): Promise<void>;
}

/** Starts the catcher on a free loopback port. */
export async function startMailSink(): Promise<MailSink> {
  let accepted = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      stream.on('data', () => undefined);
      stream.on('end', () => {
        accepted++;
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    accepted: () => accepted,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

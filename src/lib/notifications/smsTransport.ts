/**
 * How text messages leave the service (docs/api.md#sms): through Azure Communication Services' SMS API
 * with `@azure/communication-sms` and `ACS_CONNECTION_STRING` (its requests are signed with the access
 * key, HMAC-SHA256), from `SMS_FROM`. The SDK is imported on the first send, so a cold start does not
 * load it.
 *
 * Sending once: Communication Services honours a repeatable request (the `Repeatability-Request-ID`
 * and `Repeatability-First-Sent` of the OASIS Repeatable Requests draft, which its SMS API 2021-03-07
 * carries per recipient in the body as `repeatabilityRequestId` and `repeatabilityFirstSent`) once: a
 * request repeating an id it accepted is not sent again. The SDK would make up new values on every
 * call; the service sets them instead ({@link OutgoingSms}), the same on every attempt of one outbox
 * message, with a pipeline policy that writes them into the body (and the headers) before the request
 * is signed.
 *
 * Retries: the SDK's own retry policy retries 429 (after `Retry-After`), 5xx and time-outs a few times
 * with exponential back-off (same request, same ids); what still fails throws, and the outbox queue
 * retries the message later (`sendSms.ts`), again with the same ids.
 *
 * The SDK's client allows plain `http:` only for a loopback endpoint (the local fake, `src/local/smsCatcher.ts`).
 */
import type { SmsClient, SmsClientOptions } from '@azure/communication-sms';
import { getConfig, isLoopbackHost, type Config } from '../config.js';

/** One text message ready to go. */
export interface OutgoingSms {
  /** Stable id of this message (`<batchId>.<index>`), for logs. */
  id: string;
  /** E.164. */
  to: string;
  text: string;
  /** UUID, the same on every attempt of this message. */
  repeatabilityRequestId: string;
  /** When the first attempt was made, the same on every attempt. */
  repeatabilityFirstSent: Date;
}

export interface SmsTransport {
  /** `false` when ACS_CONNECTION_STRING is unset: every send throws. */
  readonly configured: boolean;
  /** What it sends through, for logs: never the key. */
  readonly description: string;
  /**
   * Sends one text and resolves once Communication Services accepted it.
   * @returns Communication Services' id of the text (its delivery report names it)
   * @throws SmsNotConfiguredError without a connection string; SmsRefusedError when the service refused
   *   the recipient; the SDK's error (RestError) when the request failed
   */
  send(sms: OutgoingSms): Promise<{ messageId: string }>;
}

/** Thrown by every send when ACS_CONNECTION_STRING is unset. */
export class SmsNotConfiguredError extends Error {
  constructor() {
    super('No SMS transport: set ACS_CONNECTION_STRING (Azure Communication Services) and SMS_FROM');
    this.name = 'SmsNotConfiguredError';
  }
}

/** Communication Services answered, but did not accept the text for its recipient. */
export class SmsRefusedError extends Error {
  constructor(
    readonly status: number,
    reason: string,
  ) {
    super(`Communication Services refused the text (${status}): ${reason}`);
    this.name = 'SmsRefusedError';
  }
}

/** Milliseconds one HTTP attempt may take before it counts as timed out (and is retried). */
export const SMS_REQUEST_TIMEOUT_MS = 10_000;

/** The SDK's retries of one send: tries after the first, and the back-off's first and longest delays. */
const SDK_RETRIES = { maxRetries: 2, retryDelayInMs: 500, maxRetryDelayInMs: 8_000 };

const REQUEST_ID_HEADER = 'Repeatability-Request-ID';
const FIRST_SENT_HEADER = 'Repeatability-First-Sent';

/** A policy of the SDK's HTTP pipeline (`@azure/core-rest-pipeline`), as the client options take it. */
type PipelinePolicy = NonNullable<SmsClientOptions['additionalPolicies']>[number]['policy'];

/**
 * The pipeline policy that gives a send the service's repeatability values: the call passes them as
 * headers (`requestOptions.customHeaders`); the policy copies them into every recipient of the JSON
 * body, over the SDK's own, before the request is signed (it runs before the access key's policy).
 */
export const repeatabilityPolicy: PipelinePolicy = {
  name: 'RepeatabilityFromOutbox',
  async sendRequest(request, next) {
    const requestId = request.headers.get(REQUEST_ID_HEADER);
    const firstSent = request.headers.get(FIRST_SENT_HEADER);
    if (requestId !== undefined && firstSent !== undefined && typeof request.body === 'string') {
      const body = JSON.parse(request.body) as { smsRecipients?: { repeatabilityRequestId?: string; repeatabilityFirstSent?: string }[] };
      for (const recipient of body.smsRecipients ?? []) {
        recipient.repeatabilityRequestId = requestId;
        recipient.repeatabilityFirstSent = firstSent;
      }
      request.body = JSON.stringify(body);
    }
    return await next(request);
  },
};

export interface CreateSmsTransportOptions {
  /** More client options (tests). */
  clientOptions?: SmsClientOptions;
}

/** The transport for the SMS settings; without a connection string every send throws. */
export function createSmsTransport(settings: Config['sms'], options: CreateSmsTransportOptions = {}): SmsTransport {
  const { connectionString, endpoint, from } = settings;
  if (connectionString === undefined || endpoint === undefined || from === undefined) {
    return { configured: false, description: 'none (ACS_CONNECTION_STRING is unset)', send: () => Promise.reject(new SmsNotConfiguredError()) };
  }
  let client: Promise<SmsClient> | undefined;
  const connect = async () => {
    const { SmsClient } = await import('@azure/communication-sms');
    const url = new URL(endpoint);
    return new SmsClient(connectionString, {
      ...options.clientOptions,
      retryOptions: SDK_RETRIES,
      additionalPolicies: [...(options.clientOptions?.additionalPolicies ?? []), { policy: repeatabilityPolicy, position: 'perCall' }],
      // Plain HTTP only to the local fake on this machine.
      allowInsecureConnection: url.protocol === 'http:' && isLoopbackHost(url.hostname),
    });
  };
  return {
    configured: true,
    description: `Azure Communication Services ${new URL(endpoint).host}`,
    async send(sms) {
      client ??= connect();
      const results = await (
        await client
      ).send(
        { from, to: [sms.to], message: sms.text },
        {
          enableDeliveryReport: true,
          tag: sms.id,
          requestOptions: {
            timeout: SMS_REQUEST_TIMEOUT_MS,
            customHeaders: { [REQUEST_ID_HEADER]: sms.repeatabilityRequestId, [FIRST_SENT_HEADER]: sms.repeatabilityFirstSent.toUTCString() },
          },
        },
      );
      const result = results[0];
      if (result === undefined) throw new SmsRefusedError(0, 'no result for the recipient');
      if (!result.successful) throw new SmsRefusedError(result.httpStatusCode, result.errorMessage ?? 'no reason given');
      if (result.messageId === undefined) throw new SmsRefusedError(result.httpStatusCode, 'no message id for the recipient');
      return { messageId: result.messageId };
    },
  };
}

let cached: SmsTransport | undefined;

/** The transport of this process, from {@link getConfig} on first use; warns once when there is none. */
export function getSmsTransport(): SmsTransport {
  if (cached === undefined) {
    cached = createSmsTransport(getConfig().sms);
    if (!cached.configured) console.warn(`Text messages are not configured: ${new SmsNotConfiguredError().message}. Texts fail and end in the poison queue.`);
  }
  return cached;
}

/** Forgets the transport (tests that change settings). */
export function resetSmsTransport(): void {
  cached = undefined;
}

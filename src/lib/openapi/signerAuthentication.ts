/**
 * Signer authentication in the OpenAPI document (docs/api.md#signer-authentication): the view a recipient gets before
 * its code, the two operations that send and check codes, and the answers that authentication adds to
 * the recipient's other operations. Used by `recipients.ts`.
 */
import type { ResponseConfig } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { authenticateRequest, MAX_ATTEMPTS, MAX_OTPS, OTP_COOLDOWN_SECONDS, OTP_TTL_SECONDS } from '../envelopes/authenticationSettings.js';
import { cacheControlNoStore, jsonBodyProblems, jsonBodyTooLarge, jsonRequestBody, notJson, type Operation } from './common.js';
import { problemResponses } from './responses.js';

const method = z.enum(['accessCode', 'emailOtp', 'sms']);

/** `authentication` of the full recipient's view, for recipients with a code. */
export const verifiedAuthentication = z
  .strictObject({ method, verified: z.literal(true), attemptsLeft: z.int().min(0).max(MAX_ATTEMPTS) })
  .optional()
  .meta({ description: 'Only for recipients with an access code or e-mailed codes: verified (this view is shown only then), and the wrong codes still allowed.' });

/** 200 of `GET /api/signing` before the recipient entered its code: nothing of the document. */
export const restrictedViewResponse = z
  .strictObject({
    authentication: z.strictObject({
      method: method.meta({ description: '`accessCode`: the code the sender gave the recipient; `emailOtp`: ask for a code by e-mail (`POST /api/signing/otp`); `sms`: ask for a code by text message to the recipient\'s phone (the same endpoint).' }),
      verified: z.literal(false),
      attemptsLeft: z.int().min(1).max(MAX_ATTEMPTS).meta({ description: `Wrong codes still allowed before the link locks (${MAX_ATTEMPTS} after a right code or a resend).` }),
    }),
    envelope: z.strictObject({ id: z.uuid(), documentName: z.string(), ownerEmail: z.email().meta({ description: 'Who asks the recipient to act.' }) }),
  })
  .meta({ id: 'RestrictedRecipientView', description: 'What a recipient that must enter a code sees before it has: who asks it to act, on which document, and how to authenticate.' });

const problem = problemResponses({
  ...jsonBodyProblems,
  'authentication-required': { detail: 'Enter your code first (POST /api/signing/authenticate): this recipient must prove who it is before it can act.', attemptsLeft: 5 },
  'authentication-failed': { detail: 'The code is not right; 4 attempts left.', attemptsLeft: 4 },
  'authentication-locked': { detail: 'Too many wrong codes: this signing link is locked. Ask the sender to send you a new link.', attemptsLeft: 0 },
  'authentication-method-mismatch': { detail: 'This recipient does not receive one-time codes.' },
  'otp-too-soon': { detail: `A code was sent less than ${OTP_COOLDOWN_SECONDS} seconds ago; check your e-mail, or retry after the time in Retry-After.` },
  'otp-limit': { detail: `${MAX_OTPS} codes were already sent for this signing link: ask the sender to send you a new link.` },
  'email-quota': { detail: 'The sender\'s envelopes have sent their e-mails for today; retry tomorrow.' },
  'sms-quota': { detail: 'The sender\'s envelopes have sent their text messages for today; retry tomorrow.' },
  'validation-failed': { detail: 'The request body is invalid: code must not be empty.', errors: [{ path: 'code', message: 'must not be empty' }] },
  'envelope-contended': {},
});

const lockedAnswer = problem(423, `${MAX_ATTEMPTS} wrong codes in a row locked the link (\`authentication-locked\`) until the sender resends the invitation; every signing request answers this.`, ['authentication-locked']);

/** What authentication adds to the recipient's other operations, checked right after the token: the 403 sentence (its example is the caller's) and the 423. */
export const actionAuthenticationAnswers = {
  403: 'A recipient with an access code or e-mailed codes must enter it first (`authentication-required`, with `attemptsLeft`).',
  423: lockedAnswer,
};

const retryAfter = { 'Retry-After': { description: 'Seconds to wait before asking again.', required: true, schema: { type: 'string' as const, pattern: '^[0-9]+$' } } };

/** `POST /api/signing/otp` and `POST /api/signing/authenticate`. */
export function signerAuthenticationOperations(
  security: Record<string, string[]>[],
  common: { invalidToken: ResponseConfig; view: ResponseConfig; errors: Record<number, ResponseConfig> },
): Operation[] {
  return [
    {
      operationId: 'SendSigningCode',
      method: 'post',
      path: '/signing/otp',
      tags: ['Signing'],
      summary: 'Send the recipient a one-time code by e-mail or text message',
      description: `For a recipient with \`emailOtp\` authentication: e-mails it a 6-digit code that works once, for ${OTP_TTL_SECONDS / 60} minutes (a newer code replaces it); with \`sms\` authentication: sends the code by text message to its \`phone\` (by e-mail instead when the number opted out with STOP). At most once every ${OTP_COOLDOWN_SECONDS} seconds and ${MAX_OTPS} times per signing link, e-mailed and texted codes counted together (the sender's resend gives a new link). The message counts toward the organization's daily e-mail or text quota. No body.`,
      security,
      responses: {
        202: { description: 'The e-mail or text message is queued.', headers: { 'Cache-Control': cacheControlNoStore() } },
        401: common.invalidToken,
        409: problem(409, 'The recipient does not use one-time codes (`authentication-method-mismatch`), or concurrent requests kept the envelope busy (`envelope-contended`).', ['authentication-method-mismatch', 'envelope-contended']),
        423: lockedAnswer,
        429: {
          ...problem(429, `A code was sent less than ${OTP_COOLDOWN_SECONDS} seconds ago (\`otp-too-soon\`, with \`Retry-After\`), ${MAX_OTPS} codes were sent for this link (\`otp-limit\`, until the sender resends), or the organization's daily e-mail or text quota is used up (\`email-quota\`, \`sms-quota\`).`, ['otp-too-soon', 'otp-limit', 'email-quota', 'sms-quota']),
          headers: { 'Retry-After': { ...retryAfter['Retry-After'], required: false } },
        },
        ...common.errors,
      },
    },
    {
      operationId: 'AuthenticateSigning',
      method: 'post',
      path: '/signing/authenticate',
      tags: ['Signing'],
      summary: 'Enter the access code or the one-time code',
      description: `A right code: the signing link counts as authenticated for \`SIGNING_AUTH_TTL_SECONDS\` (default 3600), after which the code is asked again; \`attemptsLeft\` goes back to ${MAX_ATTEMPTS}; a one-time code is used up. The answer is the full view (the first one marks the recipient \`opened\`). A wrong code: 403 with \`attemptsLeft\`; the ${MAX_ATTEMPTS}th wrong code in a row answers 423 and locks the link until the sender resends. Every attempt is in the audit trail (\`recipient.authenticated\`, \`recipient.authentication_failed\`), never the code.`,
      security,
      request: { body: jsonRequestBody(authenticateRequest, { example: { code: '123456' } }) },
      responses: {
        200: common.view,
        400: problem(400, '`code` is missing, empty or over 64 characters (`validation-failed`), or the body is not JSON (`malformed-json`).', ['validation-failed', 'malformed-json']),
        401: common.invalidToken,
        403: problem(403, 'The code is not right, or the one-time code expired or was used (`authentication-failed`, with `attemptsLeft`).', ['authentication-failed']),
        409: problem(409, 'The recipient needs no code (`authentication-method-mismatch`), or concurrent requests kept the envelope busy (`envelope-contended`).', ['authentication-method-mismatch', 'envelope-contended']),
        413: jsonBodyTooLarge,
        415: notJson,
        423: lockedAnswer,
        ...common.errors,
      },
    },
  ];
}


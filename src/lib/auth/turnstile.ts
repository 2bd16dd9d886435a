/**
 * Cloudflare Turnstile verification over `fetch` (docs/api.md#accounts). Siteverify reference:
 * https://developers.cloudflare.com/turnstile/get-started/server-side-validation/
 */
import { AppError } from '../errors.js';
import type { Config } from '../config.js';
import { problem } from '../problems.js';

/** How long siteverify may take before the request fails with 503, milliseconds. */
export const SITEVERIFY_TIMEOUT_MS = 5_000;

export type CaptchaOutcome = 'passed' | 'failed' | 'not-configured';

export interface VerifyCaptchaOptions {
  /** The `turnstileToken` the client sent, if any. */
  token: string | undefined;
  /** The client's IP, forwarded to siteverify as `remoteip` when known. */
  remoteIp: string | null;
}

/**
 * Checks a Turnstile token. Without a secret key the check is off (`not-configured`, tokens ignored).
 * A token that is sent is always verified; a missing one is `failed` when `TURNSTILE_REQUIRED`, else `passed`.
 * @throws AppError `service_unavailable` (503) when siteverify is unreachable, slower than
 *   {@link SITEVERIFY_TIMEOUT_MS}, or answers something that is not a siteverify result: never a pass.
 */
export async function verifyCaptcha(settings: Config['turnstile'], options: VerifyCaptchaOptions): Promise<CaptchaOutcome> {
  if (settings.secretKey === undefined) return 'not-configured';
  if (options.token === undefined || options.token === '') return settings.required ? 'failed' : 'passed';
  const form = new URLSearchParams({ secret: settings.secretKey, response: options.token });
  if (options.remoteIp !== null) form.set('remoteip', options.remoteIp);
  let answer: unknown;
  try {
    const response = await fetch(settings.verifyUrl, {
      method: 'POST',
      body: form,
      signal: AbortSignal.timeout(SITEVERIFY_TIMEOUT_MS),
    });
    if (!response.ok) throw new Error(`siteverify answered HTTP ${response.status}`);
    answer = await response.json();
  } catch (error) {
    throw unavailable(error);
  }
  const success = (answer as { success?: unknown } | null)?.success;
  if (typeof success !== 'boolean') throw unavailable(new Error('siteverify answered without a boolean "success"'));
  return success ? 'passed' : 'failed';
}

function unavailable(cause: unknown): AppError {
  return problem('captchaUnavailable', { retryAfterSeconds: 10, cause });
}

/**
 * The `locale` of envelopes, templates and recipients (docs/languages.md) as request bodies take it: one
 * of the supported BCP 47 tags, exactly as listed; anything else is refused with a message that lists
 * them all (a 400 problem through the body parser).
 */
import { z } from 'zod';
import { SUPPORTED_LOCALES } from './locales.js';

/** A supported locale (`en`, `de`, `pt-BR`, `zh-TW`, …); the error message lists every supported one. */
export const localeSchema = z.enum(SUPPORTED_LOCALES, { error: `must be one of the supported locales: ${SUPPORTED_LOCALES.join(', ')}` });

/** An envelope's or template's `locale` in a request: optional; absent keeps it (default `en`). */
export const envelopeLocaleInput = localeSchema.optional().meta({
  description: `The language of the owner's e-mails, the certificate of completion and, unless a recipient names its own, the recipients' e-mails and signing page. One of ${SUPPORTED_LOCALES.join(', ')}; default \`en\`. A setting: it cannot change once the envelope is sent.`,
});

/** A recipient's `locale` in a request: optional; absent or `null` means the envelope's. */
export const recipientLocaleInput = localeSchema.nullable().optional().meta({
  description: `The language of this recipient's e-mails and signing page, one of ${SUPPORTED_LOCALES.join(', ')}; absent or \`null\`: the envelope's \`locale\`.`,
});

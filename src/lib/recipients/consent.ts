/**
 * The disclosure a recipient agrees to before signing, approving or confirming electronically
 * (`consent: true` of `POST /api/signing/complete`). The signing page shows exactly this text (it
 * reads it from the recipient's view), the acting event records it with its version, and the
 * certificate of completion prints it once and, for each recipient who acted, the version agreed to.
 *
 * The version is derived from the text (the first 12 hex digits of its SHA-256, prefixed `esd-`), so
 * it changes whenever the text does and never needs to be bumped by hand.
 */
import { createHash } from 'node:crypto';

/** A disclosure as shown and recorded: its exact text and its version. */
export interface ConsentDisclosure {
  /** The exact words the recipient was shown, plain text. */
  text: string;
  /** `esd-` and 12 lower-case hex digits of the text's SHA-256. */
  version: string;
}

const DISCLOSURE_TEXT =
  'Consent to use electronic records and signatures. By ticking the box you agree that this document and the records of this envelope ' +
  'are kept in electronic form, and that your electronic signature, approval or confirmation binds you as your handwritten one would. ' +
  'You can read and download the document before you act and, once everyone has acted, the sealed copy. ' +
  'If you do not agree, or prefer paper, do not tick the box: decline, or contact the sender instead.';

/** The version of a disclosure text: `esd-` + the first 12 hex digits of its SHA-256 (UTF-8). */
export function disclosureVersion(text: string): string {
  return `esd-${createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 12)}`;
}

/** The service's current disclosure. */
export const ELECTRONIC_SIGNATURE_DISCLOSURE: ConsentDisclosure = Object.freeze({
  text: DISCLOSURE_TEXT,
  version: disclosureVersion(DISCLOSURE_TEXT),
});

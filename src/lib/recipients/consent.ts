/**
 * The disclosure a recipient agrees to before signing, approving or confirming electronically
 * (`consent: true` of `POST /api/signing/complete`, docs/api.md#consent-to-electronic-signatures), in
 * the language the signing page showed it: the organisation's own text for that locale when it set
 * one (docs/api.md#the-organizations-disclosures), else the service's (`i18n/disclosure.ts`). The page
 * shows exactly this text (`GET /api/signing/disclosure`), the acting event records it with its
 * version and locale, and the certificate of completion prints each distinct version once.
 */
import { serviceDisclosure, type Disclosure } from '../i18n/disclosure.js';
import { isSupportedLocale, type Locale } from '../i18n/locales.js';
import { envelopeOrganization } from '../organizations/envelopeOrganization.js';
import type { EnvelopeRecord } from '../envelopes/model.js';
import type { Services } from '../services.js';

export type { Disclosure } from '../i18n/disclosure.js';

/**
 * The disclosure a recipient of `record` reading `locale` is shown and agrees to: its organisation's
 * own text for that locale, else the service's (an unsupported `locale` is read as English).
 * @throws Error when the envelope's organisation cannot be found (a fault of the service)
 */
export async function disclosureFor(
  services: Pick<Services, 'organizations' | 'users'>,
  record: Pick<EnvelopeRecord, 'ownerId' | 'ownerEmail' | 'ownerName' | 'organizationId'>,
  locale: string,
): Promise<Disclosure> {
  const tag: Locale = isSupportedLocale(locale) ? locale : 'en';
  const organizationId = await envelopeOrganization(services, record);
  const own = await services.organizations.disclosure(organizationId, tag);
  return own === null ? serviceDisclosure(tag) : { text: own.text, version: own.version, locale: tag };
}

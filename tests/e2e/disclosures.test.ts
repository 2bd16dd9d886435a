/**
 * What a signer consents to and what the certificate ties back to (docs/api.md#consent-to-electronic-signatures,
 * docs/api.md#the-organizations-disclosures, docs/api.md#evidence): the disclosure in the signer's
 * language (or the page's, after a switch), an organisation's own text per locale, and the upload's
 * SHA-256 next to the frozen document's.
 */
import { createHash, randomUUID } from 'node:crypto';
import { describe, expect, test } from '@jest/globals';
import { getServices } from '../../src/lib/services.js';
import { corpusPdf, expectProblem, serviceForFile, type TestService, type TestUser } from '../support/service.js';
import { joinedMember } from '../support/organizations.js';
import { auditTrail, outboxMessages, sentEnvelope, signingTokenFor } from '../support/signing.js';
import { tempFile, tool } from '../support/tools.js';

let env: TestService;
let owner: TestUser;
serviceForFile((started) => ({ env, owner } = started));

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');
const squeeze = (text: string): string => text.replace(/\s/g, '');

/** The text pdftotext extracts from a sealed PDF, and the file. */
async function sealedText(signedUrl: string): Promise<{ text: string; file: string }> {
  const file = await tempFile(Buffer.from(await (await fetch(signedUrl)).arrayBuffer()));
  return { file, text: (await tool('pdftotext', [file, '-'])).stdout };
}

/** A recipient of `locale`, sent alone (the envelope in `envelopeLocale`), and its signing token. */
async function oneRecipient(by: TestUser, locale: string, envelopeLocale = 'en', pdf?: Uint8Array): Promise<{ id: string; token: string }> {
  const email = `signer-${randomUUID()}@example.com`;
  const { id } = await sentEnvelope(env.api, by, { signers: [{ email, name: 'Sam Signer', locale }], settings: { locale: envelopeLocale }, ...(pdf === undefined ? {} : { pdf }) });
  return { id, token: await signingTokenFor(by.userId, id, email) };
}

describe('the disclosure in the signer\'s language', () => {
  test('a ja recipient is shown the Japanese text, and its consent and the certificate carry that text and version', async () => {
    const { id, token } = await oneRecipient(owner, 'ja', 'ja');
    const service = (await env.api.request('GET', '/disclosure?locale=ja')).body as { text: string; version: string; locale: string };
    expect(service.locale).toBe('ja');
    expect(service.text).toMatch(/^電子記録および電子署名の使用への同意。/);
    const english = (await env.api.request('GET', '/disclosure')).body as { version: string };
    expect(service.version).not.toBe(english.version);

    const shown = await env.api.request('GET', '/signing/disclosure', { token });
    expect(shown.status).toBe(200);
    expect(shown.headers.get('cache-control')).toContain('no-store');
    expect(shown.body).toEqual(service);

    const done = await env.api.request('POST', '/signing/complete', { token, json: { consent: true, values: [] } });
    expect(done.status).toBe(200);
    expect(done.body.envelope.status).toBe('completed');
    const signed = (await auditTrail(env.api, owner, id)).find((event) => event.type === 'recipient.signed');
    expect(signed.details.consent).toEqual({ text: service.text, version: service.version, locale: 'ja' });

    const { text } = await sealedText(done.body.signedUrl);
    expect(squeeze(text).split(squeeze(service.text))).toHaveLength(2);
    expect(text).toContain(service.version);
  });

  test('a switch of language on the page sends locale with the consent, and that locale\'s text is recorded', async () => {
    const { id, token } = await oneRecipient(owner, 'ja');
    const german = (await env.api.request('GET', '/signing/disclosure?locale=de', { token })).body as { text: string; version: string; locale: string };
    expect(german).toMatchObject({ locale: 'de' });
    expect(german.text).toMatch(/^Einwilligung in die Verwendung elektronischer Aufzeichnungen und Signaturen\./);
    expect((await env.api.request('POST', '/signing/complete', { token, json: { consent: true, locale: 'de', values: [] } })).status).toBe(200);
    const signed = (await auditTrail(env.api, owner, id)).find((event) => event.type === 'recipient.signed');
    expect(signed.details.consent).toEqual(german);
  });

  test('an unknown locale is refused, in the query and with the consent', async () => {
    const { token } = await oneRecipient(owner, 'en');
    expectProblem(await env.api.request('GET', '/disclosure?locale=pt'), 400);
    expectProblem(await env.api.request('GET', '/signing/disclosure?locale=xx', { token }), 400);
    const refused = await env.api.request('POST', '/signing/complete', { token, json: { consent: true, locale: 'xx', values: [] } });
    expectProblem(refused, 400);
    expect(refused.body.errors).toEqual([expect.objectContaining({ path: 'locale' })]);
  });
});

describe('an organization\'s own disclosure', () => {
  const ownText = 'Zustimmung zu elektronischen Unterlagen der Beispiel GmbH.\nSie können jederzeit eine Papierfassung verlangen: 📄 Schreiben Sie uns.';

  test('PATCH sets it per locale (admin or owner), GET shows it with its version, and a recipient of that locale is shown and records it', async () => {
    const admin = await env.newUser();
    const patched = await env.api.request('PATCH', '/organization', { token: admin.token, json: { disclosure: { de: ownText } } });
    expect(patched.status).toBe(200);
    const version = `esd-${sha256(Buffer.from(ownText, 'utf8')).slice(0, 12)}`;
    expect(patched.body.disclosure).toEqual({ de: { text: ownText, version } });
    expect((await env.api.request('GET', '/organization', { token: admin.token })).body.disclosure).toEqual({ de: { text: ownText, version } });
    // Another organization sees its own (none) and its recipients the service's text.
    expect((await env.api.request('GET', '/organization', { token: owner.token })).body.disclosure).toEqual({});

    const { id, token } = await oneRecipient(admin, 'de');
    expect((await env.api.request('GET', '/signing/disclosure', { token })).body).toEqual({ text: ownText, version, locale: 'de' });
    // Other locales of the same organization keep the service's text.
    expect((await env.api.request('GET', '/signing/disclosure?locale=fr', { token })).body).toEqual((await env.api.request('GET', '/disclosure?locale=fr')).body);
    const done = await env.api.request('POST', '/signing/complete', { token, json: { consent: true, values: [] } });
    expect(done.status).toBe(200);
    const signed = (await auditTrail(env.api, admin, id)).find((event) => event.type === 'recipient.signed');
    expect(signed.details.consent).toEqual({ text: ownText, version, locale: 'de' });
    // The certificate prints it once, each line of it.
    const { text } = await sealedText(done.body.signedUrl);
    expect(text).toContain('Zustimmung zu elektronischen Unterlagen der Beispiel GmbH.');
    expect(squeeze(text).split(squeeze(ownText))).toHaveLength(2);

    // null removes it: the service's text applies again.
    const removed = await env.api.request('PATCH', '/organization', { token: admin.token, json: { disclosure: { de: null } } });
    expect(removed.body.disclosure).toEqual({});
  });

  test('refuses texts outside 50 to 10,000 code points, control characters other than line breaks, unknown locales; a sender may not set it', async () => {
    const admin = await env.newUser();
    const patch = (disclosure: unknown, token = admin.token) => env.api.request('PATCH', '/organization', { token, json: { disclosure } });
    // Code points, not UTF-16 units: 50 emoji are 50 characters (100 units); 49 are too few.
    expect((await patch({ ja: '📄'.repeat(50) })).status).toBe(200);
    const short = await patch({ ja: '📄'.repeat(49) });
    expectProblem(short, 400);
    expect(short.body.errors).toEqual([expect.objectContaining({ path: 'disclosure.ja' })]);
    expect((await patch({ en: 'x'.repeat(10_000) })).status).toBe(200);
    expectProblem(await patch({ en: 'x'.repeat(10_001) }), 400);
    expect((await patch({ en: `${'Line one. '.repeat(5)}\r\n${'Line two. '.repeat(5)}` })).status).toBe(200);
    for (const refused of ['\t', '\u0000', '\u2028', '\u0085', '\uD800']) expectProblem(await patch({ en: `${'x'.repeat(60)}${refused}` }), 400);
    expectProblem(await patch({ xx: 'x'.repeat(60) }), 400);
    const sender = await joinedMember(env.api, admin, 'sender');
    expectProblem(await patch({ en: 'x'.repeat(60) }, sender.token), 403);
    // Refused requests changed nothing.
    expect(Object.keys((await env.api.request('GET', '/organization', { token: admin.token })).body.disclosure).sort()).toEqual(['en', 'ja']);
  });
});

describe('organization.disclosure_changed', () => {
  test('each locale whose text a PATCH changes records one event, with the new and the replaced version and who changed it; an unchanged text, a refused request and another locale record none', async () => {
    const admin = await env.newUser();
    const organizationId = ((await env.api.request('GET', '/organization', { token: admin.token })).body as { id: string }).id;
    const events = () => getServices().organizations.events(organizationId);
    const version = (text: string): string => `esd-${sha256(Buffer.from(text, 'utf8')).slice(0, 12)}`;
    const first = `${'Erste Fassung. '.repeat(5)}`;
    const second = `${'Zweite Fassung. '.repeat(5)}`;
    const french = `${'Première version. '.repeat(5)}`;
    const patch = (disclosure: unknown) => env.api.request('PATCH', '/organization', { token: admin.token, json: { disclosure } });

    expect((await patch({ de: first, fr: french })).status).toBe(200);
    // One event per locale (two in one request: their order among themselves is not promised).
    const firstEvents = await events();
    expect(firstEvents).toHaveLength(2);
    expect(firstEvents).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'organization.disclosure_changed', locale: 'de', version: version(first), previousVersion: null, actorId: admin.userId, actorEmail: admin.email }),
        expect.objectContaining({ type: 'organization.disclosure_changed', locale: 'fr', version: version(french), previousVersion: null, actorId: admin.userId, actorEmail: admin.email }),
      ]),
    );
    // The same text again changes nothing and records nothing; a refused request neither.
    expect((await patch({ de: first })).status).toBe(200);
    expectProblem(await patch({ de: 'too short' }), 400);
    expect(await events()).toHaveLength(2);
    // A new text records the version it replaced; removing it records version null.
    expect((await patch({ de: second })).status).toBe(200);
    expect((await patch({ de: null, fr: null })).status).toBe(200);
    const recorded = await events();
    expect(recorded).toHaveLength(5);
    expect(recorded[2]).toEqual(expect.objectContaining({ locale: 'de', version: version(second), previousVersion: version(first) }));
    expect(recorded.slice(3)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ locale: 'de', version: null, previousVersion: version(second) }),
        expect.objectContaining({ locale: 'fr', version: null, previousVersion: version(french) }),
      ]),
    );
    for (const event of recorded) {
      expect(event.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);
      expect(Date.parse(event.at)).not.toBeNaN();
    }
    // Removing a locale it never set records nothing.
    expect((await patch({ ja: null })).status).toBe(200);
    expect(await events()).toHaveLength(recorded.length);
  });
});

describe('the certificate ties back to the upload', () => {
  test('envelope.sent (audit and webhook event) carries uploadSha256, the SHA-256 of the uploaded bytes; the certificate prints both hashes and the kinds removed', async () => {
    // This upload holds JavaScript, which freezing removes.
    const upload = await corpusPdf('with_update_sections.pdf');
    const { id, token } = await oneRecipient(owner, 'en', 'en', upload);
    const sent = (await auditTrail(env.api, owner, id)).find((event) => event.type === 'envelope.sent');
    expect(sent.details.uploadSha256).toBe(sha256(upload));
    expect(sent.details.documentSha256).not.toBe(sha256(upload));
    expect(sent.details.removed).toContain('javascript');
    const event = (await outboxMessages(owner.userId, id)).find((message) => message.kind === 'event' && message.event.type === 'envelope.sent');
    expect(event?.kind === 'event' ? event.event.data : null).toEqual({ envelopeId: id, status: 'sent', documentSha256: sent.details.documentSha256, uploadSha256: sha256(upload) });
    const done = await env.api.request('POST', '/signing/complete', { token, json: { consent: true, values: [] } });
    expect(done.body.envelope.status).toBe('completed');
    const flat = (await sealedText(done.body.signedUrl)).text.replace(/\s+/g, ' ');
    expect(flat).toContain('SHA-256 as uploaded');
    expect(flat).toContain(sha256(upload));
    expect(flat).toContain('SHA-256 as frozen');
    expect(flat).toContain(sent.details.documentSha256);
    expect(flat).toContain('Content removed');
    expect(flat).toContain((sent.details.removed as string[]).join(', '));
  });
});

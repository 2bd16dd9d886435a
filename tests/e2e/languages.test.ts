/**
 * Languages (docs/languages.md) over real HTTP: `locale` on envelopes and recipients, validated against the
 * supported list; each recipient's e-mails in its language (caught by the real SMTP catcher), the
 * owner's in the envelope's; the certificate of completion in the envelope's language, checked with
 * pdftotext and rendered with pdftoppm (the PNGs are kept under `LANGUAGE_RENDERS_DIR`, default the
 * system's temporary folder, to be looked at).
 */
import { mkdirSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, test } from '@jest/globals';
import { SUPPORTED_LOCALES } from '../../src/lib/i18n/locales.js';
import { signingLinkIn, waitForEmail, type CaughtEmail } from '../support/mail.js';
import { corpusPdf, createEnvelopeWithDocument, expectProblem, serviceForFile, type TestService, type TestUser } from '../support/service.js';
import { auditTrail } from '../support/signing.js';
import { tempFile, tool } from '../support/tools.js';

let env: TestService;
let owner: TestUser;
serviceForFile((started) => ({ env, owner } = started));

const uniqueAddress = (name: string): string => `${name}-${Math.random().toString(36).slice(2, 10)}@example.com`;

describe('locale in requests (docs/languages.md)', () => {
  test('an unsupported envelope locale is refused with 400 listing the supported ones, and changes nothing', async () => {
    const id = await createEnvelopeWithDocument(env.api, owner, await corpusPdf('normal.pdf'));
    const refused = await env.api.request('PATCH', `/envelopes/${id}`, { token: owner.token, json: { locale: 'tlh' } });
    expectProblem(refused, 400);
    const listed = JSON.stringify(refused.body);
    for (const locale of SUPPORTED_LOCALES) expect(listed).toContain(locale);
    expect(refused.body.errors).toEqual([expect.objectContaining({ path: 'locale' })]);
    expect((await env.api.request('GET', `/envelopes/${id}`, { token: owner.token })).body.locale).toBe('en');
  });

  test('an unsupported recipient locale is refused with 400 naming the recipient\'s field', async () => {
    const id = await createEnvelopeWithDocument(env.api, owner, await corpusPdf('normal.pdf'));
    const refused = await env.api.request('PUT', `/envelopes/${id}`, { token: owner.token, json: { signers: [{ email: 'a@example.com', name: 'A', locale: 'pt' }] } });
    expectProblem(refused, 400);
    expect(refused.body.errors).toEqual([expect.objectContaining({ path: 'signers.0.locale', message: expect.stringContaining('pt-BR') })]);
    expect((await env.api.request('GET', `/envelopes/${id}`, { token: owner.token })).body.signers).toEqual([]);
  });

  test('the envelope\'s locale defaults to en, a recipient\'s to null (the envelope\'s); a change is a recorded setting, locked once sent', async () => {
    const id = await createEnvelopeWithDocument(env.api, owner, await corpusPdf('normal.pdf'));
    const draft = await env.api.request('GET', `/envelopes/${id}`, { token: owner.token });
    expect(draft.body.locale).toBe('en');
    const changed = await env.api.request('PATCH', `/envelopes/${id}`, {
      token: owner.token,
      json: { locale: 'fr', signers: [{ email: 'a@example.com', name: 'A' }, { email: 'b@example.com', name: 'B', locale: 'pt-BR' }] },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.locale).toBe('fr');
    expect(changed.body.signers.map((signer: { locale: unknown }) => signer.locale)).toEqual([null, 'pt-BR']);
    const events = await auditTrail(env.api, owner, id);
    expect(events.at(-1)).toMatchObject({ type: 'envelope.settings_changed', details: { locale: 'fr' } });

    const sent = await env.api.request('PATCH', `/envelopes/${id}`, { token: owner.token, json: { status: 'sent' } });
    expect(sent.status).toBe(200);
    const locked = await env.api.request('PATCH', `/envelopes/${id}`, { token: owner.token, json: { locale: 'de' } });
    expectProblem(locked, 409);
    expect(locked.body.type).toBe('urn:problem:envelope-locked');
    // Repeating what the envelope holds is no change.
    expect((await env.api.request('PATCH', `/envelopes/${id}`, { token: owner.token, json: { locale: 'fr' } })).status).toBe(200);
    const lockedRecipient = await env.api.request('PATCH', `/envelopes/${id}`, {
      token: owner.token,
      json: { signers: changed.body.signers.map((signer: { id: string; email: string; name: string }) => ({ id: signer.id, email: signer.email, name: signer.name, locale: 'ja' })) },
    });
    expectProblem(lockedRecipient, 409);
    expect((await env.api.request('GET', `/envelopes/${id}`, { token: owner.token })).body).toMatchObject({ locale: 'fr', signers: [{ locale: null }, { locale: 'pt-BR' }] });
  });
});

describe('e-mails in the recipient\'s language (docs/languages.md)', () => {
  test('a German envelope with Japanese and Arabic recipients: each invitation and voided e-mail in its reader\'s language', async () => {
    const germanId = await createEnvelopeWithDocument(env.api, owner, await corpusPdf('normal.pdf'), 'Mietvertrag.pdf');
    const yuki = uniqueAddress('yuki');
    const layla = uniqueAddress('layla');
    const hans = uniqueAddress('hans');
    const german = await env.api.request('PUT', `/envelopes/${germanId}`, {
      token: owner.token,
      json: {
        locale: 'de',
        signers: [
          { email: yuki, name: '山田 雪', role: 'signer', locale: 'ja' },
          { email: layla, name: 'ليلى', role: 'approver', locale: 'ar' },
          { email: hans, name: 'Hans', role: 'viewer' },
        ],
        status: 'sent',
      },
    });
    expect(german.status).toBe(200);
    expect(german.body.locale).toBe('de');

    const japanese = await waitForEmail(yuki);
    expect(japanese.subject).toBe('確認と署名のお願い: Mietvertrag.pdf');
    expect(japanese.text).toContain('山田 雪 様');
    expect(japanese.text).toContain('「Mietvertrag.pdf」への署名を依頼されています');
    expect(japanese.text).toMatch(/有効期限: \d{4}年\d{1,2}月\d{1,2}日 \d{1,2}:\d{2} UTC/);
    expect(japanese.html).toContain('<html lang="ja" dir="ltr">');

    const arabic = await waitForEmail(layla);
    expect(arabic.subject).toBe('يُرجى المراجعة والاعتماد: Mietvertrag.pdf');
    // Typed text is set apart with Unicode isolates in a right-to-left e-mail.
    expect(arabic.text).toContain('مرحبًا \u2068ليلى\u2069،');
    expect(arabic.text).toContain('يطلب منك');
    expect(arabic.text).toContain('UTC');
    expect(arabic.html).toContain('<html lang="ar" dir="rtl">');

    // The signing page learns its language from the recipient's view: its own locale, else the envelope's.
    const viewOf = async (mail: CaughtEmail) => (await env.api.request('GET', '/signing', { headers: { Authorization: `Bearer ${signingLinkIn(mail).token}` } })).body;
    expect((await viewOf(japanese)).recipient.locale).toBe('ja');
    expect((await viewOf(arabic)).recipient.locale).toBe('ar');

    // No locale of its own: the envelope's.
    const germanMail = await waitForEmail(hans);
    expect((await viewOf(germanMail)).recipient.locale).toBe('de');
    expect(germanMail.subject).toBe('Bitte prüfen: Mietvertrag.pdf');
    expect(germanMail.text).toContain('Hallo Hans,');
    expect(germanMail.text).toMatch(/Läuft ab: \d{1,2}\. [A-Za-zä]+ \d{4} um \d{2}:\d{2} UTC/);

    const voided = await env.api.request('PATCH', `/envelopes/${germanId}`, { token: owner.token, json: { status: 'voided' } });
    expect(voided.status).toBe(200);
    expect((await waitForEmail(yuki, { subject: /^無効化/ })).subject).toBe('無効化: Mietvertrag.pdf');
    expect((await waitForEmail(layla, { subject: /^مُلغى/ })).text).toContain('ألغى');
    expect((await waitForEmail(hans, { subject: /^Storniert/ })).subject).toBe('Storniert: Mietvertrag.pdf');
  });
});

/** Renders every certificate page (those after the document's `documentPages`) to PNG; returns the files. */
async function renderCertificate(file: string, documentPages: number, name: string): Promise<string[]> {
  const folder = path.join(process.env.LANGUAGE_RENDERS_DIR ?? tmpdir(), 'certificate-renders');
  mkdirSync(folder, { recursive: true });
  const prefix = path.join(folder, name);
  const rendered = await tool('pdftoppm', ['-f', String(documentPages + 1), '-r', '80', '-png', file, prefix]);
  expect(rendered.code).toBe(0);
  return readdirSync(folder)
    .filter((entry) => entry.startsWith(`${name}-`) && entry.endsWith('.png'))
    .map((entry) => path.join(folder, entry));
}

async function completedCertificate(locale: string, signers: Record<string, unknown>[]): Promise<{ text: string; file: string; pages: number; ownerMail: string }> {
  const id = await createEnvelopeWithDocument(env.api, owner, await corpusPdf('normal.pdf'), `certificate-${locale}.pdf`);
  const updated = await env.api.request('PUT', `/envelopes/${id}`, { token: owner.token, json: { locale, signers } });
  expect(updated.status).toBe(200);
  const completed = await env.api.request('POST', `/envelopes/${id}/complete`, { token: owner.token });
  expect(completed.status).toBe(200);
  const file = await tempFile(Buffer.from(await (await fetch(completed.body.signedUrl)).arrayBuffer()));
  const envelope = (await env.api.request('GET', `/envelopes/${id}`, { token: owner.token })).body;
  const text = (await tool('pdftotext', ['-f', String(envelope.pageCount + 1), file, '-'])).stdout;
  return { text, file, pages: envelope.pageCount, ownerMail: owner.email };
}

/**
 * Text as compared here: without white space (pdftotext breaks lines inside table cells, and puts
 * spaces between joined Arabic glyphs where their advances differ from the font's widths) and without
 * the bidirectional embedding marks it wraps right-to-left lines in.
 */
function squeezed(text: string): string {
  return text.replace(/[\s\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '');
}

describe('the certificate of completion in the envelope\'s language (docs/languages.md)', () => {
  test('Japanese: headings, labels, roles, trail sentences and times in Japanese; raw event types stay', async () => {
    const { text, file, pages } = await completedCertificate('ja', [{ email: 'yamada@example.com', name: '山田 太郎', role: 'signer' }]);
    const images = await renderCertificate(file, pages, 'ja');
    expect(images.length).toBeGreaterThan(0);
    for (const words of ['完了証明書', '封筒ID', '受信者(1)', '署名者', '監査証跡', 'が文書「certificate-ja.pdf」の封筒を作成しました。', '言語を日本語(ja)に設定。', '山田太郎']) expect(squeezed(text)).toContain(words);
    expect(text).toMatch(/\d{4}\/\d{2}\/\d{2} \d{2}:\d{2}:\d{2} UTC/);
    expect(text).toContain('envelope.created');
    expect(text).not.toContain('Certificate of completion');
  });

  test('Arabic: shaped right-to-left text, extractable, with Arabic headings and sentences; raw event types stay', async () => {
    const { text, file, pages } = await completedCertificate('ar', [{ email: 'layla@example.com', name: 'ليلى العربي', role: 'signer' }]);
    const images = await renderCertificate(file, pages, 'ar');
    expect(images.length).toBeGreaterThan(0);
    // pdftotext gives Arabic back in logical order: the shaped glyphs map back to their characters
    // (words with a shadda are left out: poppler puts the mark after the letter before it).
    for (const words of ['شهادة الإتمام', 'سجل التدقيق', 'ليلى العربي', 'البريد الإلكتروني', 'وكيل المستخدم', 'اللغة: العربية']) expect(squeezed(text)).toContain(squeezed(words));
    expect(text).toMatch(/\d{2}\/\d{2}\/\d{4}، \d{2}:\d{2}:\d{2} UTC/);
    expect(text).toContain('envelope.settings_changed');
    expect(text).not.toContain('Audit trail');
  });

  test.each([
    ['he', 'דנה כהן', ['תעודתהשלמה', 'יומןביקורת', 'דנהכהן']],
    ['th', 'สมชาย ใจดี', ['ใบรับรองการดำเนินการเสร็จสมบูรณ์', 'บันทึกการตรวจสอบ', 'สมชายใจดี']],
    ['hi', 'अनीता शर्मा', ['पूर्णताप्रमाणपत्र', 'ऑडिटट्रेल', 'अनीताशर्मा']],
  ])('%s: the certificate in its language, names in its script', async (locale, name, words) => {
    const { text, file, pages } = await completedCertificate(locale, [{ email: 'someone@example.com', name, role: 'signer' }]);
    expect((await renderCertificate(file, pages, locale)).length).toBeGreaterThan(0);
    for (const word of words) expect(squeezed(text)).toContain(word);
    expect(text).toContain('envelope.created');
  });

  test('the owner\'s completed e-mail is in the envelope\'s language', async () => {
    await completedCertificate('ar', [{ email: uniqueAddress('r'), name: 'R', role: 'signer' }]);
    const mail = await waitForEmail(owner.email, { subject: /^اكتمل: certificate-ar\.pdf$/ });
    expect(mail.text).toContain('أتمّ جميع المستلمين');
    expect(mail.html).toContain('dir="rtl"');
  });
});

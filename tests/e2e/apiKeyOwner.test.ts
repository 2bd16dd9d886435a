/**
 * An API key acts as its owner in everything, the owner's display name included
 * ([docs/api.md#api-keys](../../docs/api.md#api-keys)): an envelope sent with a key names the owner as
 * `Name <address>` in the invitation (text and HTML), in the recipient's view (`ownerName`) and on the
 * certificate of the sealed PDF (pdftotext), exactly as one sent with the owner's access token. Over
 * real HTTP, the real mail catcher and poppler.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { waitForEmail, waitForSigningLink } from '../support/mail.js';
import { patience } from '../support/patience.js';
import { startTestService, type TestService, type TestUser } from '../support/service.js';
import { sentEnvelope } from '../support/signing.js';
import { tempFile, tool } from '../support/tools.js';

let env: TestService;
let owner: TestUser;
/** The owner as the key authenticates it: the same account, the key as its bearer token. */
let withKey: TestUser;
const NAME = 'Ivy Integrator';

beforeAll(async () => {
  env = await startTestService();
  owner = await env.newUser({ name: NAME });
  const created = await env.api.request('POST', '/apikeys', { token: owner.token, json: { name: 'integration' } });
  expect(created.status).toBe(201);
  withKey = { ...owner, token: created.body.key as string };
});
afterAll(async () => {
  await env?.close();
});

/** Collapses white space, so that text wrapped by a layout compares as one line. */
const flat = (text: string): string => text.replace(/\s+/g, ' ');

describe('an envelope sent with an API key', () => {
  test("names the owner with its display name: the invitation, the recipient's view and the certificate", async () => {
    const signer = { email: `sam-${randomUUID()}@example.com`, name: 'Sam Signer' };
    const { id } = await sentEnvelope(env.api, withKey, { signers: [signer] });
    const owned = `${NAME} <${owner.email}>`;

    // The invitation: its sentence, in text and HTML, and its footer.
    const { token, email } = await waitForSigningLink(signer.email, { subject: /^Please review and sign: / });
    expect(flat(email.text)).toContain(`${owned} asks you to sign "contract.pdf".`);
    expect(email.html).toContain(NAME);
    expect(email.text).not.toMatch(new RegExp(`(^|\\s)${owner.email.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} asks you`));

    // The recipient's view, from the recipient's API.
    const view = await env.api.request('GET', '/signing', { token });
    expect(view.status).toBe(200);
    expect(view.body).toMatchObject({ envelope: { id, ownerEmail: owner.email, ownerName: NAME } });

    // The certificate of the sealed PDF.
    const signed = await env.api.request('POST', '/signing/complete', { token, json: { consent: true, values: [] } });
    expect(signed.status).toBe(200);
    expect(signed.body.envelope.status).toBe('completed');
    const bytes = Buffer.from(await (await fetch(signed.body.signedUrl as string)).arrayBuffer());
    const text = (await tool('pdftotext', [await tempFile(bytes), '-'])).stdout;
    expect(flat(text)).toContain(owned);
  }, patience(120_000));

  test('voided with the key: the voided e-mail names the owner with its display name', async () => {
    const signer = { email: `tia-${randomUUID()}@example.com`, name: 'Tia Signer' };
    const { id } = await sentEnvelope(env.api, withKey, { signers: [signer] });
    await waitForSigningLink(signer.email, { subject: /^Please review and sign: / });
    expect((await env.api.request('PATCH', `/envelopes/${id}`, { token: withKey.token, json: { status: 'voided' } })).status).toBe(200);
    const voided = await waitForEmail(signer.email, { subject: /^Voided: / });
    expect(flat(voided.text)).toContain(`${NAME} <${owner.email}> has voided "contract.pdf".`);
  }, patience(120_000));
});

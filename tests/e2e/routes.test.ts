/**
 * The route table (docs/api.md#api-reference): every function's methods, authLevel and need
 * for a token, asserted so that a new function that forgets its guard fails here, and proven over HTTP:
 * every protected route answers 401 without a token.
 */
import { describe, expect, test } from '@jest/globals';
import { loadFunctions } from '../../src/local/loadFunctions.js';
import type { RegisteredRoute } from '../../src/lib/http/register.js';
import { expectProblem, serviceForFile, type TestService } from '../support/service.js';

/** The whole API surface. A new function must be added here, with its access, or this test fails. */
const expected = [
  { name: 'AcsEvents', route: 'events/acs', methods: ['POST'], access: 'public' },
  { name: 'AddEnvelopeDocument', route: 'envelopes/{id}/documents', methods: ['POST'], access: 'bearer' },
  { name: 'AddTemplateDocument', route: 'templates/{id}/documents', methods: ['POST'], access: 'bearer' },
  { name: 'ApiDocs', route: 'docs', methods: ['GET'], access: 'public' },
  { name: 'ApiDocsAsset', route: 'docs/{file}', methods: ['GET'], access: 'public' },
  { name: 'AuthenticateSigning', route: 'signing/authenticate', methods: ['POST'], access: 'signing' },
  { name: 'CancelBulkJob', route: 'bulk/{id}/cancel', methods: ['POST'], access: 'bearer' },
  { name: 'CompleteEnvelope', route: 'envelopes/{id}/complete', methods: ['POST'], access: 'bearer' },
  { name: 'CompleteSigning', route: 'signing/complete', methods: ['POST'], access: 'signing' },
  { name: 'Console', route: 'console', methods: ['GET'], access: 'public' },
  { name: 'ConsoleAsset', route: 'console/{file}', methods: ['GET'], access: 'public' },
  { name: 'CreateApiKey', route: 'apikeys', methods: ['POST'], access: 'jwt' },
  { name: 'CreateBulkJob', route: 'templates/{id}/bulk', methods: ['POST'], access: 'bearer' },
  { name: 'CreateEnvelopeFromTemplate', route: 'templates/{id}/envelopes', methods: ['POST'], access: 'bearer' },
  { name: 'CreateOrganizationInvitation', route: 'organization/invitations', methods: ['POST'], access: 'bearer' },
  { name: 'CreateRecipientView', route: 'envelopes/{id}/recipients/{recipientId}/views', methods: ['POST'], access: 'bearer' },
  { name: 'CreateTemplate', route: 'templates', methods: ['POST'], access: 'bearer' },
  { name: 'CreateWebhook', route: 'webhooks', methods: ['POST'], access: 'bearer' },
  { name: 'DeclineSigning', route: 'signing/decline', methods: ['POST'], access: 'signing' },
  { name: 'DeleteApiKey', route: 'apikeys/{id}', methods: ['DELETE'], access: 'jwt' },
  { name: 'DeleteEnvelope', route: 'envelopes/{id}', methods: ['DELETE'], access: 'bearer' },
  { name: 'DeleteEnvelopeDocument', route: 'envelopes/{id}/documents/{documentId}', methods: ['DELETE'], access: 'bearer' },
  { name: 'DeleteOrganizationInvitation', route: 'organization/invitations/{id}', methods: ['DELETE'], access: 'bearer' },
  { name: 'DeleteTemplate', route: 'templates/{id}', methods: ['DELETE'], access: 'bearer' },
  { name: 'DeleteTemplateDocument', route: 'templates/{id}/documents/{documentId}', methods: ['DELETE'], access: 'bearer' },
  { name: 'DeleteWebhook', route: 'webhooks/{id}', methods: ['DELETE'], access: 'bearer' },
  { name: 'DescribePublicLink', route: 'public/{publicId}', methods: ['GET'], access: 'public' },
  { name: 'DetectEnvelopeFields', route: 'envelopes/{id}/fields/detect', methods: ['POST'], access: 'bearer' },
  { name: 'DetectTemplateFields', route: 'templates/{id}/fields/detect', methods: ['POST'], access: 'bearer' },
  { name: 'DownloadEnvelope', route: 'envelopes/{id}/download', methods: ['GET'], access: 'bearer' },
  { name: 'EmbeddedSigningPage', route: 'sign/v/{viewId}', methods: ['GET'], access: 'public' },
  { name: 'GetAuditTrail', route: 'envelopes/{id}/audit', methods: ['GET'], access: 'bearer' },
  { name: 'GetBulkJob', route: 'bulk/{id}', methods: ['GET'], access: 'bearer' },
  { name: 'GetDisclosure', route: 'disclosure', methods: ['GET'], access: 'public' },
  { name: 'GetEnvelope', route: 'envelopes/{id}', methods: ['GET'], access: 'bearer' },
  { name: 'GetEnvelopeAttachment', route: 'envelopes/{id}/attachments/{attachmentId}', methods: ['GET'], access: 'bearer' },
  { name: 'GetLogConsistency', route: 'log/consistency', methods: ['GET'], access: 'public' },
  { name: 'GetLogHead', route: 'log/sth', methods: ['GET'], access: 'public' },
  { name: 'GetLogKey', route: 'log/key', methods: ['GET'], access: 'public' },
  { name: 'GetLogProof', route: 'log/proof', methods: ['GET'], access: 'public' },
  { name: 'GetOrganization', route: 'organization', methods: ['GET'], access: 'bearer' },
  { name: 'GetSigningDisclosure', route: 'signing/disclosure', methods: ['GET'], access: 'signing' },
  { name: 'GetSigningView', route: 'signing', methods: ['GET'], access: 'signing' },
  { name: 'GetTemplate', route: 'templates/{id}', methods: ['GET'], access: 'bearer' },
  { name: 'GetUploadUrl', route: 'GetUploadUrl', methods: ['POST'], access: 'bearer' },
  { name: 'Health', route: 'health', methods: ['GET'], access: 'public' },
  { name: 'ListApiKeys', route: 'apikeys', methods: ['GET'], access: 'jwt' },
  { name: 'ListBulkJobRows', route: 'bulk/{id}/rows', methods: ['GET'], access: 'bearer' },
  { name: 'ListBulkJobs', route: 'bulk', methods: ['GET'], access: 'bearer' },
  { name: 'ListEnvelopeAttachments', route: 'envelopes/{id}/attachments', methods: ['GET'], access: 'bearer' },
  { name: 'ListEnvelopes', route: 'envelopes', methods: ['GET'], access: 'bearer' },
  { name: 'ListMembers', route: 'organization/members', methods: ['GET'], access: 'bearer' },
  { name: 'ListOrganizationInvitations', route: 'organization/invitations', methods: ['GET'], access: 'bearer' },
  { name: 'ListPurges', route: 'organization/purges', methods: ['GET'], access: 'bearer' },
  { name: 'ListTemplates', route: 'templates', methods: ['GET'], access: 'bearer' },
  { name: 'ListWebhookDeliveries', route: 'webhooks/{id}/deliveries', methods: ['GET'], access: 'bearer' },
  { name: 'ListWebhooks', route: 'webhooks', methods: ['GET'], access: 'bearer' },
  { name: 'Login', route: 'Login', methods: ['POST'], access: 'public' },
  { name: 'OpenApiDocument', route: 'openapi.json', methods: ['GET'], access: 'public' },
  { name: 'PublicLinkPage', route: 'sign/t/{publicId}', methods: ['GET'], access: 'public' },
  { name: 'ReassignSigning', route: 'signing/reassign', methods: ['POST'], access: 'signing' },
  { name: 'RedeliverWebhook', route: 'webhooks/{id}/deliveries/{deliveryId}/redeliver', methods: ['POST'], access: 'bearer' },
  { name: 'Register', route: 'Register', methods: ['POST'], access: 'public' },
  { name: 'RemoveMember', route: 'organization/members/{userId}', methods: ['DELETE'], access: 'bearer' },
  { name: 'ResendInvitation', route: 'envelopes/{id}/recipients/{recipientId}/resend', methods: ['POST'], access: 'bearer' },
  { name: 'ResendVerification', route: 'ResendVerification', methods: ['POST'], access: 'bearer' },
  { name: 'SendSigningCode', route: 'signing/otp', methods: ['POST'], access: 'signing' },
  { name: 'SigningPage', route: 'sign', methods: ['GET'], access: 'public' },
  { name: 'SigningPageAsset', route: 'sign/{file}', methods: ['GET'], access: 'public' },
  { name: 'StartPublicLink', route: 'public/{publicId}/start', methods: ['POST'], access: 'public' },
  { name: 'TransferOrganization', route: 'organization/transfer', methods: ['POST'], access: 'bearer' },
  { name: 'UpdateEnvelope', route: 'envelopes/{id}', methods: ['PUT', 'PATCH'], access: 'bearer' },
  { name: 'UpdateEnvelopeDocument', route: 'envelopes/{id}/documents/{documentId}', methods: ['PATCH'], access: 'bearer' },
  { name: 'UpdateMember', route: 'organization/members/{userId}', methods: ['PATCH'], access: 'bearer' },
  { name: 'UpdateOrganization', route: 'organization', methods: ['PATCH'], access: 'bearer' },
  { name: 'UpdateTemplate', route: 'templates/{id}', methods: ['PUT', 'PATCH'], access: 'bearer' },
  { name: 'UpdateTemplateDocument', route: 'templates/{id}/documents/{documentId}', methods: ['PATCH'], access: 'bearer' },
  { name: 'UploadSigningAttachment', route: 'signing/attachments', methods: ['POST'], access: 'signing' },
  { name: 'VerifyEmail', route: 'VerifyEmail', methods: ['POST'], access: 'public' },
  { name: 'VerifyEmailPage', route: 'verify-email', methods: ['GET'], access: 'public' },
  { name: 'VerifyEmailPageAsset', route: 'verify-email/{file}', methods: ['GET'], access: 'public' },
  { name: 'VerifyPublicLink', route: 'public/{publicId}/verify', methods: ['POST'], access: 'public' },
  { name: 'VerifySeal', route: 'verify/{sha256}', methods: ['GET'], access: 'public' },
  { name: 'VerifySealPage', route: 'verify', methods: ['GET'], access: 'public' },
  { name: 'VerifySealPageAsset', route: 'verify/assets/{file}', methods: ['GET'], access: 'public' },
];

let routes: readonly RegisteredRoute[];
let env: TestService;
serviceForFile(async (started) => {
  ({ env } = started);
  routes = await loadFunctions();
});

describe('route table', () => {
  test('registers exactly the expected functions, each anonymous at the platform with its declared access', () => {
    const actual = routes
      .map(({ name, route, methods, access, authLevel }) => ({ name, route, methods: [...methods].sort(), access, authLevel }))
      .sort((a, b) => a.name.localeCompare(b.name));
    expect(actual).toEqual(expected.map((entry) => ({ ...entry, methods: [...entry.methods].sort(), authLevel: 'anonymous' })));
  });

  test('no two functions claim the same method and route', () => {
    const keys = routes.flatMap((route) => route.methods.map((method) => `${method} ${route.route.toLowerCase()}`));
    expect(new Set(keys).size).toBe(keys.length);
  });

  test.each(expected.filter((entry) => entry.access === 'bearer' || entry.access === 'jwt').flatMap((entry) => entry.methods.map((method) => [method, entry.route] as const)))(
    '%s /api/%s answers 401 with WWW-Authenticate without a token, with a forged one, and with an unknown API key',
    async (method, route) => {
      const path = `/${route.replace('{id}', '01a200d3-a1e6-709a-8ed4-fc8ee3c3c6df').replace('{recipientId}', '01a200d3-a1e6-709a-8ed4-fc8ee3c3c6e0')}`;
      const json = method === 'GET' ? undefined : {};
      const missing = await env.api.request(method, path, json === undefined ? {} : { json });
      expectProblem(missing, 401);
      expect(missing.headers.get('www-authenticate')).toBe('Bearer');
      const forged = await env.api.request(method, path, { token: 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.', ...(json === undefined ? {} : { json }) });
      expectProblem(forged, 401);
      expect(forged.headers.get('www-authenticate')).toContain('error="invalid_token"');
      const unknownKey = await env.api.request(method, path, { token: `esk_${'A'.repeat(43)}`, ...(json === undefined ? {} : { json }) });
      expectProblem(unknownKey, 401);
      expect(unknownKey.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    },
  );
});

describe('API keys on owner routes', () => {
  test.each(expected.filter((entry) => entry.access === 'bearer').flatMap((entry) => entry.methods.map((method) => [method, entry.route] as const)))(
    '%s /api/%s accepts an owner\'s API key as the owner\'s access token: the same answer',
    async (method, route) => {
      // Two owners in the same state, so that a route with state of its own (a cooldown) answers both alike.
      const [user, keyOwner] = await Promise.all([env.newUser(), env.newUser()]);
      const created = await env.api.request('POST', '/apikeys', { token: keyOwner.token, json: { name: 'routes' } });
      const path = `/${route.replace('{id}', '01a200d3-a1e6-709a-8ed4-fc8ee3c3c6df').replace('{recipientId}', '01a200d3-a1e6-709a-8ed4-fc8ee3c3c6e0').replace('{deliveryId}', '01a200d3-a1e6-709a-8ed4-fc8ee3c3c6e1')}`;
      const json = method === 'GET' || method === 'DELETE' ? undefined : {};
      const withToken = await env.api.request(method, path, { token: user.token, ...(json === undefined ? {} : { json }) });
      const withKey = await env.api.request(method, path, { token: created.body.key, ...(json === undefined ? {} : { json }) });
      expect([withKey.status, (withKey.body as { type?: string }).type]).toEqual([withToken.status, (withToken.body as { type?: string }).type]);
      expect(withKey.status).not.toBe(401);
    },
  );
});

describe('signing routes', () => {
  test.each(expected.filter((entry) => entry.access === 'signing').flatMap((entry) => entry.methods.map((method) => [method, entry.route] as const)))(
    '%s /api/%s answers 401 with error="invalid_token" without a signing token, with an unknown one, and with an owner JWT',
    async (method, route) => {
      const user = await env.newUser();
      const json = method === 'GET' ? undefined : {};
      for (const token of [undefined, 'A'.repeat(43), user.token]) {
        const response = await env.api.request(method, `/${route}`, { ...(token === undefined ? {} : { token }), ...(json === undefined ? {} : { json }) });
        expectProblem(response, 401);
        expect(response.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
      }
    },
  );
});

/**
 * Request validation at the boundary (docs/api.md#conventions, docs/api.md#accounts, docs/api.md#the-envelope, docs/api.md#create-an-envelope-and-upload-its-document, docs/api.md#list-envelopes): every refusal names the field, and
 * the OpenAPI document accepts exactly what the schemas accept.
 */
import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { loginRequest, registerRequest } from '../../src/lib/auth/schemas.js';
import { fieldInput, listEnvelopesQuery, signerInput, updateEnvelopeRequest, uploadRequest } from '../../src/lib/envelopes/schemas.js';
import { createWebhookRequest } from '../../src/lib/notifications/webhooks/schemas.js';
import { completeSigningRequest, declineSigningRequest } from '../../src/lib/recipients/schemas.js';
import { parseWith } from '../../src/lib/http/body.js';
import { AppError } from '../../src/lib/errors.js';
import { buildOpenApiDocument } from '../../src/lib/openapi/document.js';
import type { z } from 'zod';
import { OpenApiResponseValidator } from '../support/openapiValidator.js';

function refusedPaths(schema: z.ZodType, value: unknown): string[] {
  try {
    parseWith(schema, value);
  } catch (error) {
    if (error instanceof AppError && error.code === 'bad_request') return (error.errors ?? []).map((entry) => entry.path);
    throw error;
  }
  return [];
}

const signer = (email: string, extra: Record<string, unknown> = {}) => ({ email, name: 'Someone', ...extra });

describe('register request', () => {
  const valid = { email: '  Ada@Example.COM ', password: 'correct horse', invitationCode: 'inv_x' };
  test('normalizes the e-mail address', () => {
    expect(parseWith(registerRequest, valid).email).toBe('ada@example.com');
  });
  test.each([
    [{ ...valid, email: 'not-an-address' }, 'email'],
    [{ ...valid, email: `${'a'.repeat(250)}@example.com` }, 'email'],
    [{ ...valid, password: 'short' }, 'password'],
    [{ ...valid, password: 'é'.repeat(37) }, 'password'],
    [{ email: valid.email, password: valid.password }, 'invitationCode'],
    [{ ...valid, role: 'admin' }, 'role'],
    [{ ...valid, userId: 'x' }, 'userId'],
  ])('refuses %j naming %s', (body, path) => {
    expect(refusedPaths(registerRequest, body)).toContain(path);
  });
  test('accepts a password of exactly 72 bytes', () => {
    expect(refusedPaths(registerRequest, { ...valid, password: 'a'.repeat(72) })).toEqual([]);
  });
});

describe('login request', () => {
  test('refuses missing fields', () => {
    expect(refusedPaths(loginRequest, {})).toEqual(expect.arrayContaining(['email', 'password']));
  });
});

describe('update envelope request', () => {
  test('drops null and {} entries', () => {
    const parsed = parseWith(updateEnvelopeRequest, { signers: [null, {}, signer('a@example.com')] });
    expect(parsed.signers).toEqual([{ email: 'a@example.com', name: 'Someone', role: 'signer', routingOrder: 1 }]);
  });
  test.each([
    [{ signers: [signer('a@example.com', { id: 'x', recipientId: 'y' })] }, 'signers.0.recipientId'],
    [{ signers: [signer('a@example.com'), signer('A@EXAMPLE.com')] }, 'signers.1.email'],
    [{ signers: [signer('nope')] }, 'signers.0.email'],
    [{ signers: [{ email: 'a@example.com' }] }, 'signers.0.name'],
    [{ signers: [signer('a@example.com', { name: 'x'.repeat(201) })] }, 'signers.0.name'],
    [{ signers: [signer('a@example.com', { role: 'owner' })] }, 'signers.0.role'],
    [{ signers: [signer('a@example.com', { ownerId: 'me' })] }, 'signers.0.ownerId'],
    [{ signers: Array.from({ length: 101 }, (_, index) => signer(`s${index}@example.com`)) }, 'signers'],
    [{ status: 'archived' }, 'status'],
    [{ hash: 'abc' }, 'hash'],
    [{ signers: 'everyone' }, 'signers'],
  ])('refuses %#: names %s', (body, path) => {
    expect(refusedPaths(updateEnvelopeRequest, body)).toContain(path);
  });
  test('accepts 100 signers and the four roles', () => {
    const roles = ['signer', 'approver', 'viewer', 'cc'];
    const signers = Array.from({ length: 100 }, (_, index) => signer(`s${index}@example.com`, { role: roles[index % 4] }));
    expect(parseWith(updateEnvelopeRequest, { signers }).signers).toHaveLength(100);
  });
});

describe('upload request', () => {
  test.each(['../x.pdf', 'a/b.pdf', 'a\\b.pdf', 'a\u0000.pdf', 'a\n.pdf', `${'x'.repeat(197)}.pdf`, 'contract.docx', '.pdf', '..pdf'])(
    'refuses the file name %j',
    (filename) => {
      expect(refusedPaths(uploadRequest, { filename, mimetype: 'application/pdf' })).toContain('filename');
    },
  );
  test.each(['contract.pdf', 'Vertrag Nr. 7.PDF', '合同.pdf', `${'x'.repeat(196)}.pdf`])('accepts %j', (filename) => {
    expect(refusedPaths(uploadRequest, { filename, mimetype: 'application/pdf' })).toEqual([]);
  });
});

describe('list query', () => {
  test.each(['0', '1001', '-1', 'ten', '1.5'])('refuses limit=%s', (limit) => {
    expect(refusedPaths(listEnvelopesQuery, { limit })).toContain('limit');
  });
  test('accepts 1, 100 and leading zeros (0050), refuses 101 and 1000', () => {
    expect(parseWith(listEnvelopesQuery, { limit: '1' }).limit).toBe(1);
    expect(parseWith(listEnvelopesQuery, { limit: '100' }).limit).toBe(100);
    expect(parseWith(listEnvelopesQuery, { limit: '0050' }).limit).toBe(50);
    expect(refusedPaths(listEnvelopesQuery, { limit: '101' })).toEqual(['limit']);
    expect(refusedPaths(listEnvelopesQuery, { limit: '1000' })).toEqual(['limit']);
  });
  test('refuses unknown parameters', () => {
    expect(refusedPaths(listEnvelopesQuery, { ownerId: 'someone' })).toContain('ownerId');
  });
});

describe('long text in Table Storage properties', () => {
  test('splits on whole code points and reads back the same text', async () => {
    const { CHUNK_CHARS, readLongText, writeLongText } = await import('../../src/lib/storage/longText.js');
    const text = `${'a'.repeat(CHUNK_CHARS - 1)}😀${'名'.repeat(CHUNK_CHARS)}😀`;
    const entity: Record<string, unknown> = {};
    writeLongText(entity, 'signers', text);
    expect(entity.signersParts).toBe(3);
    for (let index = 0; index < 3; index++) {
      const part = entity[`signers${index}`] as string;
      expect(part.length).toBeLessThanOrEqual(CHUNK_CHARS);
      expect(part.isWellFormed()).toBe(true);
    }
    expect(readLongText(entity, 'signers')).toBe(text);
    const short: Record<string, unknown> = {};
    writeLongText(short, 'details', '{"a":1}');
    expect(short).toEqual({ details: '{"a":1}' });
    expect(readLongText(short, 'details')).toBe('{"a":1}');
  });
});

describe('lengths count characters (code points), as JSON Schema does', () => {
  const account = { email: 'ada@example.com', invitationCode: 'inv_x' };
  test('a password of 8 emoji (16 UTF-16 code units, 32 bytes) is accepted; one of 4 emoji (8 code units) is too short', () => {
    expect(refusedPaths(registerRequest, { ...account, password: '😀'.repeat(8) })).toEqual([]);
    expect(refusedPaths(registerRequest, { ...account, password: '😀'.repeat(4) })).toEqual(['password']);
  });
  test('a signer name of 200 emoji is accepted, 201 refused', () => {
    expect(refusedPaths(updateEnvelopeRequest, { signers: [signer('a@example.com', { name: '😀'.repeat(200) })] })).toEqual([]);
    expect(refusedPaths(updateEnvelopeRequest, { signers: [signer('a@example.com', { name: '😀'.repeat(201) })] })).toEqual(['signers.0.name']);
  });
  test('a login password of 1024 emoji is accepted, 1025 refused', () => {
    expect(refusedPaths(loginRequest, { email: 'a@example.com', password: '😀'.repeat(1024) })).toEqual([]);
    expect(refusedPaths(loginRequest, { email: 'a@example.com', password: '😀'.repeat(1025) })).toEqual(['password']);
  });
  test('a login e-mail is measured before it is lower-cased (U+0130 lower-cases into two code units)', () => {
    expect(refusedPaths(loginRequest, { email: 'İ'.repeat(254), password: 'x' })).toEqual([]);
    expect(refusedPaths(loginRequest, { email: 'İ'.repeat(255), password: 'x' })).toEqual(['email']);
  });
});

describe('e-mail addresses are checked before they are lower-cased', () => {
  test('U+212A KELVIN SIGN, which lower-cases into "k", is refused rather than turned into another address', () => {
    expect(refusedPaths(registerRequest, { email: '\u212Aate@example.com', password: 'correct horse', invitationCode: 'inv_x' })).toEqual(['email']);
    expect(refusedPaths(updateEnvelopeRequest, { signers: [signer('\u212Aate@example.com')] })).toEqual(['signers.0.email']);
  });
  test('an address of 254 characters after trimming is accepted, 255 refused', () => {
    const address = (length: number) => `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(length - 64 - 1 - 63 - 1 - 63 - 1 - 4)}.com`;
    expect(address(254)).toHaveLength(254);
    expect(parseWith(registerRequest, { email: `  ${address(254).toUpperCase()}\u3000`, password: 'correct horse', invitationCode: 'inv_x' }).email).toBe(address(254));
    expect(refusedPaths(registerRequest, { email: address(255), password: 'correct horse', invitationCode: 'inv_x' })).toEqual(['email']);
  });
});

/**
 * The text rules (docs/api.md#text-the-service-accepts, `src/lib/text.ts`): every text a client sends refuses control
 * characters, U+2028, U+2029 and unpaired surrogates, wherever they stand (before trimming too), with a
 * complaint naming the field; e-mail addresses refuse bidirectional controls as well. Passwords are
 * the one exception.
 */
describe('text the service accepts', () => {
  const refused = ['\u0000', '\u0009', '\u000A', '\u000D', '\u001F', '\u007F', '\u0085', '\u009F', '\u2028', '\u2029', '\uD800', '\uDFFF'];
  const bidi = ['\u061C', '\u200E', '\u200F', '\u202A', '\u202E', '\u2066', '\u2069'];
  const fieldOf = (recipientId: string, label: string) => ({ recipientId, type: 'text', page: 1, x: 0.1, y: 0.1, width: 0.2, height: 0.1, label });
  /** Each text field: a body holding `text` in it, and the path the complaint must name. */
  const texts: [string, z.ZodType, (text: string) => unknown, string][] = [
    ['signer name', updateEnvelopeRequest, (text) => ({ signers: [signer('a@example.com', { name: `Ada${text}Lovelace` })] }), 'signers.0.name'],
    ['signer name (at an edge)', updateEnvelopeRequest, (text) => ({ signers: [signer('a@example.com', { name: `Ada${text}` })] }), 'signers.0.name'],
    ['field label', updateEnvelopeRequest, (text) => ({ fields: [fieldOf('s1', `Start${text}date`)] }), 'fields.0.label'],
    ['file name', uploadRequest, (text) => ({ filename: `con${text}tract.pdf`, mimetype: 'application/pdf' }), 'filename'],
    ['decline reason', declineSigningRequest, (text) => ({ reason: `Wrong${text}date` }), 'reason'],
    ['decline reason (at an edge)', declineSigningRequest, (text) => ({ reason: `Wrong date${text}` }), 'reason'],
    ['typed signature', completeSigningRequest, (text) => ({ consent: true, signature: { typed: `Ada${text}` } }), 'signature'],
    ['text value', completeSigningRequest, (text) => ({ consent: true, values: [{ fieldId: 'f1', value: `a${text}b` }] }), 'values.0.value'],
    ['webhook description', createWebhookRequest, (text) => ({ url: 'https://hooks.example.com/x', description: `CRM${text}sync` }), 'description'],
    ['webhook url', createWebhookRequest, (text) => ({ url: `https://hooks.example.com/${text}` }), 'url'],
    ['register e-mail (at an edge)', registerRequest, (text) => ({ email: `ada@example.com${text}`, password: 'correct horse', invitationCode: 'inv_x' }), 'email'],
    ['signer e-mail (at an edge)', updateEnvelopeRequest, (text) => ({ signers: [signer(`${text}ada@example.com`)] }), 'signers.0.email'],
    ['login e-mail', loginRequest, (text) => ({ email: `ada${text}@example.com`, password: 'x' }), 'email'],
  ];

  test.each(texts)('%s: refuses every control character, U+2028, U+2029 and unpaired surrogates, naming the field', (_name, schema, body, path) => {
    for (const character of refused) expect([JSON.stringify(character), refusedPaths(schema, body(character))]).toEqual([JSON.stringify(character), [path]]);
    expect(refusedPaths(schema, body('😀 é 名\u00A0'))).toEqual(/^(email|signers\.0\.email)$/.test(path) && schema !== loginRequest ? [path] : []);
  });

  test('the complaint names the character', () => {
    expect(() => parseWith(fieldInput, fieldOf('s1', 'a\u2028b'))).toThrow('label must not contain U+2028');
    expect(() => parseWith(uploadRequest, { filename: 'a\uD800.pdf', mimetype: 'application/pdf' })).toThrow('filename must not contain U+D800');
  });

  test('e-mail addresses also refuse bidirectional controls; other texts keep them (right-to-left names need them)', () => {
    for (const character of bidi) {
      expect(refusedPaths(loginRequest, { email: `ada${character}@example.com`, password: 'x' })).toEqual(['email']);
      expect(refusedPaths(registerRequest, { email: `${character}ada@example.com`, password: 'correct horse', invitationCode: 'inv_x' })).toEqual(['email']);
      expect(refusedPaths(updateEnvelopeRequest, { signers: [signer('a@example.com', { name: `${character}שלום` })] })).toEqual([]);
    }
  });

  test('passwords are not texts: any character is accepted', () => {
    expect(refusedPaths(registerRequest, { email: 'ada@example.com', password: 'pass\u0000\u2028\uD800word', invitationCode: 'inv_x' })).toEqual([]);
    expect(refusedPaths(loginRequest, { email: 'ada@example.com', password: '\u0007\uDFFF' })).toEqual([]);
  });
});

/**
 * The OpenAPI document's request schemas against the zod schemas that validate requests: the
 * document accepts exactly what zod accepts, apart from the rules it states only in words (the
 * password's bytes, unique e-mail addresses and ids in a signer list, `id` equal to `recipientId`).
 * Checked exhaustively for every character where a character class decides, and with generated
 * bodies for the rest. (That the service answers as zod does is `tests/e2e/openapi.test.ts`.)
 */
describe('the OpenAPI document accepts exactly what the request schemas accept', () => {
  const document = buildOpenApiDocument();
  const validator = new OpenApiResponseValidator(document);
  // One object per component: the validator compiles a schema once per object (ajv's cache is by identity).
  const components = new Map<string, Record<string, unknown>>();
  const component = (name: string): Record<string, unknown> => {
    if (!components.has(name)) components.set(name, { $ref: `#/components/schemas/${name}` });
    return components.get(name)!;
  };
  /** Messages of the rules the document states in words only. */
  const beyondJsonSchema = [/^must be at most 72 bytes in UTF-8$/, /^repeats the (e-mail address|id) of signer \d+$/, /^must equal id when both are sent$/];

  /** `[accepted by zod, refused by zod for rules beyond JSON Schema only, accepted by the document]`. */
  function verdicts(schema: z.ZodType, documentSchema: Record<string, unknown>, value: unknown): [boolean, boolean, boolean] {
    const parsed = schema.safeParse(value);
    const onlyBeyond = !parsed.success && parsed.error.issues.every((issue) => beyondJsonSchema.some((rule) => rule.test(issue.message)));
    return [parsed.success, onlyBeyond, validator.validateValue(documentSchema, value) === null];
  }

  /** Fails with the values on which zod and the document disagree. */
  function expectAgreement(schema: z.ZodType, documentSchema: Record<string, unknown>, values: Iterable<unknown>): void {
    const disagreements: string[] = [];
    for (const value of values) {
      const [zodAccepts, onlyBeyond, documentAccepts] = verdicts(schema, documentSchema, value);
      if (documentAccepts !== (zodAccepts || onlyBeyond)) disagreements.push(`${JSON.stringify(value)}: zod ${zodAccepts ? 'accepts' : 'refuses'}, the document ${documentAccepts ? 'accepts' : 'refuses'}`);
      if (disagreements.length >= 5) break;
    }
    expect(disagreements).toEqual([]);
  }

  /** Every code point of the Basic Multilingual Plane, lone surrogates included, and a few beyond. */
  function* everyCharacter(): Generator<string> {
    for (let code = 0; code <= 0xffff; code++) yield String.fromCharCode(code);
    yield* ['😀', '𝒜', '\u{10FFFF}'];
  }
  const map = function* <T>(values: Iterable<string>, toValue: (character: string) => T): Generator<T> {
    for (const value of values) yield toValue(value);
  };

  /** A field's zod schema and its schema in the document, for checks one field at a time. */
  function field(schema: z.ZodObject, componentName: string, name: string): [z.ZodType, Record<string, unknown>] {
    const properties = (document.components as { schemas: Record<string, { properties: Record<string, Record<string, unknown>> }> }).schemas[componentName]!.properties;
    return [schema.shape[name] as z.ZodType, properties[name]!];
  }

  test('every character, inside and at the edges of a file name', () => {
    const [schema, documentSchema] = field(uploadRequest, 'UploadRequest', 'filename');
    expectAgreement(schema, documentSchema, map(everyCharacter(), (c) => `a${c}b.pdf`));
    expectAgreement(schema, documentSchema, map(everyCharacter(), (c) => `${c}a.pdf`));
    expectAgreement(schema, documentSchema, map(everyCharacter(), (c) => `${c}.pdf`));
  });

  test('every character, inside and at the edges of a signer name', () => {
    const [schema, documentSchema] = field(signerInput, 'SignerInput', 'name');
    expectAgreement(schema, documentSchema, map(everyCharacter(), (c) => `a${c}b`));
    expectAgreement(schema, documentSchema, map(everyCharacter(), (c) => `${c}ab`));
    expectAgreement(schema, documentSchema, map(everyCharacter(), (c) => c));
  });

  test('every character, inside and at the edges of a field label, a decline reason and a webhook description', () => {
    const update = (document.components as { schemas: Record<string, any> }).schemas.UpdateEnvelopeRequest;
    const labelDocument = update.properties.fields.items.properties.label as Record<string, unknown>;
    expectAgreement(fieldInput.shape.label, labelDocument, map(everyCharacter(), (c) => `a${c}b`));
    const [reason, reasonDocument] = field(declineSigningRequest, 'DeclineSigningRequest', 'reason');
    expectAgreement(reason, reasonDocument, map(everyCharacter(), (c) => `a${c}b`));
    expectAgreement(reason, reasonDocument, map(everyCharacter(), (c) => `${c}a`));
    const [description, descriptionDocument] = field(createWebhookRequest, 'CreateWebhookRequest', 'description');
    expectAgreement(description, descriptionDocument, map(everyCharacter(), (c) => `a${c}`));
  });

  test('every character, in the local part, the domain and the edges of an e-mail address', () => {
    const [schema, documentSchema] = field(registerRequest, 'RegisterRequest', 'email');
    expectAgreement(schema, documentSchema, map(everyCharacter(), (c) => `a${c}b@example.com`));
    expectAgreement(schema, documentSchema, map(everyCharacter(), (c) => `ab@exa${c}mple.com`));
    expectAgreement(schema, documentSchema, map(everyCharacter(), (c) => `${c}ab@example.com${c}`));
    const [loginSchema, loginDocumentSchema] = field(loginRequest, 'LoginRequest', 'email');
    expectAgreement(loginSchema, loginDocumentSchema, everyCharacter());
    expectAgreement(loginSchema, loginDocumentSchema, map(everyCharacter(), (c) => `${c}a${c}`));
  });

  // Generated values: characters that matter to some rule (white space, control characters, path
  // separators, e-mail punctuation, multi-byte and astral characters, a lone surrogate, U+212A), at
  // lengths around every limit.
  const alphabet = fc.constantFrom(
    'a', 'Z', '0', '.', '@', '-', '_', "'", '+', ';', '/', '\\', 'p', 'd', 'f', 'P', 'D', 'F',
    ' ', '\t', '\n', '\u000b', '\u00a0', '\u2028', '\ufeff', '\u3000',
    '\u0000', '\u001f', '\u007f', '\u0085', '\u009f', 'é', '名', '😀', '\u212a', '\u0130', '\ud800',
  );
  const text = (maxLength: number) => fc.array(alphabet, { maxLength }).map((characters) => characters.join(''));
  /** Text of about `limit` characters, made of one repeated character and a few more around it. */
  const near = (limit: number) =>
    fc
      .tuple(text(3), fc.constantFrom('a', 'é', '😀', ' ', '名'), fc.integer({ min: Math.max(0, limit - 4), max: limit + 2 }), text(3))
      .map(([head, character, count, tail]) => `${head}${character.repeat(count)}${tail}`);
  const anyText = (limit: number) => fc.oneof(text(12), near(limit));
  const label = fc.array(fc.constantFrom('a', 'z', '0', '-', 'K', '\u212a', '_', 'é'), { minLength: 0, maxLength: 8 }).map((characters) => characters.join(''));
  const emailLike = fc.oneof(
    fc
      .tuple(fc.constantFrom('', ' ', '\t', '\u00a0'), fc.array(fc.oneof(label, fc.constantFrom('.', "'", '+')), { maxLength: 4 }), fc.array(label, { minLength: 1, maxLength: 3 }), fc.constantFrom('', ' ', '\n'))
      .map(([before, local, domain, after]) => `${before}${local.join('')}@${domain.join('.')}${after}`),
    // Valid addresses of about 254 characters, with white space around and capitals.
    fc
      .tuple(fc.constantFrom('', '  ', '\u3000'), fc.integer({ min: 250, max: 258 }), fc.boolean(), fc.constantFrom('', '\t', '\n '))
      .map(([before, length, capitals, after]) => `${before}${capitals ? 'A' : 'a'}${'a'.repeat(63)}@${'b'.repeat(length - 64 - 1 - 4)}.com${after}`),
    anyText(254),
  );
  const runs = { numRuns: 600, seed: 20261122 };

  test('register bodies', () => {
    const body = fc.record(
      { email: emailLike, password: fc.oneof(anyText(8), anyText(37), anyText(72)), invitationCode: anyText(200), turnstileToken: anyText(2048), role: fc.constant('admin') },
      { requiredKeys: [] },
    );
    fc.assert(fc.property(body, (value) => expectAgreement(registerRequest, component('RegisterRequest'), [value])), runs);
  });

  test('login bodies', () => {
    const body = fc.record({ email: fc.oneof(emailLike, anyText(254)), password: fc.oneof(anyText(1), anyText(1024)), turnstileToken: anyText(2048) }, { requiredKeys: [] });
    fc.assert(fc.property(body, (value) => expectAgreement(loginRequest, component('LoginRequest'), [value])), runs);
  });

  test('upload bodies with a PDF media type', () => {
    const filename = fc.oneof(
      fc.tuple(fc.oneof(text(6), near(196)), fc.constantFrom('.pdf', '.PDF', '.pDf', '.pdf ', 'pdf', '.docx', '', '.pdf\u0000')).map(([name, end]) => `${name}${end}`),
      fc.tuple(fc.constantFrom('..', '.', ' ', '\u3000', '/', ''), text(4)).map(([start, name]) => `${start}${name}.pdf`),
    );
    const body = fc.record({ filename, mimetype: fc.constantFrom('application/pdf', ' APPLICATION/PDF ; q=1') }, { requiredKeys: ['mimetype'] });
    fc.assert(fc.property(body, (value) => expectAgreement(uploadRequest, component('UploadRequest'), [value])), runs);
  });

  test('update bodies: signer lists with dropped entries, limits, duplicates and unknown fields', () => {
    const signerEntry = fc.oneof(
      { weight: 1, arbitrary: fc.constantFrom(null, {}, [], 'x', 7, { ownerId: 'me' }) },
      {
        weight: 6,
        arbitrary: fc.record(
          {
            id: fc.oneof(fc.constantFrom('s1', 's2'), anyText(100)),
            recipientId: fc.constantFrom('s1', 's2'),
            email: fc.oneof(fc.constantFrom('a@example.com', 'A@Example.com ', 'b@example.com'), emailLike),
            name: fc.oneof(fc.constantFrom('Bob', ' Bob\t'), anyText(200)),
            role: fc.constantFrom('signer', 'approver', 'viewer', 'cc', 'owner', null),
          },
          { requiredKeys: [] },
        ),
      },
    );
    const manySigners = fc
      .tuple(fc.integer({ min: 98, max: 102 }), fc.array(fc.constantFrom(null, {}), { maxLength: 4 }))
      .map(([count, dropped]) => [...dropped, ...Array.from({ length: count }, (_, index) => ({ email: `s${index}@example.com`, name: `Signer ${index}` }))]);
    const body = fc.record(
      { signers: fc.oneof(fc.array(signerEntry, { maxLength: 4 }), manySigners, fc.constantFrom(null, 'everyone', {})), status: fc.constantFrom('draft', 'sent', 'completed', 'voided', 'archived', null) },
      { requiredKeys: [] },
    );
    fc.assert(fc.property(body, (value) => expectAgreement(updateEnvelopeRequest, component('UpdateEnvelopeRequest'), [value])), runs);
  });

  test('list queries: limit, cursor and status, each against its parameter', () => {
    const parameters = new Map(
      ((document.paths as Record<string, any>)['/envelopes'].get.parameters as { name: string; schema: Record<string, unknown> }[]).map((parameter) => [parameter.name, parameter.schema]),
    );
    // `limit` is an integer in the document, written in decimal in the query: every integer is
    // accepted by one exactly when by the other; other ways of writing a number are refused.
    fc.assert(
      fc.property(fc.integer({ min: -2, max: 1003 }), (value) => {
        const zodAccepts = listEnvelopesQuery.safeParse({ limit: String(value) }).success;
        expect([value, validator.validateValue(parameters.get('limit')!, value) === null]).toEqual([value, zodAccepts]);
      }),
      runs,
    );
    for (const written of [' 5', '+5', '1e1', '５', '10 ', '0x10', '1.0', '', '00005', '-0']) {
      expect([written, listEnvelopesQuery.safeParse({ limit: written }).success]).toEqual([written, false]);
    }
    const cursor = fc.oneof(
      fc.array(fc.constantFrom('A', 'z', '0', '-', '_'), { maxLength: 6 }).map((characters) => characters.join('')),
      fc.integer({ min: 198, max: 202 }).map((length) => 'A'.repeat(length)),
      text(6),
    );
    fc.assert(
      fc.property(cursor, fc.constantFrom('draft', 'sent', 'completed', 'voided', 'Draft', ''), (cursorValue, statusValue) => {
        for (const [name, value] of [['cursor', cursorValue], ['status', statusValue]] as const) {
          const zodAccepts = listEnvelopesQuery.safeParse({ [name]: value }).success;
          const documentAccepts = validator.validateValue(parameters.get(name)!, value) === null;
          expect([name, value, documentAccepts]).toEqual([name, value, zodAccepts]);
        }
      }),
      runs,
    );
  });

  test('the rules the document states in words are the only ones where it accepts what zod refuses', () => {
    const cases: [z.ZodType, string, unknown][] = [
      [registerRequest, 'RegisterRequest', { email: 'a@example.com', password: 'é'.repeat(37), invitationCode: 'inv_x' }],
      [updateEnvelopeRequest, 'UpdateEnvelopeRequest', { signers: [signer('a@example.com'), signer(' A@EXAMPLE.com')] }],
      [updateEnvelopeRequest, 'UpdateEnvelopeRequest', { signers: [signer('a@example.com', { id: 's1' }), signer('b@example.com', { recipientId: 's1' })] }],
      [updateEnvelopeRequest, 'UpdateEnvelopeRequest', { signers: [signer('a@example.com', { id: 's1', recipientId: 's2' })] }],
    ];
    for (const [schema, name, value] of cases) expect(verdicts(schema, component(name), value)).toEqual([false, true, true]);
  });
});

/** Request validation at the boundary (CONTRACT §2, §3, §4, §7): every refusal names the field. */
import { describe, expect, test } from '@jest/globals';
import { loginRequest, registerRequest } from '../../src/lib/auth/schemas.js';
import { listEnvelopesQuery, updateEnvelopeRequest, uploadRequest } from '../../src/lib/envelopes/schemas.js';
import { parseWith } from '../../src/lib/http/body.js';
import { AppError } from '../../src/lib/errors.js';
import type { z } from 'zod';

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
  test('drops null and {} entries (spec §4 rule 3)', () => {
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
  test('accepts 1 and 1000', () => {
    expect(parseWith(listEnvelopesQuery, { limit: '1' }).limit).toBe(1);
    expect(parseWith(listEnvelopesQuery, { limit: '1000' }).limit).toBe(1000);
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

/** Settings (docs/api.md#configuration): defaults, and one line naming a bad setting. */
import { describe, expect, test } from '@jest/globals';
import { loadConfig } from '../../src/lib/config.js';
import { ConfigError } from '../../src/lib/errors.js';

const minimal = { JWT_SECRET: 'x'.repeat(32), SEAL_P12_BASE64: 'AAAA' };

function failure(env: Record<string, string>, options: { localHost?: boolean } = {}): ConfigError {
  try {
    loadConfig(env, options);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  test('applies the documented defaults (docs/api.md#configuration)', () => {
    const config = loadConfig(minimal);
    expect(config.storage).toEqual({ kind: 'connectionString', connectionString: 'UseDevelopmentStorage=true' });
    expect(config.jwt).toMatchObject({ issuer: 'envelope-signing-service', audience: 'envelope-api', ttlSeconds: 3600 });
    expect(config.bcryptCost).toBe(12);
    expect(config.uploadUrlTtlSeconds).toBe(900);
    expect(config.maxDocumentBytes).toBe(26_214_400);
    expect(config.turnstile).toEqual({ secretKey: undefined, verifyUrl: 'https://challenges.cloudflare.com/turnstile/v0/siteverify', required: false });
    expect(config.tsaUrl).toBeUndefined();
    expect(config.port).toBe(7071);
    expect(config.bulkMaxRows).toBe(1000);
  });

  test('the outbound network policy: OUTBOUND_ALLOW_PRIVATE_NETWORKS, or its older name WEBHOOK_ALLOW_PRIVATE_NETWORKS; the new name wins when both are set', () => {
    expect(loadConfig(minimal).outboundAllowPrivateNetworks).toBe(false);
    expect(loadConfig({ ...minimal, OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' }).outboundAllowPrivateNetworks).toBe(true);
    expect(loadConfig({ ...minimal, OUTBOUND_ALLOW_PRIVATE_NETWORKS: '1' }).outboundAllowPrivateNetworks).toBe(true);
    expect(loadConfig({ ...minimal, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' }).outboundAllowPrivateNetworks).toBe(true);
    expect(loadConfig({ ...minimal, WEBHOOK_ALLOW_PRIVATE_NETWORKS: '0' }).outboundAllowPrivateNetworks).toBe(false);
    expect(loadConfig({ ...minimal, OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'false', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' }).outboundAllowPrivateNetworks).toBe(false);
    expect(loadConfig({ ...minimal, OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false' }).outboundAllowPrivateNetworks).toBe(true);
    // An empty value counts as unset: the older name decides.
    expect(loadConfig({ ...minimal, OUTBOUND_ALLOW_PRIVATE_NETWORKS: ' ', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' }).outboundAllowPrivateNetworks).toBe(true);
  });

  test('text messages (docs/api.md#sms): ACS_CONNECTION_STRING with an https endpoint, or http on loopback only; SMS_FROM required with it', () => {
    expect(loadConfig(minimal).sms).toEqual({ connectionString: undefined, endpoint: undefined, from: undefined });
    expect(loadConfig(minimal).smsCatcherPort).toBe(1090);
    const azure = 'endpoint=https://acs-demo.communication.azure.com/;accesskey=c2VjcmV0a2V5MTIzNDU2Nzg5MA==';
    expect(loadConfig({ ...minimal, ACS_CONNECTION_STRING: azure, SMS_FROM: '+18005550100' }).sms).toEqual({ connectionString: azure, endpoint: 'https://acs-demo.communication.azure.com', from: '+18005550100' });
    expect(loadConfig({ ...minimal, ACS_CONNECTION_STRING: 'endpoint=http://127.0.0.1:1090/;accesskey=a2V5', SMS_FROM: 'Signing' }).sms.endpoint).toBe('http://127.0.0.1:1090');
    expect(failure({ ...minimal, ACS_CONNECTION_STRING: 'endpoint=http://acs.example.com/;accesskey=a2V5', SMS_FROM: 'Signing' }).message).toMatch(/ACS_CONNECTION_STRING/);
    expect(failure({ ...minimal, ACS_CONNECTION_STRING: 'endpoint=https://acs.example.com/', SMS_FROM: 'Signing' }).message).toMatch(/ACS_CONNECTION_STRING/);
    expect(failure({ ...minimal, ACS_CONNECTION_STRING: azure }).message).toMatch(/SMS_FROM/);
    for (const from of ['12345', 'Twelve Chars', '+0123456789', '!!!']) expect(failure({ ...minimal, ACS_CONNECTION_STRING: azure, SMS_FROM: from }).message).toMatch(/SMS_FROM/);
  });

  test('RETENTION_DAY_SECONDS (docs/api.md#retention): 86400 by default; another day length only with NODE_ENV=test or on the local host, refused at start anywhere else', () => {
    expect(loadConfig(minimal, { localHost: false }).retentionDaySeconds).toBe(86_400);
    expect(loadConfig({ ...minimal, RETENTION_DAY_SECONDS: '86400' }, { localHost: false }).retentionDaySeconds).toBe(86_400);
    expect(loadConfig({ ...minimal, RETENTION_DAY_SECONDS: '1', NODE_ENV: 'test' }, { localHost: false }).retentionDaySeconds).toBe(1);
    expect(loadConfig({ ...minimal, RETENTION_DAY_SECONDS: '60' }, { localHost: true }).retentionDaySeconds).toBe(60);
    for (const nodeEnv of [undefined, 'production', 'development']) {
      const error = failure({ ...minimal, RETENTION_DAY_SECONDS: '1', ...(nodeEnv === undefined ? {} : { NODE_ENV: nodeEnv }), WEBSITE_SITE_NAME: 'envelopes', PUBLIC_BASE_URL: 'https://sign.example.com' }, { localHost: false });
      expect(error.setting).toBe('RETENTION_DAY_SECONDS');
      expect(error.message).toMatch(/^Invalid setting RETENTION_DAY_SECONDS: is for tests only/);
    }
    for (const bad of ['0', '86401', 'a day']) expect(failure({ ...minimal, RETENTION_DAY_SECONDS: bad, NODE_ENV: 'test' }).setting).toBe('RETENTION_DAY_SECONDS');
    expect(loadConfig(minimal).sealedRetentionDays).toBe(3650);
    expect(failure({ ...minimal, SEALED_RETENTION_DAYS: '0' }).setting).toBe('SEALED_RETENTION_DAYS');
  });

  test('uses managed identity when only STORAGE_ACCOUNT_NAME is set, the connection string when both are', () => {
    expect(loadConfig({ ...minimal, STORAGE_ACCOUNT_NAME: 'envelopes01' }).storage).toEqual({ kind: 'managedIdentity', accountName: 'envelopes01' });
    expect(loadConfig({ ...minimal, STORAGE_ACCOUNT_NAME: 'envelopes01', STORAGE_CONNECTION_STRING: 'UseDevelopmentStorage=true' }).storage.kind).toBe('connectionString');
  });

  test.each([
    [{ JWT_SECRET: 'x'.repeat(31) }, 'JWT_SECRET'],
    [{ JWT_SECRET: '' }, 'JWT_SECRET'],
    [{ BCRYPT_COST: '9' }, 'BCRYPT_COST'],
    [{ BCRYPT_COST: 'twelve' }, 'BCRYPT_COST'],
    [{ UPLOAD_URL_TTL_SECONDS: '0' }, 'UPLOAD_URL_TTL_SECONDS'],
    [{ UPLOAD_URL_TTL_SECONDS: '86401' }, 'UPLOAD_URL_TTL_SECONDS'],
    [{ TSA_URL: 'ftp://tsa.example' }, 'TSA_URL'],
    [{ TURNSTILE_REQUIRED: 'yes' }, 'TURNSTILE_REQUIRED'],
    [{ OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'yes' }, 'OUTBOUND_ALLOW_PRIVATE_NETWORKS'],
    [{ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'yes' }, 'WEBHOOK_ALLOW_PRIVATE_NETWORKS'],
    [{ SEAL_P12_BASE64: '' }, 'SEAL_P12_BASE64'],
    [{ STORAGE_ACCOUNT_NAME: 'Bad_Name' }, 'STORAGE_ACCOUNT_NAME'],
    [{ JWT_SECRET: '@Microsoft.KeyVault(SecretUri=https://vault.vault.azure.net/secrets/jwt-secret/)' }, 'JWT_SECRET'],
  ])('refuses %j naming the setting', (override, setting) => {
    const error = failure({ ...minimal, ...override });
    expect(error.setting).toBe(setting);
    expect(error.message).toMatch(new RegExp(`^Invalid setting ${setting}: `));
    expect(error.message).not.toContain('\n');
  });
});

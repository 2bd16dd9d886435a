/**
 * What telemetry never exports (docs/api.md#telemetry): the filter every log line, error message and
 * string attribute passes through, and the choice of exporter from the settings.
 */
import { describe, expect, test } from '@jest/globals';
import { redact, telemetryExporter } from '../../../src/lib/telemetry/index.js';
import { entraClientId } from '../../../src/lib/telemetry/sdk.js';

describe('redact', () => {
  test('replaces e-mail addresses, wherever they sit', () => {
    expect(redact('Sending to ada.lovelace+test@example.co.uk failed')).toBe('Sending to [email] failed');
    expect(redact('<bob@example.com>, cat@sub.example.org')).toBe('<[email]>, [email]');
  });

  test('replaces SAS signatures and other secrets of a query string, and Authorization credentials', () => {
    expect(redact('GET https://acct.blob.core.windows.net/documents/x.pdf?sv=2025-01-05&sig=AbC%2Bd%2Fef%3D&se=2026')).toBe(
      'GET https://acct.blob.core.windows.net/documents/x.pdf?sv=2025-01-05&sig=[redacted]&se=2026',
    );
    expect(redact('code=123456 token=abc key=xyz')).toBe('code=[redacted] token=[redacted] key=[redacted]');
    expect(redact('Authorization: Bearer esk_abc and Basic dXNlcjpwYXNz')).toBe('Authorization: Bearer [redacted] and Basic [redacted]');
    expect(redact('SMTP smtp://mailer:s3cret@smtp.example.com:587 refused')).toBe('SMTP smtp://[redacted]@smtp.example.com:587 refused');
  });

  test('replaces JWTs and long random strings (tokens, API keys, invitation codes, webhook secrets)', () => {
    expect(redact('token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl here')).toBe('token [jwt] here');
    const token = 'q3F9zT1mK8vL2xW7yB4nH6pR0sD5gJ1a-_Ee9YtUiO0';
    expect(redact(`link ${token} end`)).toBe('link [redacted] end');
    expect(redact(`esk_${token}`)).toBe('[redacted]');
    expect(redact('inv_AbcdefGhijklMnopqrStuvwxYzabcdefGH')).toBe('[redacted]');
  });

  test('keeps ids, hashes, names and ordinary text', () => {
    const text = 'Envelope 0193a7b2-1c2d-7e3f-8a9b-0c1d2e3f4a5b sealed (sha256 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08) via webhook-deliveries-poison in FanOutWebhookEvent after 3 tries';
    expect(redact(text)).toBe(text);
  });
});

describe('telemetryExporter', () => {
  test('Application Insights wins, then OTLP, else none; OTEL_SDK_DISABLED turns it off', () => {
    expect(telemetryExporter({})).toBe('none');
    expect(telemetryExporter({ OTEL_EXPORTER_OTLP_ENDPOINT: ' ' })).toBe('none');
    expect(telemetryExporter({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' })).toBe('otlp');
    expect(telemetryExporter({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces' })).toBe('otlp');
    expect(telemetryExporter({ APPLICATIONINSIGHTS_CONNECTION_STRING: 'InstrumentationKey=x', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' })).toBe('azure-monitor');
    expect(telemetryExporter({ APPLICATIONINSIGHTS_CONNECTION_STRING: 'InstrumentationKey=x', OTEL_SDK_DISABLED: 'true' })).toBe('none');
  });

  test('the managed identity of APPLICATIONINSIGHTS_AUTHENTICATION_STRING', () => {
    expect(entraClientId('ClientId=1b2c;Authorization=AAD')).toBe('1b2c');
    expect(entraClientId('Authorization=AAD')).toBe('');
    expect(entraClientId(undefined)).toBeNull();
    expect(entraClientId('ClientId=1b2c')).toBeNull();
  });
});

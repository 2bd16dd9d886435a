/** Settings the queue and timer functions and `npm start` read: the sweeper's schedule, printed connection strings. */
import { describe, expect, test } from '@jest/globals';
import { ConfigError } from '../../src/lib/errors.js';
import { loadSweepSchedule } from '../../src/lib/sweepSchedule.js';
import { redactConnectionString } from '../../src/local/settings.js';
import { parseSchedule } from '../../src/local/timerRunner.js';

describe('SWEEP_SCHEDULE', () => {
  test('defaults to every five minutes, which the timer runner reads as such', () => {
    const schedule = loadSweepSchedule({});
    expect(schedule).toBe('0 */5 * * * *');
    const [first, second] = parseSchedule(schedule).nextRuns(2, '2026-01-01T00:02:30Z');
    expect(first!.toISOString()).toBe('2026-01-01T00:05:00.000Z');
    expect(second!.toISOString()).toBe('2026-01-01T00:10:00.000Z');
  });

  test('takes six fields, seconds first', () => {
    expect(loadSweepSchedule({ SWEEP_SCHEDULE: ' */10 * * * * * ' })).toBe('*/10 * * * * *');
  });

  test.each(['*/5 * * * *', 'every minute', '0 0 * * * * *'])('%j stops start-up naming SWEEP_SCHEDULE', (value) => {
    expect(() => loadSweepSchedule({ SWEEP_SCHEDULE: value })).toThrow(ConfigError);
    expect(() => loadSweepSchedule({ SWEEP_SCHEDULE: value })).toThrow(/^Invalid setting SWEEP_SCHEDULE: must be an NCRONTAB expression with six fields, seconds first$/);
  });
});

describe('a connection string npm start prints', () => {
  test('loses its account key and SAS signature, and keeps the rest', () => {
    expect(redactConnectionString('DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=c2VjcmV0a2V5==;EndpointSuffix=core.windows.net')).toBe(
      'DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=<redacted>;EndpointSuffix=core.windows.net',
    );
    expect(redactConnectionString('BlobEndpoint=https://a.blob.core.windows.net;SharedAccessSignature=sv=2024&sig=abc%2F')).toBe(
      'BlobEndpoint=https://a.blob.core.windows.net;SharedAccessSignature=<redacted>',
    );
    expect(redactConnectionString('UseDevelopmentStorage=true')).toBe('UseDevelopmentStorage=true');
  });
});

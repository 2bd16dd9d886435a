/** `npm run --silent invite` (docs/api.md#accounts): the code alone on the last line of stdout, usable to register. */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, test } from '@jest/globals';
import { getServices } from '../../src/lib/services.js';

const run = promisify(execFile);

describe('invite command', () => {
  test('prints a new code on the last line of stdout, stored with the requested uses and expiry', async () => {
    const { stdout } = await run(process.execPath, ['dist/src/local/invite.js', '--uses', '3', '--expires-in', '2d'], { env: process.env });
    const lines = stdout.trimEnd().split('\n');
    const code = lines.at(-1)!;
    expect(code).toMatch(/^inv_[A-Za-z0-9_-]{32}$/);
    const invitation = await getServices().invitations.find(code);
    expect(invitation).toMatchObject({ maxUses: 3, uses: 0 });
    const expiresIn = Date.parse(invitation!.expiresAt!) - Date.now();
    expect(expiresIn).toBeGreaterThan(2 * 86_400_000 - 60_000);
    expect(expiresIn).toBeLessThanOrEqual(2 * 86_400_000);
  });

  test('refuses a malformed duration with one line on stderr and a non-zero exit', async () => {
    const failure = await run(process.execPath, ['dist/src/local/invite.js', '--expires-in', 'soon'], { env: process.env }).catch((error: unknown) => error as { code: number; stderr: string; stdout: string });
    expect(failure).toMatchObject({ code: 1, stdout: '' });
    expect((failure as { stderr: string }).stderr.trim().split('\n')).toHaveLength(1);
  });
});

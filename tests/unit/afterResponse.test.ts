/**
 * Work started after a response (`src/lib/afterResponse.ts`): the caller does not wait for it, a
 * stopping host or a benchmark can, and its faults are logged, never thrown at anyone.
 */
import { afterEach, describe, expect, jest, test } from '@jest/globals';
import { AfterResponseWork } from '../../src/lib/afterResponse.js';

/** A promise and the function that resolves it. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open = () => undefined as void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

afterEach(() => {
  jest.restoreAllMocks();
});

describe('AfterResponseWork', () => {
  test('start returns before the work ends; idle resolves once it has', async () => {
    const work = new AfterResponseWork();
    const { opened, open } = gate();
    let done = false;
    work.start('test', async () => {
      await opened;
      done = true;
    });
    expect(work.size).toBe(1);
    let idle = false;
    const waiting = work.idle().then((settled) => {
      idle = settled;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(idle).toBe(false);
    open();
    await waiting;
    expect(done).toBe(true);
    expect(idle).toBe(true);
    expect(work.size).toBe(0);
  });

  test('idle also waits for work started while it waits', async () => {
    const work = new AfterResponseWork();
    const first = gate();
    const second = gate();
    const finished: string[] = [];
    work.start('first', async () => {
      await first.opened;
      // Work that starts more work, as a dispatch could.
      work.start('second', async () => {
        await second.opened;
        finished.push('second');
      });
      finished.push('first');
    });
    const waiting = work.idle();
    first.open();
    await new Promise((resolve) => setImmediate(resolve));
    expect(finished).toEqual(['first']);
    second.open();
    expect(await waiting).toBe(true);
    expect(finished).toEqual(['first', 'second']);
  });

  test('idle with a timeout answers false when the work outlasts it, and the work goes on', async () => {
    const work = new AfterResponseWork();
    const { opened, open } = gate();
    work.start('slow', async () => await opened);
    expect(await work.idle(20)).toBe(false);
    expect(work.size).toBe(1);
    open();
    expect(await work.idle(1000)).toBe(true);
  });

  test('a fault of the work is logged with its label and goes no further', async () => {
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    const work = new AfterResponseWork();
    work.start('Dispatch of batch 42', async () => {
      throw new Error('queue unreachable');
    });
    expect(await work.idle()).toBe(true);
    expect(warn).toHaveBeenCalledWith('Dispatch of batch 42 failed after the response: queue unreachable');
  });

  test('idle with nothing started resolves at once', async () => {
    expect(await new AfterResponseWork().idle()).toBe(true);
  });
});

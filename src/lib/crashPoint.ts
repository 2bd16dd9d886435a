/**
 * Fault injection for the crash tests (docs/api.md#idempotency): with `NODE_ENV=test` and
 * `SERVICE_CRASH_AT=<name>` in its environment, the process kills itself with SIGKILL (no clean-up,
 * no pending write, as a crash ends it) when it reaches the point `name`. Anywhere else, and always
 * unless `NODE_ENV` is `test` (never so in Azure or under `npm start`), it does nothing.
 *
 * With `SERVICE_CRASH_SKIP=<n>` too, the first `n` passes through the point go on, and the next one
 * kills: a point reached once per item of a job (a bulk row) then ends the process mid-job.
 *
 * Points: `idempotency.claimed` (an idempotency key claimed, the request's work not started) and
 * `idempotency.answered` (the work done and answered, the answer not yet kept), `http/idempotency.ts`;
 * `log.beforeAppend` (an envelope's completion committed, its leaves not yet appended to the public
 * log), `envelopes/complete.ts`;
 * `completion.partlySealed` (an envelope of several documents: a document after the first sealed and
 * stored, the envelope not yet completed), `envelopes/complete.ts`;
 * `bulk.rowMade` (a bulk row's envelope made and sent, the row not yet recorded), `bulk/runner.ts`.
 */

/** Passes through each point so far in this process. */
const passes = new Map<string, number>();

/** Ends the process at once with SIGKILL when the test environment names `name` (see the module comment). */
export function crashPoint(name: string): void {
  if (process.env.NODE_ENV !== 'test' || process.env.SERVICE_CRASH_AT !== name) return;
  const passed = passes.get(name) ?? 0;
  passes.set(name, passed + 1);
  if (passed < Number(process.env.SERVICE_CRASH_SKIP ?? 0)) return;
  process.kill(process.pid, 'SIGKILL');
  // The signal ends the process; nothing after this point may run meanwhile.
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10_000);
}

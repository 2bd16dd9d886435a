/**
 * Fault injection for the crash tests (docs/api.md#idempotency): with `NODE_ENV=test` and
 * `SERVICE_CRASH_AT=<name>` in its environment, the process kills itself with SIGKILL (no clean-up,
 * no pending write, as a crash ends it) when it reaches the point `name`. Anywhere else, and always
 * unless `NODE_ENV` is `test` (never so in Azure or under `npm start`), it does nothing.
 *
 * Points: `idempotency.claimed` (an idempotency key claimed, the request's work not started) and
 * `idempotency.answered` (the work done and answered, the answer not yet kept), `http/idempotency.ts`;
 * `log.beforeAppend` (an envelope's completion committed, its leaves not yet appended to the public
 * log), `envelopes/complete.ts`;
 * `completion.partlySealed` (an envelope of several documents: a document after the first sealed and
 * stored, the envelope not yet completed), `envelopes/complete.ts`.
 */

/** Ends the process at once with SIGKILL when the test environment names `name` (see the module comment). */
export function crashPoint(name: string): void {
  if (process.env.NODE_ENV !== 'test' || process.env.SERVICE_CRASH_AT !== name) return;
  process.kill(process.pid, 'SIGKILL');
  // The signal ends the process; nothing after this point may run meanwhile.
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10_000);
}

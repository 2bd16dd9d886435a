/** Progress lines on stderr while the benchmarks run (stdout stays free for the final table). */

const started = Date.now();

/** Prints `message` with the time elapsed since the run began. */
export function progress(message: string): void {
  const seconds = Math.round((Date.now() - started) / 1000);
  const stamp = `${String(Math.floor(seconds / 60)).padStart(2, '0')}:${String(seconds % 60).padStart(2, '0')}`;
  process.stderr.write(`[bench ${stamp}] ${message}\n`);
}

/** Seconds since the run began. */
export function elapsedSeconds(): number {
  return (Date.now() - started) / 1000;
}

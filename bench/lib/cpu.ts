/**
 * CPU time of other processes (Linux /proc), to say where a request's cost goes: the server
 * process or Azurite. Elsewhere these figures are simply absent.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc/<pid>/stat (USER_HZ: 100 on Linux for x86 and arm). */
const TICKS_PER_SECOND = 100;

/** User + system CPU time of process `pid` so far, ms; `undefined` when it cannot be read. */
export function cpuTimeMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND) * 1000;
  } catch {
    return undefined;
  }
}

/** The pid of this process's child whose command line contains `needle`, if any. */
export function childPid(needle: string): number | undefined {
  try {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        if (parent !== process.pid) continue;
        if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(needle)) return Number(entry);
      } catch {
        // The process ended meanwhile.
      }
    }
  } catch {
    // No /proc.
  }
  return undefined;
}

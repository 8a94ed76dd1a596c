/** What benchmarks measure with: a percentile of samples, and a process's CPU time. */
import { readFileSync } from "node:fs";

/** The nearest-rank percentile `q` (0..1) of ascending `sorted`; NaN when there is no sample. */
export function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] as number;
}

/** CPU seconds (user + system) process `pid` used so far, from /proc (Linux); undefined when it cannot be read (gone, or no /proc). */
export function processCpuSeconds(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    // The fields after the command's closing parenthesis (the command may hold spaces): utime and stime are the 12th and 13th.
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8")
      .replace(/^.*\) /s, "")
      .split(" ");
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? ticks / clockTicksPerSecond : undefined;
  } catch {
    return undefined;
  }
}

/** USER_HZ, which /proc counts in: 100 on every Linux this runs on. */
const clockTicksPerSecond = 100;

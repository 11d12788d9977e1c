// A process's memory as the kernel counts it, read from /proc/<pid>/status by another process: the peak resident
// set (VmHWM) and the current one (VmRSS), once or every so often.
import { readFileSync } from 'node:fs';

/** A field of /proc/<pid>/status in MiB: VmHWM is the peak resident set, VmRSS the current one. */
export function statusMiB(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1]) / 1024;
}

/** VmRSS of `pid` every `everyMs`, in MiB, until stopped. */
export function sampleRss(pid: number, everyMs = 500): { stop(): number[] } {
  const samples: number[] = [];
  const timer = setInterval(() => {
    try {
      samples.push(Math.round(statusMiB(pid, 'VmRSS')));
    } catch {
      // The process is gone; the samples so far stand.
    }
  }, everyMs);
  return {
    stop: () => {
      clearInterval(timer);
      return samples;
    },
  };
}

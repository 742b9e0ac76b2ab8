import { readFileSync } from 'node:fs';

/** Resident memory of some processes, in bytes: now (VmRSS) and the peak so far (VmHWM). */
export interface RssFigures {
  readonly sum: number;
  readonly max: number;
  readonly peakSum: number;
  readonly peakMax: number;
}

function statusKb(status: string, name: string): number {
  return Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
}

/** Reads /proc/<pid>/status (Linux); the kernel keeps the peak, so nothing has to sample. */
export function rssOf(pids: readonly number[]): RssFigures {
  const readings = pids.map((pid) => {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return { now: statusKb(status, 'VmRSS') * 1024, peak: statusKb(status, 'VmHWM') * 1024 };
  });
  return {
    sum: readings.reduce((total, r) => total + r.now, 0),
    max: Math.max(...readings.map((r) => r.now)),
    peakSum: readings.reduce((total, r) => total + r.peak, 0),
    peakMax: Math.max(...readings.map((r) => r.peak)),
  };
}

export const mb = (bytes: number): number => bytes / 1024 / 1024;

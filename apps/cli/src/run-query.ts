import { InvalidArgumentError } from 'commander';

// How `tierflow runs` reads its time and cost options. Pure.

const UNITS: Readonly<Record<string, number>> = { s: 1_000, m: 60_000, min: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 };

/**
 * A time as `--since` and `--until` take it, in ms since the epoch: an ISO time
 * (`2026-01-31T09:00:00Z`, or a date), or how long ago (`90s`, `15m`, `2h`, `3d`, `1w`).
 *
 * @throws InvalidArgumentError for anything else.
 */
export function pastTime(value: string, now: number): number {
  const ago = /^(\d+(?:\.\d+)?)\s*(s|m|min|h|d|w)$/i.exec(value.trim());
  if (ago) return now - Math.round(Number(ago[1]) * UNITS[ago[2]!.toLowerCase()]!);
  const time = /^\d{4}-\d{2}-\d{2}/.test(value.trim()) ? Date.parse(value) : NaN;
  if (Number.isNaN(time)) throw new InvalidArgumentError('must be an ISO time (2026-01-31T09:00:00Z) or how long ago (90s, 15m, 2h, 3d, 1w)');
  return time;
}

/**
 * An amount of USD (`0.05`, `$0.05`).
 *
 * @throws InvalidArgumentError for anything else, or a negative amount.
 */
export function usdAmount(value: string): number {
  const amount = Number(value.trim().replace(/^\$/, ''));
  if (value.trim() === '' || !Number.isFinite(amount) || amount < 0) throw new InvalidArgumentError('must be an amount of USD, such as 0.05');
  return amount;
}

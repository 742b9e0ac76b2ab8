import { redisFailureReason } from './reach.js';

/**
 * How long into an outage it is said again that Redis is still unreachable, after the first word
 * at its start; past the last, every that long. A worker retries every couple of seconds, and a
 * line a retry buried everything else in its log.
 */
export const OUTAGE_REPORTS_MS: readonly number[] = [10_000, 30_000, 60_000, 120_000, 300_000];

/** When the report after `made` reports (the first one, at the start, not counted) is due, in ms into the outage. */
export function outageReportDueMs(made: number): number {
  const last = OUTAGE_REPORTS_MS[OUTAGE_REPORTS_MS.length - 1]!;
  return OUTAGE_REPORTS_MS[made] ?? last * (made - OUTAGE_REPORTS_MS.length + 2);
}

/** What a connection says of its outages: once as one starts, then at the times above until it ends. */
export function outageReports(warn: (message: string) => void, where: string, tls: boolean, now: () => number): { failed(error: unknown): void; recovered(): void } {
  let since: number | null = null;
  let made = 0;
  return {
    failed(error) {
      const reason = redisFailureReason(error, tls);
      if (since === null) {
        since = now();
        made = 0;
        warn(`redis ${where} unreachable (${reason}); retrying`);
        return;
      }
      const elapsed = now() - since;
      if (elapsed < outageReportDueMs(made)) return;
      made += 1;
      warn(`redis ${where} still unreachable after ${Math.round(elapsed / 1000)} s (${reason}); retrying`);
    },
    recovered() {
      since = null;
    },
  };
}

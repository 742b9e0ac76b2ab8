import { resolveCascadeThresholds, type CascadeThresholds } from '@tierflow/core';
import { TierflowError } from '@tierflow/protocol';
import { DEFAULT_AUDIT_TTL_MS } from './audit-entry.js';

/** The audit trail's retention: a run's stream lives this long past its last entry. */
export function resolveAuditTtlMs(value: number | undefined): number {
  if (value === undefined) return DEFAULT_AUDIT_TTL_MS;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw TierflowError.permanent(`audit TTL (${value}) must be a whole number of milliseconds, 1 or more`, { code: 'invalid_config' });
  }
  return value;
}

/** The cascade check's bounds, defaults filled in; null turns the check off. */
export function resolveCascade(input: Partial<CascadeThresholds> | null | undefined): CascadeThresholds | null {
  return input === null ? null : resolveCascadeThresholds(input ?? {});
}

/**
 * TIERFLOW_CASCADE_CHECK=off turns the cascade check off; TIERFLOW_CASCADE_PROCEED, _FLAG and
 * _REVIEW move its bounds (defaults 0.8, 0.5, 0.3).
 */
export function cascadeFromEnv(env: NodeJS.ProcessEnv): Partial<CascadeThresholds> | null {
  if (env.TIERFLOW_CASCADE_CHECK === 'off') return null;
  const bounds: { -readonly [K in keyof CascadeThresholds]?: number } = {};
  for (const [key, name] of [
    ['proceed', 'TIERFLOW_CASCADE_PROCEED'],
    ['flag', 'TIERFLOW_CASCADE_FLAG'],
    ['review', 'TIERFLOW_CASCADE_REVIEW'],
  ] as const) {
    const text = env[name];
    if (text === undefined || text === '') continue;
    const value = Number(text);
    if (!Number.isFinite(value)) throw TierflowError.permanent(`${name}=${JSON.stringify(text)} is not a number`, { code: 'invalid_config' });
    bounds[key] = value;
  }
  return bounds;
}

import { resolveCascadeThresholds, type CascadeThresholds } from '@tierflow/core';

/** The cascade check's bounds, defaults filled in; null turns the check off. */
export function resolveCascade(input: Partial<CascadeThresholds> | null | undefined): CascadeThresholds | null {
  return input === null ? null : resolveCascadeThresholds(input ?? {});
}

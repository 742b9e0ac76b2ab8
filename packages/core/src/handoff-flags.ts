import { DEFAULT_CASCADE_THRESHOLDS, type CascadeThresholds } from './confidence-cascade.js';

/**
 * The cascade bounds a parent checks one child's answer by (docs/protocol.md#handoff-metadata):
 * the child's delegation may turn the check off (`false`) or on (`true`: the deployment's bounds,
 * or the defaults where the deployment's check is off); without a flag, the deployment decides
 * (`null` is off). Pure.
 */
export function cascadeThresholdsFor(deployment: CascadeThresholds | null, flag: boolean | undefined): CascadeThresholds | null {
  if (flag === false) return null;
  if (flag === true) return deployment ?? DEFAULT_CASCADE_THRESHOLDS;
  return deployment;
}

/** Whether a delegation's upstream work has its tone isolated: its own flag, else the deployment's setting. Pure. */
export function isolatesTone(deployment: boolean, flag: boolean | undefined): boolean {
  return flag ?? deployment;
}

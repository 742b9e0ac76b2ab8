import { z } from 'zod';
import { ERROR_TYPES } from './error-types.js';

/**
 * Where the delegation chain travels (docs/protocol.md#delegation-across-deployments): the key of
 * an A2A message's `metadata` a Tierflow sends it under, and the key of a root's `task_data` the
 * receiving deployment records it under, so that its own Fleet extends it when it hands work on.
 */
export const DELEGATION_CHAIN_KEY = 'tierflow/handoff';

/** How many deployments a piece of work may cross by default: a remote Tierflow may not hand it further. */
export const DEFAULT_MAX_DELEGATION_DEPTH = 1;

/** Bounds on what a chain may say: far above any sane depth, low enough that a forged one stays small. */
export const MAX_DELEGATION_DEPTH = 16;

/** A deployment's id (`TIERFLOW_DEPLOYMENT_ID`, or one derived from its Redis and prefix). */
export const deploymentIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/, { message: 'must be 1 to 128 letters, digits, ".", "_", ":" or "-", starting with a letter or digit' })
  .meta({ description: 'A stable id of a Tierflow deployment.' });

/**
 * How far a piece of work has come: `depth` deployments crossed, and the ids of the deployments it
 * was handed from, in order. A chain is checked (and extended) by each deployment it reaches.
 */
export const delegationChainSchema = z
  .strictObject({
    depth: z.int().min(0).max(MAX_DELEGATION_DEPTH),
    visited: z.array(deploymentIdSchema).max(MAX_DELEGATION_DEPTH),
  })
  .meta({ description: 'How many deployments the work has crossed, and which.' });
export type DelegationChain = z.output<typeof delegationChainSchema>;

/** The chain of work that has crossed no deployment yet. */
export const LOCAL_CHAIN: DelegationChain = { depth: 0, visited: [] };

/** The `error_type`s a refused hand-over ends with; a refusal is final, so never retried. */
export const DELEGATION_REFUSALS = [ERROR_TYPES.delegationCycle, ERROR_TYPES.delegationTooDeep] as const;
export type DelegationRefusalType = (typeof DELEGATION_REFUSALS)[number];

export interface DelegationRefusal {
  readonly error_type: DelegationRefusalType;
  readonly reason: string;
}

/**
 * The chain a record carries under {@link DELEGATION_CHAIN_KEY} (a root's `task_data`, an A2A
 * message's `metadata`): {@link LOCAL_CHAIN} when there is none. Pure.
 *
 * @returns null when the key is there but out of shape: the caller refuses it.
 */
export function chainIn(record: Readonly<Record<string, unknown>> | undefined): DelegationChain | null {
  const value = record?.[DELEGATION_CHAIN_KEY];
  if (value === undefined) return LOCAL_CHAIN;
  const parsed = delegationChainSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

/** The chain a deployment (`self`) sends along when it hands its work to another: one deeper, itself added. Pure. */
export function extendedChain(chain: DelegationChain, self: string): DelegationChain {
  return { depth: chain.depth + 1, visited: [...chain.visited, self] };
}

/**
 * Whether the deployment `self` refuses work that comes with `chain`: a cycle when it handed the
 * work on before (its id is among those visited), too deep when the work has crossed more than
 * `maxDepth` deployments. A cycle is said first: it is the more telling reason. Pure.
 */
export function chainRefusal(chain: DelegationChain, self: string, maxDepth: number): DelegationRefusal | null {
  if (chain.visited.includes(self)) {
    return { error_type: ERROR_TYPES.delegationCycle, reason: `delegation cycle: deployment ${self} already handed this work on (path ${[...chain.visited, self].join(' -> ')})` };
  }
  if (chain.depth > maxDepth) {
    return {
      error_type: ERROR_TYPES.delegationTooDeep,
      reason: `delegation too deep: the work has crossed ${chain.depth} deployments (${chain.visited.join(' -> ')}), more than the ${maxDepth} deployment ${self} allows`,
    };
  }
  return null;
}

import { z } from 'zod';
import { agentIdentitySchema, type AgentIdentity } from './agent-identity.js';
import { ERROR_TYPES } from './error-types.js';
import { fastSafeParse } from './fast-parse.js';
import { isJsonObject } from './json.js';
import { timestampSchema } from './identifiers.js';
import { tierNameSchema, type TierName } from './tiers.js';

/**
 * Governance attestations (docs/protocol.md#attestations): what the sender of a delegation or an
 * outcome vouches for about that handoff. The attestation is an envelope field, so a signed
 * message's signature covers it; the receiver checks every claim it can check itself.
 */

/** How the sender of a message is known: by its signature on the message, or not at all. */
export const SOURCE_VERIFICATIONS = ['signature', 'none'] as const;
/** How the receiver of a message is held to an agent: by a pinned identity (`target_agent`) it must match, or not at all. */
export const TARGET_VERIFICATIONS = ['pin', 'none'] as const;

/** The `task_data` key a delegation declares its archetype composition under. */
export const COMPOSITION_KEY = 'composition';
/** How far a composition's percentages may sum from 100 (rounding in whoever wrote them). */
export const COMPOSITION_TOLERANCE = 0.01;
/** The specialist every Fleet runs: always a valid domain. */
const ALWAYS_KNOWN = 'sim';

/** A domain of a composition: a specialist's name, as agent ids are spelt. */
const DOMAIN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/**
 * An archetype's composition: each domain specialist it draws on, with its share in percent.
 * Shares are above 0 and sum to 100 (within {@link COMPOSITION_TOLERANCE}).
 */
export const compositionSchema = z
  // Keys are checked in the refinement: the fast parser reads records of plain string keys.
  .record(z.string(), z.number().gt(0, { message: 'a share must be above 0 %' }).max(100, { message: 'a share must be at most 100 %' }))
  .superRefine((composition, context) => {
    for (const domain of Object.keys(composition)) {
      if (!DOMAIN.test(domain)) context.addIssue({ code: 'custom', path: [domain], message: 'must be a specialist name: 1 to 64 letters, digits, ".", "_" or "-"', params: { rule: 'composition' } });
    }
    const problem = sumProblem(composition);
    if (problem) context.addIssue({ code: 'custom', message: problem, params: { rule: 'composition' } });
  })
  .meta({ title: 'Composition', description: 'An archetype: domain specialist → share in percent; shares above 0, summing to 100.' });
export type Composition = z.output<typeof compositionSchema>;

function sumProblem(composition: Readonly<Record<string, number>>): string | null {
  const shares = Object.values(composition);
  if (shares.length === 0) return 'a composition names at least one domain';
  const total = shares.reduce((sum, share) => sum + share, 0);
  return Math.abs(total - 100) > COMPOSITION_TOLERANCE ? `the shares sum to ${Math.round(total * 1000) / 1000} %, not 100 %` : null;
}

/**
 * What is wrong with a declared composition, one sentence each; none when it is valid. `known`:
 * the specialists it may name (`sim` always may); null checks the shares alone. Pure.
 */
export function compositionProblems(value: unknown, known: ReadonlySet<string> | null = null): string[] {
  const parsed = fastSafeParse(compositionSchema, value);
  if (!parsed.success) return parsed.error.issues.map((issue) => (issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message));
  if (known === null) return [];
  return Object.keys(parsed.data)
    .filter((domain) => domain !== ALWAYS_KNOWN && !known.has(domain))
    .map((domain) => `${domain}: not a known specialist`);
}

const attestedSource = z
  .looseObject({
    tier: tierNameSchema.meta({ description: "The sending tier: the envelope's source_tier." }),
    agent: agentIdentitySchema.optional().meta({ description: "The sending tier's own agent identity, when the deployment names one." }),
    verified_by: z.enum(SOURCE_VERIFICATIONS).meta({ description: 'signature: the message is signed by its sender; none: it is not.' }),
  })
  .meta({ description: 'Who sent the message, and how the receiver can know.' });

const attestedTarget = z
  .looseObject({
    tier: tierNameSchema.meta({ description: "The receiving tier: the envelope's target_tier." }),
    agent: agentIdentitySchema.optional().meta({ description: "The agent pinned to receive it: a delegation's target_agent." }),
    verified_by: z.enum(TARGET_VERIFICATIONS).meta({ description: 'pin: the receiver must run exactly the pinned agent; none: no agent is pinned.' }),
  })
  .meta({ description: 'Who receives the message, and how it is held to an agent.' });

/** A governance attestation: the sender's claims about one handoff (docs/protocol.md#attestations). */
export const attestationSchema = z
  .looseObject({
    source: attestedSource,
    target: attestedTarget,
    boundaries: z.enum(['checked', 'unbounded']).meta({ description: "checked: the handoff is within the sender's collaboration boundaries; unbounded: the deployment bounds no such handoff." }),
    composition: z
      .enum(['valid', 'not_declared'])
      .meta({ description: 'valid: the delegation (or the one an outcome answers) declares an archetype composition that holds; not_declared: it declares none.' }),
    audit_ref: z
      .string()
      .regex(/^[^/\s]+\/[^/\s]+$/, { message: 'must be "<root id>/<message id>"' })
      .meta({ description: "The audit entry the message is logged under: its run's root id and its own message id." }),
    issued_at: timestampSchema.meta({ description: "When the sender attested: the message's own timestamp." }),
  })
  .meta({ title: 'GovernanceAttestation', description: "A sender's signed claims about one handoff: who, how verified, boundaries, composition, audit entry." });
export type Attestation = z.output<typeof attestationSchema>;

/** What an attestation is made for: the envelope it goes in, without it. */
export interface AttestedEnvelope {
  readonly id: string;
  readonly timestamp: string;
  readonly source_tier: TierName;
  readonly target_tier: TierName;
  readonly payload: unknown;
  readonly signature?: unknown;
  readonly attestation?: unknown;
}

/** What the sender knows that the envelope does not say. */
export interface AttestationFacts {
  /** The run's root id, which names the audit trail. */
  readonly rootId: string;
  /** Whether the message will be signed by its sender. */
  readonly signed: boolean;
  /** The sending tier's own agent identity, if the deployment names one. */
  readonly agent?: AgentIdentity | null;
  /** Whether the deployment's boundaries bound this handoff (and the sender found it within them): `checked`; else `unbounded`. */
  readonly boundaries: Attestation['boundaries'];
  /** For an outcome: the delegation it answers, whose composition it vouches for. */
  readonly answering?: { readonly task_data?: unknown } | null;
}

/** The attestation a sender puts on `message`. Pure. */
export function attestationFor(message: AttestedEnvelope, facts: AttestationFacts): Attestation {
  const pinned = pinnedAgent(message);
  return {
    source: { tier: message.source_tier, ...(facts.agent ? { agent: facts.agent } : {}), verified_by: facts.signed ? 'signature' : 'none' },
    target: { tier: message.target_tier, ...(pinned ? { agent: pinned } : {}), verified_by: pinned ? 'pin' : 'none' },
    boundaries: facts.boundaries,
    composition: declaredComposition(message, facts.answering) === undefined ? 'not_declared' : 'valid',
    audit_ref: auditRefOf(facts.rootId, message.id),
    issued_at: message.timestamp,
  };
}

/** The audit reference of message `id` in run `rootId`. */
export function auditRefOf(rootId: string, id: string): string {
  return `${rootId}/${id}`;
}

/** A receiver's view of the hop, for checking the sender's claims against its own settings. */
export interface AttestationContext {
  readonly rootId: string;
  /** Whether a missing attestation is refused (the deployment's `governance.require`). */
  readonly require: boolean;
  /**
   * The receiver's own verdict on the handoff against its collaboration boundaries: `allowed`,
   * `forbidden`, or `unbounded` (they bound no such handoff).
   */
  readonly boundaries: 'allowed' | 'forbidden' | 'unbounded';
  /** For an outcome: the delegation it answers, as the receiver sent it. */
  readonly answering?: { readonly task_data?: unknown } | null;
}

/** Why a receiver refuses a message's attestation. */
export interface AttestationRefusal {
  readonly error_type: typeof ERROR_TYPES.attestationMissing | typeof ERROR_TYPES.attestationInvalid;
  readonly detail: string;
}

/**
 * Null when `message`'s attestation holds (or it has none and none is required); else why it is
 * refused: `attestation_missing`, or `attestation_invalid` with the first claim that does not hold. Pure.
 */
export function checkAttestation(message: AttestedEnvelope, context: AttestationContext): AttestationRefusal | null {
  if (message.attestation === undefined) {
    return context.require ? { error_type: ERROR_TYPES.attestationMissing, detail: `${message.id} carries no governance attestation, and this deployment requires one` } : null;
  }
  const problem = claimProblem(message, context);
  return problem === null ? null : { error_type: ERROR_TYPES.attestationInvalid, detail: `the attestation of ${message.id} does not hold: ${problem}` };
}

function claimProblem(message: AttestedEnvelope, context: AttestationContext): string | null {
  const parsed = fastSafeParse(attestationSchema, message.attestation);
  if (!parsed.success) return `it is not an attestation (${parsed.error.issues.map((issue) => `${issue.path.join('.') || '$'}: ${issue.message}`).join('; ')})`;
  const claims = parsed.data;
  if (claims.source.tier !== message.source_tier) return `it names ${claims.source.tier} as the sender, not ${message.source_tier}`;
  if (claims.target.tier !== message.target_tier) return `it names ${claims.target.tier} as the receiver, not ${message.target_tier}`;
  const ref = auditRefOf(context.rootId, message.id);
  if (claims.audit_ref !== ref) return `its audit_ref ${claims.audit_ref} names another entry than ${ref}`;
  if (Date.parse(claims.issued_at) !== Date.parse(message.timestamp)) return `it was issued at ${claims.issued_at}, not with the message (${message.timestamp})`;
  if (claims.source.verified_by === 'signature' && message.signature === undefined) return 'it claims the sender signed, but the message is unsigned';
  const pinned = pinnedAgent(message);
  if (!sameAgent(claims.target.agent, pinned)) return `its target agent ${agentName(claims.target.agent)} is not the one pinned (${agentName(pinned)})`;
  if ((claims.target.verified_by === 'pin') !== (pinned !== undefined)) return `it claims verified_by ${claims.target.verified_by}, but ${pinned ? 'an agent is pinned' : 'no agent is pinned'}`;
  if (claims.boundaries === 'checked' && context.boundaries === 'forbidden') return "it claims the handoff within the collaboration boundaries, but this receiver's boundaries forbid it";
  if (claims.boundaries === 'unbounded' && context.boundaries !== 'unbounded') return "it claims the handoff unbounded, but this receiver's boundaries bound it";
  const declared = declaredComposition(message, context.answering);
  if (declared === undefined) return claims.composition === 'not_declared' ? null : 'it claims a valid composition, but none is declared';
  const problems = compositionProblems(declared);
  if (problems.length > 0) return `the declared composition is not valid: ${problems.join('; ')}`;
  return claims.composition === 'valid' ? null : 'it claims no composition, but one is declared';
}

/** A delegation's pinned agent; none for an outcome. */
function pinnedAgent(message: AttestedEnvelope): AgentIdentity | undefined {
  const payload = message.payload;
  if (!isJsonObject(payload) || !('task_type' in payload || 'objective' in payload) || 'status' in payload) return undefined;
  const parsed = fastSafeParse(agentIdentitySchema, payload.target_agent);
  return parsed.success ? parsed.data : undefined;
}

/** The composition a delegation declares, or for an outcome the one its delegation declared; undefined when none. */
function declaredComposition(message: AttestedEnvelope, answering: { readonly task_data?: unknown } | null | undefined): unknown {
  const payload = isJsonObject(message.payload) ? message.payload : {};
  const source = 'status' in payload ? answering : payload;
  const taskData = source?.task_data;
  return isJsonObject(taskData) ? taskData[COMPOSITION_KEY] : undefined;
}

function sameAgent(a: AgentIdentity | undefined, b: AgentIdentity | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.agent_id === b.agent_id && a.agent_version === b.agent_version && a.prompt_hash === b.prompt_hash;
}

function agentName(agent: AgentIdentity | undefined): string {
  return agent ? `${agent.agent_id}@${agent.agent_version}` : 'none';
}

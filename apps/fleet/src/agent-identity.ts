import { createHash } from 'node:crypto';
import { canonicalJson, type AgentIdentity } from '@tierflow/protocol';
import type { Specialist } from './specialist.js';

/** A SHA-256 in 64 lowercase hex digits, as a prompt hash is written (docs/protocol.md#target-agents). */
export const PROMPT_HASH = /^[0-9a-f]{64}$/;

/**
 * The hash of what decides how a specialist behaves: SHA-256 of the canonical JSON (RFC 8785) of
 * its `config` (prompt, model, parameters; `{}` when it declares none). Key order and spacing do
 * not change it; any change to a value does.
 */
export function promptHashOf(config: Readonly<Record<string, unknown>> | undefined): string {
  return createHash('sha256')
    .update(canonicalJson(config ?? {}), 'utf8')
    .digest('hex');
}

/** A specialist as the agent registry declares it: its name, version, and its given `promptHash` or the hash of its config. */
export function agentIdentityOf(specialist: Specialist): AgentIdentity {
  return { agent_id: specialist.name, agent_version: specialist.version, prompt_hash: specialist.promptHash ?? promptHashOf(specialist.config) };
}

/**
 * Beads, Tierflow's shared state on Redis (docs/protocol.md#beads-namespaces): five namespaces that
 * every tier reads and each tier writes only where it is allowed, JSON values with a TTL, all under
 * one hash-tagged prefix.
 *
 * ```ts
 * import { BeadsStore, canWrite, seenMessageKey } from '@tierflow/beads';
 *
 * const beads = new BeadsStore(redis, { tier: 'SPECIALIZED_FLEET' }); // prefix {tierflow}, TTL 24 h
 * await beads.set(`execution/outputs/${id}`, { files, passed: 5 });
 * const objective = await beads.get('beads:task/current-objective', objectiveSchema); // refs work too
 *
 * await beads.set('task/current-objective', '…'); // throws BeadsPermissionError: the Architect writes task/*
 * canWrite('SPECIALIZED_FLEET', seenMessageKey('SPECIALIZED_FLEET', messageId)); // true: its own de-duplication records
 *
 * const outputs = await beads.keys('execution/outputs/*'); // SCAN, not KEYS
 * const architect = beads.withTier('ABSTRACT_ARCHITECT'); // same connection, the Architect's permissions
 * ```
 */
export { AGENT_KEYS_PATTERN, agentKey } from './agent-keys.js';
export { BEADS_NAMESPACES, BEADS_REF_PREFIX, beadsRef, isBeadsNamespace, MAX_BEADS_KEY_LENGTH, parseBeadsKey } from './beads-key.js';
export type { BeadsNamespace, ParsedBeadsKey } from './beads-key.js';
export { BeadsPermissionError, canWrite, checkWrite, SEEN_MESSAGES_PATH, seenMessageKey, seenMessagesRedisPrefix, WRITE_PERMISSIONS } from './permissions.js';
export { beadsAclKeyRules } from './beads-acl.js';
export { beadsHandle } from './beads.js';
export type { Beads } from './beads.js';
export { BeadsStore } from './store.js';
export { DeferredBeadsStore } from './deferred-store.js';
export type { BeadsCommit } from './deferred-store.js';
export { multiBatch } from './store.js';
export type { BeadsBatch, BeadsEntry, BeadsSetOptions, BeadsWrites } from './store.js';
export { ADD_DECAYED_COMMAND, ADD_DECAYED_LUA, ADD_DECAYED_SCRIPT, DECAYED_TTL_HALF_LIVES } from './decayed-add.js';
export type { AddDecayedOptions } from './decayed-add.js';
export { DEFAULT_BEADS_PREFIX, DEFAULT_BEADS_TTL_MS, resolveBeadsStoreOptions, resolveTtl } from './store-options.js';
export type { BeadsStoreOptions, ResolvedBeadsStoreOptions } from './store-options.js';
export type { BeadsValueSchema } from './value-codec.js';
export { escapeRedisGlob } from './redis-glob.js';
export { scanKeys } from './scan-keys.js';
export type { RedisClient } from './scan-keys.js';

// For convenience: the base of the errors this package throws.
export { isTierflowError, TierflowError } from '@tierflow/protocol';

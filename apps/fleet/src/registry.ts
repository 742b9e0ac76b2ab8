import { TierflowError, type AgentIdentity } from '@tierflow/protocol';
import { agentIdentityOf } from './agent-identity.js';
import { simSpecialist } from './sim.js';
import { defineSpecialist, type Specialist } from './specialist.js';

/** The specialists one Fleet process can run, by name. */
export class SpecialistRegistry {
  private readonly byName = new Map<string, Specialist>();
  private readonly identityByName = new Map<string, AgentIdentity>();

  constructor(specialists: Iterable<Specialist> = []) {
    for (const specialist of specialists) this.register(specialist);
  }

  /**
   * Adds a specialist; returns the registry, so calls chain.
   *
   * @throws TierflowError (permanent) with code `duplicate_specialist` for a name already taken,
   *   `invalid_specialist` for a bad name, version or `run`.
   */
  register(specialist: Specialist): this {
    defineSpecialist(specialist);
    if (this.byName.has(specialist.name)) {
      throw TierflowError.permanent(`a specialist named "${specialist.name}" is already registered`, { code: 'duplicate_specialist' });
    }
    this.byName.set(specialist.name, specialist);
    this.identityByName.set(specialist.name, agentIdentityOf(specialist));
    return this;
  }

  get(name: string): Specialist | undefined {
    return this.byName.get(name);
  }

  /** A registered agent's identity (docs/protocol.md#target-agents): id, version, prompt hash. */
  identity(name: string): AgentIdentity | undefined {
    return this.identityByName.get(name);
  }

  /** Every registered agent's identity, by name. */
  identities(): AgentIdentity[] {
    return this.names().map((name) => this.identityByName.get(name)!);
  }

  /** The registered names, sorted. */
  names(): string[] {
    return [...this.byName.keys()].sort();
  }
}

/** A registry holding the built-in `sim` specialist; register your own on top. */
export function defaultRegistry(options: { simMaxConcurrent?: number } = {}): SpecialistRegistry {
  const sim = options.simMaxConcurrent === undefined ? simSpecialist : { ...simSpecialist, maxConcurrent: options.simMaxConcurrent };
  return new SpecialistRegistry([sim]);
}

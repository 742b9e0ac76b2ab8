import { checkedSpecialist, defineSpecialist, promptHashOf, simSpecialist } from '@tierflow/fleet';
import { describe, expect, it } from 'vitest';
import { manifestOf, type ManifestInput } from './manifest.js';

const run = () => Promise.resolve({ summary: 'ok', confidence: 1 });
const echo = defineSpecialist({ name: 'echo', version: '2.1.0', config: { prompt: 'Say it back.' }, run });
const remote = defineSpecialist({ name: 'remote', version: '1.0.0', config: { kind: 'a2a', url: 'https://agents.example.com' }, run });
const checked = checkedSpecialist({ name: 'echo-checked', writer: echo, checker: simSpecialist });

function manifest(config: ManifestInput['config'] = {}, specialists = [echo, remote, checked]) {
  return manifestOf({ config, specialists, runtimeVersion: '0.1.0' });
}

describe('the manifest', () => {
  it('lists the tiers as orchestrators, specialists as domain agents, composed ones as archetypes, sorted by id', () => {
    const { agents, problems } = manifest();
    expect(problems).toEqual([]);
    expect(agents.map((agent) => [agent.id, agent.type, agent.version])).toEqual([
      ['architect', 'orchestrator', '0.1.0'],
      ['dispatcher', 'orchestrator', '0.1.0'],
      ['echo', 'domain', '2.1.0'],
      ['echo-checked', 'archetype', '1.0.0'],
      ['fleet', 'orchestrator', '0.1.0'],
      ['monitor', 'orchestrator', '0.1.0'],
      ['remote', 'domain', '1.0.0'],
      ['sim', 'domain', '1.0.0'],
    ]);
    // A specialist's hash is the one the Fleet registers.
    expect(agents.find((agent) => agent.id === 'echo')?.prompt_hash).toBe(promptHashOf({ prompt: 'Say it back.' }));
  });

  it("hashes a tier over its planner: the Architect's changes with its prompt, the Monitor's is built in", () => {
    const hash = (config: ManifestInput['config'], id: string) => manifest(config).agents.find((agent) => agent.id === id)?.prompt_hash;
    const planner = { kind: 'llm' as const, model: 'gpt', systemPrompt: 'Plan it.' };
    expect(hash({ architect: { planner } }, 'architect')).not.toBe(hash({}, 'architect'));
    expect(hash({ architect: { planner } }, 'architect')).not.toBe(hash({ architect: { planner: { ...planner, systemPrompt: 'Plan it well.' } } }, 'architect'));
    expect(hash({ architect: { planner: { ...planner, apiKeyEnv: 'KEY' } } }, 'architect')).toBe(hash({ architect: { planner } }, 'architect'));
    expect(hash({ dispatcher: { decomposer: planner } }, 'dispatcher')).not.toBe(hash({}, 'dispatcher'));
    expect(hash({ architect: { planner } }, 'monitor')).toBe(hash({}, 'monitor'));
  });

  it("takes governance.agents' types and versions", () => {
    const { agents, problems } = manifest({ governance: { agents: { echo: { type: 'archetype', version: '3.0.0' } } } });
    expect(problems).toEqual([]);
    expect(agents.find((agent) => agent.id === 'echo')).toMatchObject({ type: 'archetype', version: '3.0.0' });
  });

  it('says which agent has a version that is not semver, an override for no agent, and an id taken twice', () => {
    const loose = defineSpecialist({ name: 'loose', version: '1', run });
    const fleet = defineSpecialist({ name: 'fleet', version: '1.0.0', run });
    const { problems } = manifest({ governance: { agents: { nobody: { version: '1.0.0' } } } }, [loose, fleet]);
    expect(problems).toEqual([
      'agent "fleet": two agents have this id (a specialist may not take a tier\'s name)',
      expect.stringMatching(/^governance\.agents\.nobody: no agent "nobody" in the manifest/),
      'agent "loose" (domain): version "1" must be a semantic version such as 1.0.0 (MAJOR.MINOR.PATCH): give it one, or set governance.agents.loose.version',
    ]);
    expect(manifest({ governance: { agents: { loose: { version: '1.0.0' } } } }, [loose]).problems).toEqual([]);
  });
});

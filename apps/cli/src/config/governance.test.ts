import { describe, expect, it } from 'vitest';
import { startProblems, type GovernanceState } from './governance.js';
import { lockDifferences, lockOf } from './lock-file.js';
import type { Manifest, ManifestAgent } from './manifest.js';

const agent = (id: string, hash: string, type: ManifestAgent['type'] = 'domain'): ManifestAgent => ({ id, type, version: '1.0.0', prompt_hash: hash.repeat(64) });

function state(locked: readonly ManifestAgent[] | null, current: readonly ManifestAgent[], problems: string[] = []): GovernanceState {
  const manifest: Manifest = { agents: current, problems };
  const lock = locked === null ? null : lockOf({ agents: locked });
  return { manifest, lockFile: '/p/tierflow.lock.json', shown: 'tierflow.lock.json', lock, differences: lockDifferences(lock, manifest) };
}

describe('refusal at start', () => {
  const monitor = agent('monitor', 'm', 'orchestrator');
  const fleet = agent('fleet', 'f', 'orchestrator');

  it("names each of the tier's agents that differs, and what to run", () => {
    const changed = state([monitor, fleet, agent('echo', 'a')], [monitor, fleet, agent('echo', 'b'), agent('new', 'c')]);
    expect(startProblems(changed, 'fleet')).toEqual([
      'tierflow.lock.json: echo: prompt hash differs (locked aaaaaaaaaaaa…, now bbbbbbbbbbbb…): run `tierflow lock --accept echo` once the change is vetted',
      'tierflow.lock.json: new: not in the lock file: run `tierflow lock --accept new` once the change is vetted',
    ]);
    // The Monitor answers for itself only; `up` for every agent.
    expect(startProblems(changed, 'monitor')).toEqual([]);
    expect(startProblems(changed, 'all')).toHaveLength(2);
  });

  it('refuses without a lock file, and with a manifest problem; an agent no longer run refuses nothing', () => {
    expect(startProblems(state(null, [monitor]), 'monitor')).toEqual(['tierflow.lock.json: no lock file: run `tierflow lock` to write it']);
    expect(startProblems(state([monitor], [monitor], ['agent "x": bad']), 'monitor')).toEqual(['agent "x": bad']);
    expect(startProblems(state([monitor, agent('gone', 'g')], [monitor]), 'all')).toEqual([]);
  });
});

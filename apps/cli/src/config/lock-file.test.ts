import { describe, expect, it } from 'vitest';
import { acceptAgent, describeDifference, lockDifferences, lockOf, lockText, parseLock } from './lock-file.js';
import type { ManifestAgent } from './manifest.js';

const agent = (id: string, hash: string, version = '1.0.0'): ManifestAgent => ({ id, type: id === 'monitor' ? 'orchestrator' : 'domain', version, prompt_hash: hash.repeat(64) });
const manifest = { agents: [agent('echo', 'a'), agent('monitor', 'b')] };

describe('the lock file', () => {
  it('is written sorted and stable, and read back as it was', () => {
    const text = lockText(lockOf({ agents: [...manifest.agents].reverse() }));
    expect(text).toBe(lockText(lockOf(manifest)));
    expect(Object.keys((JSON.parse(text) as { agents: object }).agents)).toEqual(['echo', 'monitor']);
    expect(text.endsWith('}\n')).toBe(true);
    expect(parseLock(text, 'tierflow.lock.json')).toEqual(lockOf(manifest));
  });

  it('refuses a lock that is not valid, naming the file and field', () => {
    expect(() => parseLock('{', 'x.json')).toThrow(/x\.json: not JSON/);
    const bad = JSON.stringify({ lockfileVersion: 1, agents: { echo: { type: 'domain', version: '1', prompt_hash: 'a'.repeat(64) } } });
    expect(() => parseLock(bad, 'x.json')).toThrow(/x\.json: agents\.echo\.version: must be a semantic version/);
    expect(() => parseLock(JSON.stringify({ lockfileVersion: 2, agents: {} }), 'x.json')).toThrow(/lockfileVersion: must be 1/);
  });

  it('lists every difference: missing, extra, version, prompt hash', () => {
    const lock = lockOf({ agents: [agent('echo', 'c', '0.9.0'), agent('old', 'd')] });
    const differences = lockDifferences(lock, manifest);
    expect(differences).toEqual([
      { agent: 'echo', kind: 'version', locked: '0.9.0', current: '1.0.0' },
      { agent: 'echo', kind: 'prompt_hash', locked: 'c'.repeat(64), current: 'a'.repeat(64) },
      { agent: 'monitor', kind: 'missing' },
      { agent: 'old', kind: 'extra' },
    ]);
    expect(differences.map(describeDifference)).toEqual([
      'echo: version differs (locked 0.9.0, now 1.0.0)',
      'echo: prompt hash differs (locked cccccccccccc…, now aaaaaaaaaaaa…)',
      'monitor: not in the lock file',
      'old: in the lock file, but no longer in the manifest',
    ]);
    expect(lockDifferences(lockOf(manifest), manifest)).toEqual([]);
    expect(lockDifferences(null, manifest).map((difference) => difference.kind)).toEqual(['missing', 'missing']);
  });

  it('accepts one agent, leaving the others as they were locked', () => {
    const lock = lockOf({ agents: [agent('echo', 'c'), agent('monitor', 'e')] });
    const accepted = acceptAgent(lock, manifest, 'echo');
    expect(accepted?.changes).toEqual([{ agent: 'echo', kind: 'prompt_hash', locked: 'c'.repeat(64), current: 'a'.repeat(64) }]);
    expect(accepted?.lock.agents['echo']?.prompt_hash).toBe('a'.repeat(64));
    expect(accepted?.lock.agents['monitor']?.prompt_hash).toBe('e'.repeat(64));
    expect(acceptAgent(lock, manifest, 'nobody')).toBeNull();
    expect(acceptAgent(null, manifest, 'echo')?.changes).toEqual([{ agent: 'echo', kind: 'missing' }]);
  });
});

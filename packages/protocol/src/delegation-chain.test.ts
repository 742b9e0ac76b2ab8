import { describe, expect, it } from 'vitest';
import { chainIn, chainRefusal, DELEGATION_CHAIN_KEY, extendedChain, LOCAL_CHAIN, type DelegationChain } from './delegation-chain.js';

describe('a delegation chain', () => {
  it.each([
    ['nothing', undefined, LOCAL_CHAIN],
    ['a record without the key', { plan: {} }, LOCAL_CHAIN],
    ['a chain', { [DELEGATION_CHAIN_KEY]: { depth: 2, visited: ['d-a', 'd-b'] } }, { depth: 2, visited: ['d-a', 'd-b'] }],
    ['a negative depth', { [DELEGATION_CHAIN_KEY]: { depth: -1, visited: [] } }, null],
    ['a depth over the bound', { [DELEGATION_CHAIN_KEY]: { depth: 17, visited: [] } }, null],
    ['an id that is not one', { [DELEGATION_CHAIN_KEY]: { depth: 1, visited: ['has space'] } }, null],
    ['a field of its own', { [DELEGATION_CHAIN_KEY]: { depth: 1, visited: [], extra: true } }, null],
    ['not an object', { [DELEGATION_CHAIN_KEY]: 'd-a' }, null],
  ] as const)('is read from %s', (_, record, expected) => {
    expect(chainIn(record)).toEqual(expected);
  });

  it('is extended by the deployment that hands the work on', () => {
    expect(extendedChain(LOCAL_CHAIN, 'd-a')).toEqual({ depth: 1, visited: ['d-a'] });
    expect(extendedChain({ depth: 1, visited: ['d-a'] }, 'd-b')).toEqual({ depth: 2, visited: ['d-a', 'd-b'] });
  });

  const chain = (depth: number, ...visited: string[]): DelegationChain => ({ depth, visited });
  it.each([
    ['local work', chain(0), 'd-a', 1, null],
    ['work from another deployment, within the limit', chain(1, 'd-b'), 'd-a', 1, null],
    ['work this deployment handed on', chain(1, 'd-a'), 'd-a', 1, 'delegation_cycle'],
    ['a cycle through another', chain(2, 'd-a', 'd-b'), 'd-a', 5, 'delegation_cycle'],
    ['work over the limit', chain(2, 'd-b', 'd-c'), 'd-a', 1, 'delegation_too_deep'],
    ['any remote work under limit 0', chain(1, 'd-b'), 'd-a', 0, 'delegation_too_deep'],
    ['a cycle that is also too deep (the cycle is said)', chain(3, 'd-a', 'd-b', 'd-c'), 'd-a', 1, 'delegation_cycle'],
  ] as const)('refuses or takes %s', (_, given, self, maxDepth, refused) => {
    expect(chainRefusal(given, self, maxDepth)?.error_type ?? null).toBe(refused);
  });

  it('says the path in its reason', () => {
    expect(chainRefusal(chain(1, 'd-a'), 'd-a', 1)?.reason).toBe('delegation cycle: deployment d-a already handed this work on (path d-a -> d-a)');
    expect(chainRefusal(chain(2, 'd-b', 'd-c'), 'd-a', 1)?.reason).toMatch(/crossed 2 deployments \(d-b -> d-c\), more than the 1 deployment d-a allows/);
  });
});

import { DEFAULT_PRIORITY, delegationPayloadSchema } from '@tierflow/protocol';
import { describe, expect, it } from 'vitest';
import { composeHandoffChain, HandoffRefusedError } from './chain.js';
import { interceptorProblems, type DelegationHandoff, type Handoff, type HandoffHook, type HandoffInterceptor } from '../policy/handoff.js';

const handoff: DelegationHandoff = {
  kind: 'delegation',
  id: 'root-1.0-0',
  rootId: 'root-1',
  from: 'PROGRESS_MONITOR',
  to: 'ABSTRACT_ARCHITECT',
  signal: new AbortController().signal,
  payload: delegationPayloadSchema.parse({ task_type: 'solve', objective: 'count the words' }),
};

/** An interceptor that notes when it runs, before and after the rest of the chain. */
function noting(name: string, seen: string[]): HandoffInterceptor {
  return {
    name,
    send: async (given, next) => {
      seen.push(`${name} in`);
      const result = await next(given);
      seen.push(`${name} out`);
      return result;
    },
  };
}

describe('a handoff interceptor chain', () => {
  it('is none at all without an interceptor for that end: nothing runs per hop', () => {
    expect(composeHandoffChain([], 'send')).toBeNull();
    expect(composeHandoffChain([{ name: 'receiving only', receive: (given, next) => next(given) }], 'send')).toBeNull();
  });

  it('runs the interceptors in their order, each around the rest', async () => {
    const seen: string[] = [];
    const chain = composeHandoffChain([noting('a', seen), noting('b', seen)], 'send')!;
    expect(await chain(handoff)).toBe(handoff);
    expect(seen).toEqual(['a in', 'b in', 'b out', 'a out']);
  });

  it('passes a changed payload on, checked and with its defaults', async () => {
    const constrain: HandoffInterceptor = {
      name: 'constrain',
      send: (given, next) => next({ ...given, payload: { ...given.payload, constraints: ['no network'], priority: undefined } } as Handoff),
    };
    const seenPayloads: unknown[] = [];
    const spy: HandoffInterceptor = { name: 'spy', send: (given, next) => (seenPayloads.push(given.payload), next(given)) };
    const result = await composeHandoffChain([constrain, spy], 'send')!(handoff);
    expect(result.payload).toMatchObject({ constraints: ['no network'], priority: DEFAULT_PRIORITY });
    expect(seenPayloads).toEqual([result.payload]);
  });

  it('refuses, naming the interceptor and the message, when one throws', async () => {
    const seen: string[] = [];
    const refuse: HandoffInterceptor = {
      name: 'no-secrets',
      send: () => {
        throw new Error('the objective names a secret');
      },
    };
    const chain = composeHandoffChain([noting('outer', seen), refuse, noting('never', seen)], 'send')!;
    const refusal = await chain(handoff).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(HandoffRefusedError);
    expect(refusal).toMatchObject({
      code: 'handoff_refused',
      retryable: false,
      interceptor: 'no-secrets',
      message: 'no-secrets refused the delegation root-1.0-0 from PROGRESS_MONITOR to ABSTRACT_ARCHITECT: the objective names a secret',
    });
    // The outer one saw the refusal come back through `next`, and the refusal stays the inner one's.
    expect(seen).toEqual(['outer in']);
  });

  it('refuses what an interceptor should not return: nothing, another message, an invalid payload', async () => {
    const cases: [HandoffHook, string][] = [
      [() => undefined as unknown as Handoff, 'it returned no handoff'],
      [(given, next) => next({ ...given, id: 'root-2.0-0' }), "it changed the handoff's id; only its payload may change"],
      [(given, next) => next({ ...given, to: 'SPECIALIZED_FLEET' }), "it changed the handoff's to"],
      [(given, next) => next({ ...given, payload: { ...given.payload, priority: 99 } } as Handoff), 'the payload it returned is invalid: $.priority'],
    ];
    for (const [send, problem] of cases) {
      const chain = composeHandoffChain([{ name: 'faulty', send }], 'send')!;
      await expect(chain(handoff)).rejects.toThrow(problem);
    }
  });

  it('lets an interceptor pass the handoff on without the rest of the chain (later interceptors do not see it)', async () => {
    const chain = composeHandoffChain([{ name: 'short', send: (given) => given }], 'send')!;
    expect(await chain(handoff)).toBe(handoff);
  });
});

describe('interceptors given in the options', () => {
  it('are checked for a name and a hook', () => {
    expect(interceptorProblems({ name: 'ok', send: () => undefined })).toEqual([]);
    expect(interceptorProblems(null)).toEqual(['must be an interceptor: { name, send?, receive? }']);
    expect(interceptorProblems({ name: '', receive: 'no' })).toEqual(['name: must be a non-empty string', 'receive: must be a function']);
    expect(interceptorProblems({ name: 'idle' })).toEqual(['must have a send or a receive hook']);
  });
});

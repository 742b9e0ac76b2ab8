import { Role, type Message, type Part } from '@a2a-js/sdk';
import { describe, expect, it } from 'vitest';
import { DELEGATION_CHAIN_KEY } from '@tierflow/protocol';
import { checkChain, objectiveFileOf, readMessage } from './message-input.js';

const text = (value: string): Part => ({ content: { $case: 'text', value }, mediaType: 'text/plain', filename: '', metadata: undefined });
const data = (value: unknown): Part => ({ content: { $case: 'data', value }, mediaType: 'application/json', filename: '', metadata: undefined });
const message = (parts: Part[], messageId = 'm1', metadata?: Record<string, unknown>): Message => ({
  messageId,
  contextId: '',
  taskId: '',
  role: Role.ROLE_USER,
  parts,
  metadata,
  extensions: [],
  referenceTaskIds: [],
});

describe('a client’s message', () => {
  it('gives its text as the objective, over its data part’s, and the data part as the rest of the objective file', () => {
    const plan = { strategy: 'all_success', subtasks: [{ objective: 'one' }] };
    expect(objectiveFileOf(readMessage(message([text(' Write it '), data({ objective: 'ignored', task_data: { plan } })])))).toEqual({ objective: 'Write it', task_data: { plan } });
    expect(objectiveFileOf(readMessage(message([data({ objective: 'from the file' })])))).toEqual({ objective: 'from the file' });
    expect(objectiveFileOf(readMessage(message([text('first'), text('second')])))).toEqual({ objective: 'first\n\nsecond' });
  });

  it('is refused without an objective, with a data part that is not an object or two of them, and with files', () => {
    expect(() => objectiveFileOf(readMessage(message([])))).toThrow(/needs a text part/);
    expect(() => readMessage(message([data([1, 2])]))).toThrow(/must be a JSON object/);
    expect(() => readMessage(message([data({}), data({})]))).toThrow(/at most one data part/);
    expect(() => readMessage(message([{ content: { $case: 'url', value: 'https://example.com/f' }, mediaType: '', filename: '', metadata: undefined }]))).toThrow(/file parts/);
    expect(() => readMessage(message([text('x')], ''))).toThrow(/messageId/);
    expect(() => readMessage(undefined)).toThrow(/no message/);
  });

  it('reads the delegation chain in its metadata, none crossed without one, and refuses one out of shape', () => {
    const chain = { depth: 1, visited: ['d-a'] };
    expect(readMessage(message([text('x')], 'm1', { [DELEGATION_CHAIN_KEY]: chain })).chain).toEqual(chain);
    expect(readMessage(message([text('x')], 'm1', { other: 1 })).chain).toEqual({ depth: 0, visited: [] });
    expect(() => readMessage(message([text('x')], 'm1', { [DELEGATION_CHAIN_KEY]: { depth: 'one' } }))).toThrow(/must be \{ depth/);
  });

  it('puts the chain in the root’s task_data, over any the data part says', () => {
    const chain = { depth: 1, visited: ['d-a'] };
    const forged = { depth: 0, visited: [] };
    const meta = { [DELEGATION_CHAIN_KEY]: chain };
    expect(objectiveFileOf(readMessage(message([text('x'), data({ task_data: { a: 1, [DELEGATION_CHAIN_KEY]: forged } })], 'm1', meta)))).toEqual({
      objective: 'x',
      task_data: { a: 1, [DELEGATION_CHAIN_KEY]: chain },
    });
    expect(objectiveFileOf(readMessage(message([text('x')], 'm1', meta)))).toEqual({ objective: 'x', task_data: { [DELEGATION_CHAIN_KEY]: chain } });
    // From a client that is not a Tierflow: nothing recorded, and a chain it put in the file is dropped.
    expect(objectiveFileOf(readMessage(message([text('x'), data({ task_data: { [DELEGATION_CHAIN_KEY]: chain } })])))).toEqual({ objective: 'x', task_data: {} });
    expect(objectiveFileOf(readMessage(message([text('x')])))).toEqual({ objective: 'x' });
  });

  it.each([
    ['a cycle', { depth: 1, visited: ['d-self'] }, 1, /^delegation_cycle: delegation cycle: deployment d-self/, 'delegation_cycle'],
    ['work too deep', { depth: 2, visited: ['d-a', 'd-b'] }, 1, /^delegation_too_deep: /, 'delegation_too_deep'],
  ] as const)('refuses %s with an A2A error naming the error type', (_, chain, maxDepth, said, type) => {
    const refused = (): void => checkChain({ chain: { depth: chain.depth, visited: [...chain.visited] } }, 'd-self', maxDepth);
    expect(refused).toThrow(said);
    expect(refused).toThrow(expect.objectContaining({ name: 'UnsupportedOperationError', metadata: { error_type: type } }) as Error);
  });

  it('takes work within the limit from elsewhere', () => {
    expect(() => checkChain({ chain: { depth: 1, visited: ['d-a'] } }, 'd-self', 1)).not.toThrow();
  });
});

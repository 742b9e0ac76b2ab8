import { Role, type Message, type Part } from '@a2a-js/sdk';
import { describe, expect, it } from 'vitest';
import { objectiveFileOf, readMessage } from './message-input.js';

const text = (value: string): Part => ({ content: { $case: 'text', value }, mediaType: 'text/plain', filename: '', metadata: undefined });
const data = (value: unknown): Part => ({ content: { $case: 'data', value }, mediaType: 'application/json', filename: '', metadata: undefined });
const message = (parts: Part[], messageId = 'm1'): Message => ({ messageId, contextId: '', taskId: '', role: Role.ROLE_USER, parts, metadata: undefined, extensions: [], referenceTaskIds: [] });

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
});

import { describe, expect, it } from 'vitest';
import { inputContentAttributes, inputMessagesOf, outputContentAttributes } from './content.js';

describe('content in the GenAI conventions’ form', () => {
  it('puts system and developer messages in the instructions, the rest in the input, each as text parts', () => {
    const messages = [
      { role: 'system', content: 'You write haiku.' },
      { role: 'user', content: 'About queues.' },
      { role: 'assistant', content: 'Jobs wait in a line' },
      { role: 'developer', content: [{ type: 'text', text: 'Be brief.' }] },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Again.' },
          { type: 'image_url', image_url: { url: 'x' } },
        ],
      },
      'not a message',
      { content: 'no role' },
    ];
    expect(inputMessagesOf(messages)).toEqual({
      instructions: [
        { type: 'text', content: 'You write haiku.' },
        { type: 'text', content: 'Be brief.' },
      ],
      input: [
        { role: 'user', parts: [{ type: 'text', content: 'About queues.' }] },
        { role: 'assistant', parts: [{ type: 'text', content: 'Jobs wait in a line' }] },
        { role: 'user', parts: [{ type: 'text', content: 'Again.' }] },
      ],
    });
  });

  it('gives JSON-text attributes, the instructions only when there are some', () => {
    expect(inputContentAttributes([{ role: 'user', content: 'hi' }])).toEqual({ 'gen_ai.input.messages': '[{"role":"user","parts":[{"type":"text","content":"hi"}]}]' });
    expect(inputContentAttributes([{ role: 'system', content: 'be kind' }])['gen_ai.system_instructions']).toBe('[{"type":"text","content":"be kind"}]');
  });

  it('writes the tools a model asks to call, and their answers, as tool_call and tool_call_response parts', () => {
    const messages = [
      { role: 'user', content: 'Look it up' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'look_up', arguments: '{"word":"tier"}' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: 'tier: a level' },
    ];
    expect(inputMessagesOf(messages).input).toEqual([
      { role: 'user', parts: [{ type: 'text', content: 'Look it up' }] },
      { role: 'assistant', parts: [{ type: 'tool_call', id: 'call_1', name: 'look_up', arguments: { word: 'tier' } }] },
      { role: 'tool', parts: [{ type: 'tool_call_response', id: 'call_1', response: 'tier: a level' }] },
    ]);
    const output = outputContentAttributes('', 'tool_calls', [{ id: 'call_2', name: 'echo', arguments: 'not json' }]);
    expect(JSON.parse(String(output['gen_ai.output.messages']))).toEqual([
      { role: 'assistant', parts: [{ type: 'tool_call', id: 'call_2', name: 'echo', arguments: 'not json' }], finish_reason: 'tool_calls' },
    ]);
  });

  it('gives the answer as one assistant message with its finish reason', () => {
    expect(JSON.parse(String(outputContentAttributes('done', 'length')['gen_ai.output.messages']))).toEqual([
      { role: 'assistant', parts: [{ type: 'text', content: 'done' }], finish_reason: 'length' },
    ]);
    expect(JSON.parse(String(outputContentAttributes('done', null)['gen_ai.output.messages']))).toEqual([expect.objectContaining({ finish_reason: 'stop' })]);
  });
});

import { describe, expect, it } from 'vitest';
import { toolResultFromMcp } from './mcp-content.js';

describe('toolResultFromMcp', () => {
  it('joins text parts with line breaks', () => {
    expect(
      toolResultFromMcp({
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
      }),
    ).toEqual({ content: 'a\nb' });
  });

  it('passes isError on', () => {
    expect(toolResultFromMcp({ content: [{ type: 'text', text: 'no' }], isError: true })).toEqual({ content: 'no', isError: true });
    expect(toolResultFromMcp({ content: [], isError: false })).toEqual({ content: '' });
  });

  it('describes parts other than text', () => {
    const result = toolResultFromMcp({
      content: [
        { type: 'image', data: 'aGVsbG8=', mimeType: 'image/png' },
        { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
        { type: 'resource', resource: { uri: 'file:///a.txt', text: 'hello' } },
        { type: 'resource', resource: { uri: 'file:///b.bin', mimeType: 'application/octet-stream', blob: 'AAAAAAAA' } },
        { type: 'resource_link', uri: 'file:///c', name: 'c' },
      ],
    });
    expect(result.content.split('\n')).toEqual([
      '[image image/png, 6 bytes]',
      '[audio audio/wav, 3 bytes]',
      '[resource file:///a.txt]',
      'hello',
      '[resource file:///b.bin application/octet-stream, 6 bytes]',
      '[resource link file:///c (c)]',
    ]);
  });

  it('never throws on odd content', () => {
    const cyclic: Record<string, unknown> = { type: 'strange' };
    cyclic['self'] = cyclic;
    for (const odd of [null, undefined, 42, 'text', [], { content: 'not a list' }, { content: [null, 7, { type: 'text', text: 3 }, { type: 'weird', x: 1 }, cyclic, { type: 'text', n: 10n }] }]) {
      expect(() => toolResultFromMcp(odd)).not.toThrow();
    }
    expect(toolResultFromMcp({ content: [{ type: 'weird', x: 1 }] }).content).toBe('{"type":"weird","x":1}');
    expect(toolResultFromMcp({ content: [{ type: 'weird', x: 'y'.repeat(2_000) }] }).content).toHaveLength(501);
  });

  it('falls back to structured content, and to an old server`s toolResult', () => {
    expect(toolResultFromMcp({ content: [], structuredContent: { sum: 3 } })).toEqual({ content: '{"sum":3}' });
    expect(toolResultFromMcp({ toolResult: 'ok' })).toEqual({ content: '"ok"' });
  });
});

import { Command } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { encodeCommand } from './command-encoding.js';

/** ioredis's own encoding of the same command, the reference. */
function ioredisEncoding(name: string, args: readonly (string | Buffer)[]): Buffer {
  return Buffer.from(new Command(name, [...args]).toWritable({}));
}

describe('encodeCommand', () => {
  const cases: [string, (string | Buffer)[]][] = [
    ['no arguments', []],
    ['text only', ['k', 'value', '']],
    ['text beyond ASCII', ['clé', '— ✓ 𝄞', 'ok']],
    ['one Buffer among text', ['a', Buffer.from([0xde, 0x00, 0xff, 0x80]), 'b']],
    ['Buffers first, last, empty and side by side', [Buffer.from([1, 2]), Buffer.alloc(0), Buffer.from([0xc0]), 'mid', Buffer.from('é')]],
  ];

  it.each(cases)('writes what ioredis writes: %s', (_label, args) => {
    expect(Buffer.from(encodeCommand('evalsha', args))).toEqual(ioredisEncoding('evalsha', args));
  });

  it('stays a string while no argument is binary', () => {
    expect(encodeCommand('set', ['k', 'v'])).toBe('*3\r\n$3\r\nset\r\n$1\r\nk\r\n$1\r\nv\r\n');
  });
});

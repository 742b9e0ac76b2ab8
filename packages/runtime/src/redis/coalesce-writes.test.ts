import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { coalesceWrites } from './coalesce-writes.js';

/** A stream that records each batch its writes reach it in. */
function recordingStream(): { stream: Writable; batches: string[][] } {
  const batches: string[][] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      batches.push([chunk.toString()]);
      done();
    },
    writev(chunks, done) {
      batches.push(chunks.map(({ chunk }) => (chunk as Buffer).toString()));
      done();
    },
  });
  return { stream, batches };
}

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('coalesceWrites', () => {
  it('sends the writes of one burst of work, continuations included, as one batch, in order', async () => {
    const { stream, batches } = recordingStream();
    coalesceWrites(stream);
    // As jobs do: a reply resolves several promises, and each continuation writes its next command.
    await Promise.resolve().then(async () => {
      stream.write('a');
      stream.write('b');
      await Promise.resolve();
      stream.write('c');
    });
    await nextTurn();
    expect(batches).toEqual([['a', 'b', 'c']]);
    stream.write('d');
    await nextTurn();
    expect(batches).toEqual([['a', 'b', 'c'], ['d']]);
  });

  it('leaves a plain stream sending each write on its own', async () => {
    const { stream, batches } = recordingStream();
    stream.write('a');
    stream.write('b');
    await nextTurn();
    expect(batches.flat()).toEqual(['a', 'b']);
    expect(batches.length).toBeGreaterThan(1);
  });

  it('wraps a stream once, however often it is asked to', async () => {
    const { stream, batches } = recordingStream();
    coalesceWrites(stream);
    coalesceWrites(stream);
    stream.write('a');
    stream.write('b');
    await nextTurn();
    expect(batches).toEqual([['a', 'b']]);
  });
});

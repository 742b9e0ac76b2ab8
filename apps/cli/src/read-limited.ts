import { open } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { tooManyBytes, type InputLimits } from '@tierflow/runtime/admin';

/** `stream` to its end as UTF-8, or null once it has given more than `maxBytes`: nothing past that is held. */
export async function readLimited(stream: Readable, maxBytes: number): Promise<string | null> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of stream) {
    length += (chunk as Buffer).length;
    // Leaving the loop destroys the stream: a gigabyte file, or /dev/zero, is never read through.
    if (length > maxBytes) return null;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * A file of at most `limits.maxObjectiveBytes`: its size is checked before anything is read, and
 * the reading stops at the limit too (a device, a pipe, a file still growing).
 *
 * @throws InputTooLargeError (code `input_too_large`) naming the file, its size and the limit.
 */
export async function readFileWithin(path: string, limits: InputLimits): Promise<string> {
  const file = await open(path, 'r');
  try {
    const { size } = await file.stat();
    if (size > limits.maxObjectiveBytes) throw tooManyBytes(path, size, limits);
    const text = await readLimited(file.createReadStream({ autoClose: false }), limits.maxObjectiveBytes);
    if (text === null) throw tooManyBytes(path, null, limits);
    return text;
  } finally {
    await file.close();
  }
}

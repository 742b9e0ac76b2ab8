/**
 * A command in Redis's wire format (RESP), as one string, or one Buffer when an argument is
 * binary. ioredis, given any Buffer among the arguments, turns every other argument into bytes
 * on its own and measures each three times; the scripts that complete jobs and send rounds carry
 * a hundred or more arguments with one Buffer among them (BullMQ's packed job options). Here the
 * text runs between binary arguments are joined as strings (faster than writing each argument
 * into place, two native calls apiece) and written once each into a Buffer of the command's size.
 */
export function encodeCommand(name: string, args: readonly (string | Buffer)[]): string | Buffer {
  let text = `*${args.length + 1}\r\n$${Buffer.byteLength(name)}\r\n${name}\r\n`;
  let parts: (string | Buffer)[] | null = null;
  for (const arg of args) {
    if (typeof arg === 'string') {
      text += `$${Buffer.byteLength(arg)}\r\n${arg}\r\n`;
      continue;
    }
    parts ??= [];
    parts.push(`${text}$${arg.length}\r\n`, arg);
    text = '\r\n';
  }
  if (parts === null) return text;
  parts.push(text);
  return joined(parts);
}

/** Text runs and Buffers, in order, as one Buffer: each measured, then written into place. */
function joined(parts: readonly (string | Buffer)[]): Buffer {
  let size = 0;
  const sizes = parts.map((part) => (typeof part === 'string' ? Buffer.byteLength(part) : part.length));
  for (const partSize of sizes) size += partSize;
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  parts.forEach((part, index) => {
    if (typeof part === 'string') out.write(part, at);
    else part.copy(out, at);
    at += sizes[index]!;
  });
  return out;
}

/**
 * A command in Redis's wire format (RESP), as one string, or one Buffer when an argument is
 * binary. ioredis, given any Buffer among the arguments, turns every other argument into bytes
 * on its own and measures each three times; the scripts that complete jobs and send rounds carry
 * a hundred or more arguments with one Buffer among them (BullMQ's packed job options). Here the
 * text runs between binary arguments are joined as strings and encoded once each.
 */
export function encodeCommand(name: string, args: readonly (string | Buffer)[]): string | Buffer {
  let text = `*${args.length + 1}\r\n$${Buffer.byteLength(name)}\r\n${name}\r\n`;
  let parts: Buffer[] | null = null;
  for (const arg of args) {
    if (typeof arg === 'string') {
      text += `$${Buffer.byteLength(arg)}\r\n${arg}\r\n`;
      continue;
    }
    parts ??= [];
    parts.push(Buffer.from(`${text}$${arg.length}\r\n`), arg);
    text = '\r\n';
  }
  if (parts === null) return text;
  parts.push(Buffer.from(text));
  return Buffer.concat(parts);
}

import { createHash } from 'node:crypto';
import { Command } from 'ioredis';
import type { RedisClient } from '@tierflow/beads';
import { encodeCommand } from './command-encoding.js';

/** A Lua script of the runtime's: its source, with a header naming its KEYS and ARGV. */
export interface RedisScript {
  readonly lua: string;
}

type ScriptArg = string | number | Buffer;

/** A script, its SHA, and the sockets it has been sent on in full (so Redis knows it there). */
interface LoadedScript {
  readonly script: RedisScript;
  readonly sha: string;
  readonly sentOn: WeakSet<object>;
}

const loaded = new WeakMap<RedisScript, LoadedScript>();

function loadedScript(script: RedisScript): LoadedScript {
  let known = loaded.get(script);
  if (!known) {
    known = { script, sha: createHash('sha1').update(script.lua).digest('hex'), sentOn: new WeakSet() };
    loaded.set(script, known);
  }
  return known;
}

/**
 * One call of a script: EVAL with its source the first time on a socket, EVALSHA after, as
 * ioredis's own scripts do, written in one pass ({@link encodeCommand}).
 */
class ScriptCall extends Command {
  /** The socket it was last written to: Redis there has forgotten the script if it answers NOSCRIPT. */
  socket: object | null = null;

  constructor(
    private readonly loaded: LoadedScript,
    keys: readonly string[],
    args: readonly ScriptArg[],
  ) {
    // Built empty, the arguments set after: Command flattens what it is given with Array#flat,
    // which took 9 µs for a hundred arguments, as long as writing them out.
    super('evalsha', [], { replyEncoding: 'utf8' });
    const words: (string | Buffer)[] = [loaded.sha, String(keys.length), ...keys];
    for (const arg of args) words.push(typeof arg === 'number' ? String(arg) : arg);
    this.args = words;
  }

  override toWritable(socket: object): string | Buffer {
    this.socket = socket;
    const { script, sha, sentOn } = this.loaded;
    const sendSource = !sentOn.has(socket);
    if (sendSource) sentOn.add(socket);
    this.name = sendSource ? 'eval' : 'evalsha';
    this.args[0] = sendSource ? script.lua : sha;
    return encodeCommand(this.name, this.args as (string | Buffer)[]);
  }
}

/**
 * Runs a script by its SHA (EVALSHA), sending its source on a connection's first call: Redis
 * learns it then, and again after it has forgotten it (a restart, a new cluster node, a SCRIPT
 * FLUSH, which answers NOSCRIPT). Sending the source with every call made Redis hash it each time.
 */
export async function runScript(redis: RedisClient, script: RedisScript, keys: readonly string[], args: readonly ScriptArg[]): Promise<unknown> {
  const known = loadedScript(script);
  const call = new ScriptCall(known, keys, args);
  try {
    return await redis.sendCommand(call);
  } catch (error) {
    if (!(error instanceof Error) || !error.message.includes('NOSCRIPT')) throw error;
    if (call.socket) known.sentOn.delete(call.socket);
    return redis.sendCommand(new ScriptCall(known, keys, args));
  }
}

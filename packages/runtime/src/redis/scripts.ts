import type { RedisClient } from '@tierflow/beads';

/** A Lua script of the runtime's: its name on a connection, and its source (with a header naming its KEYS and ARGV). */
export interface RedisScript {
  readonly name: string;
  readonly lua: string;
}

type ScriptArg = string | number | Buffer;
type ScriptCommand = (keyCount: number, ...keysAndArgs: ScriptArg[]) => Promise<unknown>;

/**
 * Runs a script by its SHA (EVALSHA), defined on the connection the first time: ioredis loads
 * it when Redis does not know it yet (a restart, a new cluster node). Sending the source with
 * every EVAL made Redis hash it again on each call, and put it on the wire each time.
 */
export function runScript(redis: RedisClient, script: RedisScript, keys: readonly string[], args: readonly ScriptArg[]): Promise<unknown> {
  const command = `tierflow_${script.name}`;
  if (!(command in redis)) redis.defineCommand(command, { lua: script.lua });
  const run = (redis as unknown as Record<string, ScriptCommand>)[command]!;
  return run.call(redis, keys.length, ...keys, ...args);
}

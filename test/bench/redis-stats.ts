import type { Redis } from 'ioredis';

/** Counters from INFO that grow with the work Redis does. */
export interface RedisCounters {
  readonly commands: number;
  /** used_cpu_sys + used_cpu_user, in microseconds. */
  readonly cpuMicros: number;
}

function field(info: string, name: string): number {
  const value = Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1]);
  if (!Number.isFinite(value)) throw new Error(`INFO has no ${name}`);
  return value;
}

export async function redisCounters(redis: Redis): Promise<RedisCounters> {
  const [stats, cpu] = await Promise.all([redis.info('stats'), redis.info('cpu')]);
  return {
    commands: field(stats, 'total_commands_processed'),
    cpuMicros: Math.round((field(cpu, 'used_cpu_sys') + field(cpu, 'used_cpu_user')) * 1e6),
  };
}

export function countersSince(before: RedisCounters, after: RedisCounters): RedisCounters {
  return { commands: after.commands - before.commands, cpuMicros: after.cpuMicros - before.cpuMicros };
}

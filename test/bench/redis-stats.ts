import type { Redis } from 'ioredis';

/** Counters from INFO that grow with the work Redis does. */
export interface RedisCounters {
  readonly commands: number;
  /** used_cpu_sys + used_cpu_user, in microseconds. */
  readonly cpuMicros: number;
  /** Reads from clients' sockets (total_reads_processed): one per batch of commands a client sent together. */
  readonly reads: number;
  /** Bytes read from and written to clients (total_net_input_bytes, total_net_output_bytes). */
  readonly inBytes: number;
  readonly outBytes: number;
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
    reads: field(stats, 'total_reads_processed'),
    inBytes: field(stats, 'total_net_input_bytes'),
    outBytes: field(stats, 'total_net_output_bytes'),
  };
}

export function countersSince(before: RedisCounters, after: RedisCounters): RedisCounters {
  return {
    commands: after.commands - before.commands,
    cpuMicros: after.cpuMicros - before.cpuMicros,
    reads: after.reads - before.reads,
    inBytes: after.inBytes - before.inBytes,
    outBytes: after.outBytes - before.outBytes,
  };
}

import type { RedisClient } from '@tierflow/beads';
import { runScript, type RedisScript } from '../redis/scripts.js';

/**
 * Starts a run alone of a job its workers died holding: the marks of earlier runs alone that never
 * ended (their worker died, or lost the job, while they ran) are counted as deaths alone and
 * dropped, then this run is marked. The run's end removes its mark (HDEL), so a mark found here is
 * a run alone that never ended.
 *   KEYS[1]  the job's crash record (controlKeys.crashes), a hash: `alone_deaths`, and `run:<token>`
 *            for each run alone under way, by its lock token
 *   ARGV[1]  this run's field, `run:<token>`
 *   ARGV[2]  the record's time to live, in ms
 * Returns the deaths alone counted so far, this run not among them. A count that is not a whole
 * number (a record written by something else) is read as none.
 */
const RUN_ALONE: RedisScript = {
  lua: `
local deaths = tonumber(redis.call('HGET', KEYS[1], 'alone_deaths') or '') or 0
if deaths < 0 or deaths ~= math.floor(deaths) then deaths = 0 end
for _, field in ipairs(redis.call('HKEYS', KEYS[1])) do
  if field ~= 'alone_deaths' and field ~= ARGV[1] then
    redis.call('HDEL', KEYS[1], field)
    if string.sub(field, 1, 4) == 'run:' then deaths = deaths + 1 end
  end
end
redis.call('HSET', KEYS[1], 'alone_deaths', deaths, ARGV[1], '1')
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return deaths`,
};

/**
 * What a worker records of the jobs it runs alone (crash-guard.ts), so that the next worker to
 * take such a job back knows whether a death came while it ran alone: the one piece of evidence
 * that convicts a job of killing its worker. Jobs that run beside others write nothing here.
 */
export class CrashEvidence {
  constructor(
    private readonly redis: RedisClient,
    /** The job's crash record (controlKeys.crashes). */
    private readonly keyOf: (jobId: string) => string,
    private readonly ttlMs: number,
  ) {}

  /** Marks a run alone by `token` (its lock token) and answers how many earlier runs alone died. */
  async runAlone(jobId: string, token: string): Promise<number> {
    const deaths = Number(await runScript(this.redis, RUN_ALONE, [this.keyOf(jobId)], [`run:${token}`, this.ttlMs]));
    return Number.isSafeInteger(deaths) && deaths > 0 ? deaths : 0;
  }

  /** The run alone by `token` ended, whichever way, with its worker alive. */
  async ended(jobId: string, token: string): Promise<void> {
    await this.redis.hdel(this.keyOf(jobId), `run:${token}`);
  }
}

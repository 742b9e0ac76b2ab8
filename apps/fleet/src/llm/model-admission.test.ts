import { ModelCapacityWait, PARK_AFTER_MS, resolveModelLimit, roomWaitMs, type ModelAdmission, type ModelLimiter, type ModelParking } from '@tierflow/runtime/policy';
import { describe, expect, it } from 'vitest';
import { SpecialistThrottledError } from '../specialist.js';
import { admitted } from './model-admission.js';

/** A limiter that answers from a list, and records what it was asked. */
function scripted(answers: ModelAdmission[]) {
  const asked: string[] = [];
  const settled: [string, number | null, boolean][] = [];
  const limiter: ModelLimiter = {
    reserve: (_model, _limit, id) => {
      asked.push(id);
      return Promise.resolve(answers.shift() ?? { granted: true });
    },
    settle: (_model, _limit, id, used, unsent) => {
      settled.push([id, used, unsent]);
      return Promise.resolve();
    },
    pause: () => Promise.resolve(),
  };
  return { limiter, asked, settled };
}

const terms = (limiter: ModelLimiter | undefined, signal: AbortSignal, deadline: number | null) => ({
  limiter,
  limit: resolveModelLimit({ rpm: 1 }),
  model: 'm',
  tokens: 10,
  signal,
  deadline,
});

describe('admitted', () => {
  it('asks again, under the same id, after each wait the limiter names, then settles that id', async () => {
    const { limiter, asked, settled } = scripted([
      { granted: false, waitMs: 5, reason: 'rpm' },
      { granted: false, waitMs: 5, reason: 'concurrent' },
    ]);
    const waits: number[] = [];
    const permit = await admitted({ ...terms(limiter, new AbortController().signal, null), onWait: (ms) => waits.push(ms) });
    expect(waits).toEqual([5, 5]);
    expect(new Set(asked).size).toBe(1);
    expect(asked).toHaveLength(3);
    await permit.settle(42, false);
    expect(settled).toEqual([[asked[0], 42, false]]);
  });

  it('waits for a concurrent slot until told of room where the limiter hears of it, and an rpm wait as it was told', async () => {
    const { limiter, asked } = scripted([
      { granted: false, waitMs: 100, reason: 'concurrent' },
      { granted: false, waitMs: 100, reason: 'queued' },
    ]);
    const roomWaits: [string, number][] = [];
    const hearing: ModelLimiter = {
      ...limiter,
      waitForRoom: (id, ms) => {
        roomWaits.push([id, ms]);
        return Promise.resolve();
      },
    };
    const waits: string[] = [];
    await admitted({ ...terms(hearing, new AbortController().signal, null), limit: resolveModelLimit({ concurrent: 2 }), onWait: (_ms, reason) => waits.push(reason) });
    expect(roomWaits).toEqual([
      [asked[0], roomWaitMs(100, 0, null)],
      [asked[0], roomWaitMs(100, 0, null)],
    ]);
    expect(waits).toEqual(['concurrent', 'queued']);
    // A model with no concurrent limit waits for its window as told: no settle tells of room there.
    const rpm = scripted([{ granted: false, waitMs: 5, reason: 'queued' }]);
    const told: number[] = [];
    await admitted({ ...terms({ ...rpm.limiter, waitForRoom: () => Promise.reject(new Error('not for rpm')) }, new AbortController().signal, null), onWait: (ms) => told.push(ms) });
    expect(told).toEqual([5]);
  });

  it('stops a wait for room at once when the signal aborts', async () => {
    const { limiter } = scripted([{ granted: false, waitMs: 100, reason: 'concurrent' }]);
    const controller = new AbortController();
    const hearing: ModelLimiter = { ...limiter, waitForRoom: () => Promise.resolve(controller.abort(new Error('cancelled'))) };
    await expect(admitted({ ...terms(hearing, controller.signal, null), limit: resolveModelLimit({ concurrent: 1 }) })).rejects.toThrow('cancelled');
  });

  it('answers throttled when the wait would pass the deadline', async () => {
    const { limiter } = scripted([{ granted: false, waitMs: 60_000, reason: 'rpm' }]);
    await expect(admitted(terms(limiter, new AbortController().signal, Date.now() + 1_000))).rejects.toBeInstanceOf(SpecialistThrottledError);
  });

  it('stops waiting the moment the signal aborts', async () => {
    const { limiter } = scripted([{ granted: false, waitMs: 60_000, reason: 'paused' }]);
    const controller = new AbortController();
    const waiting = admitted({ ...terms(limiter, controller.signal, null), onWait: () => controller.abort(new Error('cancelled')) });
    await expect(waiting).rejects.toThrow('cancelled');
  });

  it('holds nothing without a limiter, and a settle that fails is let go', async () => {
    const permit = await admitted(terms(undefined, new AbortController().signal, null));
    await expect(permit.settle(1, false)).resolves.toBeUndefined();
    const failing: ModelLimiter = { reserve: () => Promise.resolve({ granted: true }), settle: () => Promise.reject(new Error('down')), pause: () => Promise.resolve() };
    await expect((await admitted(terms(failing, new AbortController().signal, null))).settle(1, false)).resolves.toBeUndefined();
  });

  describe('parking', () => {
    /** Parking for one pass under `id`, open until a call is granted. */
    function parking(id: string): ModelParking & { open: boolean } {
      const park = { id, open: true, available: () => park.open, granted: () => void (park.open = false) };
      return park;
    }

    it('parks on a long wait, under the parking id, keeping its place in turn', async () => {
      const { limiter, asked, settled } = scripted([{ granted: false, waitMs: PARK_AFTER_MS, reason: 'rpm' }]);
      const before = Date.now();
      const error: unknown = await admitted({ ...terms(limiter, new AbortController().signal, null), parking: parking('job-1#1') }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ModelCapacityWait);
      expect((error as ModelCapacityWait).until).toBeGreaterThanOrEqual(before + PARK_AFTER_MS);
      expect((error as ModelCapacityWait).reason).toBe('rpm');
      expect(asked).toEqual(['job-1#1']);
      expect(settled).toEqual([]);
    });

    it('waits a short wait where it is, and closes parking once granted: a later long wait is waited too', async () => {
      const { limiter, asked } = scripted([{ granted: false, waitMs: 5, reason: 'queued' }, { granted: true }, { granted: false, waitMs: PARK_AFTER_MS, reason: 'rpm' }]);
      const park = parking('job-2#1');
      await admitted({ ...terms(limiter, new AbortController().signal, null), parking: park });
      expect(park.open).toBe(false);
      expect(asked).toEqual(['job-2#1', 'job-2#1']);
      await admitted({ ...terms(limiter, new AbortController().signal, null), parking: park });
      expect(asked).toHaveLength(4);
      expect(asked[2]).not.toBe('job-2#1');
    });

    it('answers throttled rather than parking past the deadline', async () => {
      const { limiter } = scripted([{ granted: false, waitMs: 60_000, reason: 'paused' }]);
      const waiting = admitted({ ...terms(limiter, new AbortController().signal, Date.now() + 5_000), parking: parking('job-3#1') });
      await expect(waiting).rejects.toBeInstanceOf(SpecialistThrottledError);
    });
  });
});

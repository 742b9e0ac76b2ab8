/**
 * Loaded into a worker process with `--import`, this moves the process's wall clock by
 * SKEWED_CLOCK_MS (positive: ahead), as a host whose clock is off would be. Only the wall clock
 * moves (Date); the monotonic clock, and so timers, run as they should.
 */
const skew = Number(process.env.SKEWED_CLOCK_MS ?? 0);

if (Number.isFinite(skew) && skew !== 0) {
  const RealDate = Date;
  const realNow = Date.now.bind(Date);
  class SkewedDate extends RealDate {
    constructor(...args: ConstructorParameters<DateConstructor> | []) {
      if (args.length === 0) super(realNow() + skew);
      else super(...args);
    }

    static override now(): number {
      return realNow() + skew;
    }
  }
  globalThis.Date = SkewedDate as DateConstructor;
}

export {};

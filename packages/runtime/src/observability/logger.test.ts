import { describe, expect, it } from 'vitest';
import type { TierLogger } from '../policy/handler.js';
import { throttledWarning } from './logger.js';

describe('throttledWarning', () => {
  it('says the first warning, holds back the rest for the interval, then says how many it held', () => {
    const lines: [string, Record<string, unknown> | undefined][] = [];
    const log: TierLogger = { info: () => undefined, warn: (message, fields) => lines.push([message, fields]) };
    let now = 0;
    const warn = throttledWarning(log, 'bad notice', 1000, () => now);
    warn({ n: 1 });
    now = 500;
    warn({ n: 2 });
    warn({ n: 3 });
    now = 1500;
    warn({ n: 4 });
    expect(lines).toEqual([
      ['bad notice', { n: 1 }],
      ['bad notice', { n: 4, held_back: 2 }],
    ]);
  });
});

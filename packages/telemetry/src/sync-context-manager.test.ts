import { createContextKey, ROOT_CONTEXT } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { SyncContextManager } from './sync-context-manager.js';

const key = createContextKey('test');
const outer = ROOT_CONTEXT.setValue(key, 'outer');
const inner = ROOT_CONTEXT.setValue(key, 'inner');

describe('SyncContextManager', () => {
  it('makes a context active for the callback, nested, and restores the one before', () => {
    const manager = new SyncContextManager();
    expect(manager.active()).toBe(ROOT_CONTEXT);
    const seen = manager.with(outer, () => [manager.active(), manager.with(inner, () => manager.active()), manager.active()]);
    expect(seen).toEqual([outer, inner, outer]);
    expect(manager.active()).toBe(ROOT_CONTEXT);
  });

  it('restores the context when the callback throws', () => {
    const manager = new SyncContextManager();
    expect(() =>
      manager.with(outer, () => {
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(manager.active()).toBe(ROOT_CONTEXT);
  });

  it('passes this and the arguments, and returns what the callback returns', () => {
    const manager = new SyncContextManager();
    const target = { base: 40 };
    expect(
      manager.with(
        outer,
        function (this: typeof target, add: number) {
          return this.base + add;
        },
        target,
        2,
      ),
    ).toBe(42);
  });

  it('carries a context through synchronous code only: after an await the outer one is back', async () => {
    const manager = new SyncContextManager();
    const [before, after] = await manager.with(outer, async () => {
      const first = manager.active();
      await Promise.resolve();
      return [first, manager.active()];
    });
    expect(before).toBe(outer);
    expect(after).toBe(ROOT_CONTEXT);
  });

  it('binds a function to a context and leaves other targets alone', () => {
    const manager = new SyncContextManager();
    const bound = manager.bind(inner, (x: number) => [manager.active(), x] as const);
    expect(bound(3)).toEqual([inner, 3]);
    const emitter = { on: () => undefined };
    expect(manager.bind(inner, emitter)).toBe(emitter);
  });
});

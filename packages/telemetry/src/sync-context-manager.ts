import { ROOT_CONTEXT, type Context, type ContextManager } from '@opentelemetry/api';

/**
 * A context manager that carries the active context through synchronous code only: inside
 * `context.with(ctx, fn)` the context is active until `fn` returns (for an async `fn`, until its
 * first await). It installs no async hooks, so it costs nothing on the promises a busy worker
 * makes; Tierflow passes every span's parent explicitly and needs no more.
 */
export class SyncContextManager implements ContextManager {
  private readonly stack: Context[] = [];

  active(): Context {
    return this.stack.at(-1) ?? ROOT_CONTEXT;
  }

  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(context: Context, fn: F, thisArg?: ThisParameterType<F>, ...args: A): ReturnType<F> {
    this.stack.push(context);
    try {
      return fn.call(thisArg, ...args);
    } finally {
      this.stack.pop();
    }
  }

  bind<T>(context: Context, target: T): T {
    if (typeof target !== 'function') return target;
    const run = (thisArg: unknown, args: unknown[]): unknown => this.with(context, () => (target as (...a: unknown[]) => unknown).apply(thisArg, args));
    return function (this: unknown, ...args: unknown[]) {
      return run(this, args);
    } as T;
  }

  enable(): this {
    return this;
  }

  disable(): this {
    this.stack.length = 0;
    return this;
  }
}

import { TierflowError } from '@tierflow/protocol';
import { describe, expect, it } from 'vitest';
import { resolveRuntimeOptions } from '../config/options.js';
import type { TierHandler, TierLogger } from '../policy/handler.js';
import { policyWorkerOptions, startPolicyWorker } from './policy-worker.js';

interface Policy {
  readonly maxRevisions?: number;
}

const runtime = resolveRuntimeOptions();

/** A policy factory that records what it was given. */
function recording(): { readonly given: unknown[]; readonly make: (policy: Policy) => TierHandler } {
  const given: unknown[] = [];
  const make = (policy: Policy): TierHandler => {
    given.push(policy);
    // Never run: these tests start no worker.
    return { tier: 'ABSTRACT_ARCHITECT', start: () => Promise.reject(new Error('not run')) };
  };
  return { given, make };
}

describe('a tier app worker', () => {
  it("hands the host's options to the worker and the rest, alone, to the policy", () => {
    const { given, make } = recording();
    const log: TierLogger = { info: () => {}, warn: () => {} };
    const metricsUrl = 'http://localhost:9464/metrics';
    const options = policyWorkerOptions(make, { runtime, concurrency: 3, cells: [0], log, budget: { max_cost_usd: 2 }, metricsUrl, maxRevisions: 1 });
    expect(given).toEqual([{ maxRevisions: 1 }]);
    expect(options).toEqual({ handler: expect.objectContaining({ tier: 'ABSTRACT_ARCHITECT' }) as unknown, runtime, concurrency: 3, cells: [0], log, budget: { max_cost_usd: 2 }, metricsUrl });
  });

  it("leaves out the host options left out, so the runtime's defaults apply", () => {
    const { given, make } = recording();
    const options = policyWorkerOptions(make, { runtime });
    expect(given).toEqual([{}]);
    expect(Object.keys(options).sort()).toEqual(['handler', 'runtime']);
  });

  it('hands the webhooks to the worker resolved, and refuses bad ones before anything starts', () => {
    const { given, make } = recording();
    const options = policyWorkerOptions(make, { runtime, notify: { subscriptions: [{ url: 'https://hooks.test/t', events: ['done'], secret: 's' }] } });
    expect(given).toEqual([{}]);
    expect(options.notify?.subscriptions).toEqual([{ url: 'https://hooks.test/t', events: ['done'], secret: 's', maxAttempts: 8, timeoutMs: 10_000 }]);
    expect(() => policyWorkerOptions(make, { runtime, notify: { subscriptions: [{ url: 'not a url', secret: 's' }] } })).toThrow(/invalid notify options/);
  });

  it('rejects, before anything starts, when the policy refuses its options', async () => {
    const refuse = (): TierHandler => {
      throw TierflowError.permanent('maxRevisions: too many', { code: 'invalid_config' });
    };
    const started = startPolicyWorker(refuse, { runtime });
    await expect(started).rejects.toThrow('maxRevisions: too many');
  });
});

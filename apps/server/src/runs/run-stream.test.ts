import { OpenAPIHono } from '@hono/zod-openapi';
import type { RunNode } from '@tierflow/runtime';
import { runNode } from '@tierflow/runtime/testing';
import { describe, expect, it } from 'vitest';
import { runStream } from './run-stream.js';

const root = (overrides: Partial<RunNode>): RunNode => runNode('r', { tier: 'PROGRESS_MONITOR', specialist: null, ...overrides });

describe('a run’s event stream', () => {
  it('tells of each change once, keeps a quiet stream alive with comments, and ends with the outcome', async () => {
    // Twelve quiet reads of a running root, then its outcome.
    let reads = 0;
    const client = {
      tree: () => Promise.resolve(++reads > 12 ? root({ status: 'success', source: 'outcome' }) : root({ status: 'waiting_for_children', source: 'queue' })),
      result: () => Promise.resolve(null),
    };
    const app = new OpenAPIHono();
    runStream(app, client, { intervalMs: 5, keepAliveMs: 20 });
    const text = await (await app.request('/api/runs/r/events')).text();
    const events = text.split('\n\n').filter((block) => block.startsWith('event:'));
    expect(events.map((block) => block.split('\n')[0])).toEqual(['event: node', 'event: node', 'event: outcome']);
    expect(text).toContain(': keep-alive\n\n');
  });

  it('says once that it knows no such run', async () => {
    const app = new OpenAPIHono();
    runStream(app, { tree: () => Promise.resolve(null), result: () => Promise.resolve(null) });
    expect(await (await app.request('/api/runs/nope/events')).text()).toMatch(/^event: error\ndata: \{"code":"unknown_run"/);
  });
});

import { describe, expect, it } from 'vitest';
import { routeSubtask, type Route } from './route.js';

const routing = { execute_code: ['python-lora', 'sim', 'python-lora'], test: ['test-lora'], '*': ['sim', 'gpu'] };

describe('routeSubtask', () => {
  it.each<[string, { task_type?: string; specialist_hint?: string }, Route]>([
    ['primary of its task type, the rest as alternates', { task_type: 'execute_code' }, { specialist: 'python-lora', alternates: ['sim'] }],
    ['a single-entry route has no alternate', { task_type: 'test' }, { specialist: 'test-lora', alternates: [] }],
    ['an unknown task type takes the fallback', { task_type: 'translate' }, { specialist: 'sim', alternates: ['gpu'] }],
    ['no task type takes the fallback', {}, { specialist: 'sim', alternates: ['gpu'] }],
    ['the hint wins; alternates are the route minus it', { task_type: 'execute_code', specialist_hint: 'sim' }, { specialist: 'sim', alternates: ['python-lora'] }],
    ['a hint outside the route keeps the whole route', { task_type: 'test', specialist_hint: 'gpt' }, { specialist: 'gpt', alternates: ['test-lora'] }],
    ['Object.prototype members are not routes', { task_type: 'constructor' }, { specialist: 'sim', alternates: ['gpu'] }],
  ])('%s', (_name, subtask, expected) => {
    expect(routeSubtask(subtask, routing)).toEqual(expected);
  });

  it('within collaboration boundaries, a route list yields only what the Dispatcher may hand work to; a hint stays, for the runtime to judge', () => {
    const boundaries = { dispatcher: ['fleet:sim', 'fleet:gpu'] };
    expect(routeSubtask({ task_type: 'execute_code' }, routing, boundaries)).toEqual({ specialist: 'sim', alternates: [] });
    expect(routeSubtask({ task_type: 'translate' }, routing, boundaries)).toEqual({ specialist: 'sim', alternates: ['gpu'] });
    expect(routeSubtask({ task_type: 'execute_code', specialist_hint: 'python-lora' }, routing, boundaries)).toEqual({ specialist: 'python-lora', alternates: ['sim'] });
    // None allowed: the route as it is, refused when sent, with the allowed targets.
    expect(routeSubtask({ task_type: 'test' }, routing, boundaries)).toEqual({ specialist: 'test-lora', alternates: [] });
  });

  it('fails permanently when nothing applies', () => {
    expect(() => routeSubtask({ task_type: 'x' }, {})).toThrow(expect.objectContaining({ code: 'no_route' }));
  });
});

import { describe, expect, it } from 'vitest';
import { rebased } from './node-calls.js';
import { requestHash } from './run-recorder.js';

describe('rebased', () => {
  it('reads a rerun’s root id in a request as the original’s, so a prompt naming its run matches the recorded one', () => {
    const request = (root: string) => ({ endpoint: 'http://x/v1', model: 'm', messages: [{ role: 'user', content: `context beads:routing/${root}/task-graph` }], params: { user: root } });
    const moved = rebased(request('new-root'), 'new-root', 'old-root');
    expect(moved).toEqual(request('old-root'));
    expect(requestHash(moved)).toBe(requestHash(request('old-root')));
    const same = request('root');
    expect(rebased(same, 'root', 'root')).toBe(same);
  });
});

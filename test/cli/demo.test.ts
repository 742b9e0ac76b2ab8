import { describe, expect, it } from 'vitest';
import { tierflow } from '../security/tier-processes.js';

// `npm run demo` as the README promises it: four worker processes on a private Redis, every
// example objective, and a question put to a person that the demo answers.
describe('tierflow demo', () => {
  it('runs every example, answering the one that asks a person', async () => {
    const { code, stdout, stderr } = await tierflow(['demo'], { REDIS_URL: '', TIERFLOW_LOG: 'silent' });
    expect(code, stderr).toBe(0);
    expect(stdout).toContain('clarification.json asks: Should an empty array return -1 or raise an exception?');
    expect(stdout).toContain('== clarification.json: success');
    expect(stdout).toMatch(/Ran \d+ objectives through four worker processes/);
  }, 90_000);
});

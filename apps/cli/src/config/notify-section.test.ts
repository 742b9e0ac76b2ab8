import { ConfigError } from '@tierflow/runtime';
import { readTierflowEnv } from '@tierflow/runtime/admin';
import { configRows } from './config-report.js';
import { describe, expect, it } from 'vitest';
import { projectConfigSchema } from './config-schema.js';
import { notifyOptionsOf } from './notify-section.js';

const where = (field: string) => `tierflow.config.json: ${field}`;

describe('the project file’s notify section', () => {
  it('takes a list of { url, events?, secretEnv }, and reads each secret from its variable', () => {
    const config = projectConfigSchema.parse({
      notify: [
        { url: 'https://hooks.example.test/tierflow', secretEnv: 'HOOK_SECRET' },
        { url: 'http://127.0.0.1:9000/x', events: ['done', 'review'], secretEnv: 'OTHER_SECRET', maxAttempts: 3 },
      ],
    });
    expect(notifyOptionsOf(config.notify, { HOOK_SECRET: 's1', OTHER_SECRET: 's2' }, where)).toEqual({
      subscriptions: [
        { url: 'https://hooks.example.test/tierflow', secret: 's1' },
        { url: 'http://127.0.0.1:9000/x', events: ['done', 'review'], secret: 's2', maxAttempts: 3 },
      ],
    });
  });

  it('is nothing when absent or empty', () => {
    expect(notifyOptionsOf(undefined, {}, where)).toBeUndefined();
    expect(notifyOptionsOf([], {}, where)).toBeUndefined();
  });

  it('names the field of a secret whose variable is unset', () => {
    const config = projectConfigSchema.parse({ notify: [{ url: 'https://a.test', secretEnv: 'UNSET_SECRET' }] });
    expect(() => notifyOptionsOf(config.notify, {}, where)).toThrow(ConfigError);
    expect(() => notifyOptionsOf(config.notify, {}, where)).toThrow(/notify\[0\]\.secretEnv: UNSET_SECRET is not set/);
  });

  it.each([
    [{ url: 'ftp://a.test', secretEnv: 'S' }, 'url'],
    [{ url: 'https://a.test', secretEnv: 'not a name' }, 'secretEnv'],
    [{ url: 'https://a.test', secretEnv: 'S', events: ['finished'] }, 'events'],
    [{ url: 'https://a.test', secretEnv: 'S', secret: 'inline' }, 'secret'],
    [{ url: 'https://a.test' }, 'secretEnv'],
  ])('refuses %j at its field', (entry, field) => {
    const parsed = projectConfigSchema.safeParse({ notify: [entry] });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((issue) => issue.path.join('.')).join(' ')).toContain(field === 'secret' ? 'notify.0' : `notify.0.${field}`);
  });

  it('shows in `tierflow config` by URL (its secrets hidden), events, and the secret’s variable alone', () => {
    const config = projectConfigSchema.parse({ notify: [{ url: 'https://user:pw@hooks.example.test/t?token=x', events: ['done'], secretEnv: 'HOOK_SECRET' }] });
    const env = { HOOK_SECRET: 'never-shown' };
    const rows = configRows(env, readTierflowEnv(env), { file: '/p/tierflow.config.json', config }, '--config').filter((row) => row.name === 'notify');
    expect(rows).toEqual([{ name: 'notify', value: 'https://user:***@hooks.example.test/t?*** (done; secret in HOOK_SECRET)', from: 'project file' }]);
  });
});

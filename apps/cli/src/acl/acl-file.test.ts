import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { aclFileText } from './acl-file.js';
import { passwordRule } from './acl-passwords.js';
import { aclPermissions } from './acl-users.js';

const SHIPPED = fileURLToPath(new URL('../../../../infra/redis/users.acl', import.meta.url));

describe('the ACL file', () => {
  it('in infra/redis is the one generated for {tierflow} (regenerate: npx tierflow acl print > infra/redis/users.acl)', () => {
    expect(readFileSync(SHIPPED, 'utf8')).toBe(aclFileText('{tierflow}'));
  });

  it('disables default, and has one line per user, off without a password', () => {
    const lines = aclFileText('{tierflow}').trimEnd().split('\n');
    expect(lines.map((line) => line.split(' ').slice(0, 3).join(' '))).toEqual([
      'user default off',
      'user admin off',
      'user client off',
      'user monitor off',
      'user architect off',
      'user dispatcher off',
      'user fleet off',
    ]);
    expect(lines[0]).toBe('user default off resetpass resetkeys resetchannels -@all');
  });

  it('writes a password as its SHA-256, never as it is', () => {
    const text = aclFileText('{tierflow}', { fleet: 'fleet-secret', admin: 'admin-secret' });
    expect(text).not.toContain('secret');
    expect(text).toContain(`user fleet on ${passwordRule('fleet-secret')} `);
    expect(text).toContain(`user admin on ${passwordRule('admin-secret')} `);
    expect(passwordRule('x')).toBe('#2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881');
    expect(text).toContain('user monitor off ');
  });

  it('escapes glob characters of the prefix and refuses one an ACL line cannot hold', () => {
    expect(aclPermissions('{a[1]*}').fleet).toContain('~{a\\[1\\]\\*}:fleet:*');
    expect(() => aclPermissions('{a b}')).toThrow(/whitespace/);
    expect(() => aclPermissions('tierflow')).toThrow(/hash tag/);
  });

  it('reaches the audit streams through an append-only selector alone, for every user but admin', () => {
    const rules = aclPermissions('{tierflow}');
    const selector = '(~{tierflow}:audit:* +xadd +pexpire +xrange +xrevrange +xlen +xinfo|stream +eval +evalsha)';
    for (const user of ['client', 'monitor', 'architect', 'dispatcher', 'fleet'] as const) {
      expect(rules[user].filter((rule) => rule.includes(':audit:'))).toEqual([selector]);
    }
    expect(aclFileText('{tierflow}')).toContain(`&{tierflow}:control ${selector}\n`);
  });

  it('gives the trace record to the Monitor alone, and lets the client only read it', () => {
    const rules = aclPermissions('{tierflow}');
    expect(rules.monitor).toContain('~{tierflow}:trace:*');
    for (const tier of ['architect', 'dispatcher', 'fleet'] as const) expect(rules[tier].some((rule) => rule.includes(':trace:'))).toBe(false);
    expect(rules.client).toContain('%R~{tierflow}:trace:*');
    expect(rules.client.some((rule) => rule.includes(':step:') || rule.includes(':control:'))).toBe(false);
  });

  it('lets the client write a rerun’s records and read recordings, and every tier only read the records', () => {
    const rules = aclPermissions('{tierflow}');
    expect(rules.client).toEqual(expect.arrayContaining(['~{tierflow}:rerun:*', '~{tierflow}:replay:*', '~{tierflow}:reuse:*', '~{tierflow}:reruns:*', '%R~{tierflow}:record:*']));
    for (const tier of ['monitor', 'architect', 'dispatcher', 'fleet'] as const) {
      expect(rules[tier]).toEqual(expect.arrayContaining(['%R~{tierflow}:rerun:*', '%R~{tierflow}:replay:*', '%R~{tierflow}:reuse:*']));
      expect(rules[tier].filter((rule) => /:(rerun|replay|reuse|reruns):/.test(rule) && !rule.startsWith('%R~'))).toEqual([]);
    }
  });

  it('covers every cell of a deployment with cells, and no other deployment', () => {
    const rules = aclPermissions('{tierflow}', 4);
    expect(rules.fleet).toEqual(expect.arrayContaining(['~{tierflow:*}:fleet:*', '~{tierflow:*}:step:fleet:*', '&{tierflow:*}:control', '~{tierflow:*}:beads:execution/*']));
    // The models' limits are the deployment's, shared by every cell: their own tag under the prefix's.
    expect(rules.fleet).toContain('~{tierflow:limit:*}:*');
    // Every other rule that names keys or channels names the cells' tag, never the bare prefix.
    for (const rule of Object.values(rules)
      .flat()
      .filter((rule) => /^(%R)?[~&(]/.test(rule) && rule !== '~*' && rule !== '&*' && rule !== '~{tierflow:limit:*}:*'))
      expect(rule).toContain('{tierflow:*}');
  });
});

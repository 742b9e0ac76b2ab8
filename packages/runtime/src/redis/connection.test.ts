import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hideCommandSecrets, redisTlsFromEnv } from './connection.js';

const dir = mkdtempSync(join(tmpdir(), 'tierflow-tls-env-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function pemFile(name: string): string {
  const path = join(dir, name);
  writeFileSync(path, `-----BEGIN ${name}-----\n`);
  return path;
}

describe('redisTlsFromEnv', () => {
  it('is undefined without TLS variables: rediss:// alone trusts the system CAs', () => {
    expect(redisTlsFromEnv({})).toBeUndefined();
    expect(redisTlsFromEnv({ TIERFLOW_REDIS_TLS_CA: '' })).toBeUndefined();
  });

  it('reads the CA, and the client certificate with its key', () => {
    const ca = pemFile('CA');
    expect(redisTlsFromEnv({ TIERFLOW_REDIS_TLS_CA: ca })).toEqual({ ca: Buffer.from('-----BEGIN CA-----\n') });
    const tls = redisTlsFromEnv({ TIERFLOW_REDIS_TLS_CA: ca, TIERFLOW_REDIS_TLS_CERT: pemFile('CERT'), TIERFLOW_REDIS_TLS_KEY: pemFile('KEY') });
    expect(Object.keys(tls ?? {}).sort()).toEqual(['ca', 'cert', 'key']);
    expect((tls?.key as Buffer).toString('utf8')).toContain('KEY');
  });

  it('refuses a certificate without its key, or a key without its certificate', () => {
    expect(() => redisTlsFromEnv({ TIERFLOW_REDIS_TLS_CERT: pemFile('CERT') })).toThrow(/TIERFLOW_REDIS_TLS_CERT and TIERFLOW_REDIS_TLS_KEY go together/);
    expect(() => redisTlsFromEnv({ TIERFLOW_REDIS_TLS_KEY: pemFile('KEY') })).toThrow(expect.objectContaining({ code: 'invalid_config' }));
  });

  it('names the variable of a file it cannot read', () => {
    expect(() => redisTlsFromEnv({ TIERFLOW_REDIS_TLS_CA: join(dir, 'missing.pem') })).toThrow(/^TIERFLOW_REDIS_TLS_CA=.*missing\.pem: ENOENT/);
  });
});

describe('hideCommandSecrets', () => {
  it("hides the arguments of a failed AUTH, which ioredis puts on its error, and leaves other commands' alone", () => {
    const auth = Object.assign(new Error('WRONGPASS'), { command: { name: 'auth', args: ['fleet', 's3cret'] } });
    hideCommandSecrets(auth);
    expect(auth.command.args).toEqual(['***', '***']);
    const hello = Object.assign(new Error('x'), { command: { name: 'HELLO', args: ['3', 'AUTH', 'fleet', 's3cret'] } });
    hideCommandSecrets(hello);
    expect(JSON.stringify(hello.command)).not.toContain('s3cret');
    const get = Object.assign(new Error('x'), { command: { name: 'get', args: ['k'] } });
    hideCommandSecrets(get);
    expect(get.command.args).toEqual(['k']);
    for (const odd of [null, undefined, 'text', new Error('plain'), { command: null }, { command: { name: 'auth', args: 'x' } }]) expect(() => hideCommandSecrets(odd)).not.toThrow();
  });
});

import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { runtimeOptionsFromEnv, type RuntimeOptions } from '@tierflow/runtime';
import { startRedisServer, uniquePrefix, waitFor, type RedisServer } from '@tierflow/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest, streamUpload } from '../support/raw-http.js';
import { serveDeployment, type Served } from '../support/served.js';
import { BIN } from '../security/tier-processes.js';

// What an unauthenticated client can make `tierflow serve` spend: bodies it reads, and guesses at
// the token. The server runs as `tierflow serve` in a process of its own, so its memory is its own.

const TOKEN = 'a-token-of-sixteen-chars-or-more';
const MIB = 1024 * 1024;
let redis: RedisServer;
let child: ChildProcess;
let url: string;

beforeAll(async () => {
  redis = await startRedisServer();
  child = spawn(process.execPath, [BIN, 'serve', '--port', '0'], {
    env: { ...process.env, TIERFLOW_LOG: 'silent', REDIS_URL: redis.url, TIERFLOW_PREFIX: uniquePrefix('limits'), TIERFLOW_API_TOKEN: TOKEN },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let printed: string | null = null;
  createInterface({ input: child.stdout! }).on('line', (line) => (printed ??= /serving (http:\/\/\S+)/.exec(line)?.[1] ?? null));
  url = await waitFor(() => printed, { timeoutMs: 15_000, description: 'the server to listen' });
}, 30_000);

afterAll(async () => {
  if (child && child.exitCode === null) {
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
  await redis?.stop();
});

/** The server process's peak resident memory so far (VmHWM), in bytes. */
async function peakRss(): Promise<number> {
  const status = await readFile(`/proc/${child.pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1]) * 1024;
}

describe('request bodies', () => {
  it('refuses a 20 MiB sign-in, cancel, answer or objective with 413, and the server does not grow by them', async () => {
    const host = new URL(url).host;
    const json = { host, 'content-type': 'application/json' };
    const bearer = { ...json, authorization: `Bearer ${TOKEN}` };
    // Warm up, so the peak measured after is the bodies' alone.
    expect((await rawRequest(`${url}/api/runs`, { headers: { host, authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
    const before = await peakRss();
    const size = 20 * MIB;
    const declared = (headers: Record<string, string>) => ({ ...headers, 'content-length': String(size) });
    const answers = await Promise.all([
      ...[1, 2, 3, 4].map(() => streamUpload(`${url}/api/session`, declared(json), size)),
      streamUpload(`${url}/api/session`, json, size),
      streamUpload(`${url}/api/runs/some-run/cancel`, declared(bearer), size),
      streamUpload(`${url}/api/runs/some-run/answer`, declared(bearer), size),
      streamUpload(`${url}/api/runs`, declared(bearer), size),
      streamUpload(`${url}/api/runs`, bearer, size),
    ]);
    // Each is refused: 413, or, where the client was still writing when the server closed the
    // connection, cut off before its end; at least one reads its 413.
    for (const answer of answers) expect(answer.status === 413 || (answer.status === 0 && answer.sentBytes < size), JSON.stringify(answer)).toBe(true);
    expect(answers.filter((answer) => answer.status === 413).length).toBeGreaterThan(0);
    // The chunked ones were cut off well before their end.
    expect(answers[4].sentBytes).toBeLessThan(size / 2);
    expect(answers[8]!.sentBytes).toBeLessThan(size / 2);
    const grown = (await peakRss()) - before;
    expect(grown).toBeLessThan(40 * MIB);
  }, 60_000);
});

describe('sign-in', () => {
  let served: Served;
  let proxied: Served;
  let runtime: RuntimeOptions;
  const warnings: string[] = [];
  const log = { info: () => undefined, warn: (message: string, fields?: Record<string, unknown>) => void warnings.push(`${message} ${JSON.stringify(fields)}`) };

  beforeAll(async () => {
    runtime = runtimeOptionsFromEnv({ REDIS_URL: redis.url, TIERFLOW_PREFIX: uniquePrefix('sign-in') });
    served = await serveDeployment(runtime, { token: TOKEN }, log);
    proxied = await serveDeployment(runtime, { token: TOKEN, trustedProxies: ['127.0.0.1'] }, log);
  });
  afterAll(async () => {
    await served?.close();
    await proxied?.close();
  });

  const signIn = (base: string, token: string, headers: Record<string, string> = {}) =>
    rawRequest(`${base}/api/session`, { method: 'POST', headers: { host: new URL(base).host, 'content-type': 'application/json', ...headers }, body: JSON.stringify({ token }) });

  it('throttles failed sign-ins per client address, logs them without the secret, and X-Forwarded-For does not dodge it', async () => {
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 40 && !statuses.includes(429); attempt += 1) {
      // Each guess claims another address: untrusted, the header is not the client's address.
      statuses.push((await signIn(served.url, `wrong-guess-number-${attempt}`, { 'x-forwarded-for': `203.0.113.${attempt}` })).status);
    }
    expect(statuses.at(-1)).toBe(429);
    expect(statuses.filter((status) => status === 401).length).toBeGreaterThanOrEqual(3);
    // Throttled, even the right token waits: a guess that happens to be right says nothing.
    const right = await signIn(served.url, TOKEN);
    expect(right.status).toBe(429);
    expect(Number(right.headers['retry-after'])).toBeGreaterThan(0);
    const failures = warnings.filter((line) => line.includes('sign-in'));
    expect(failures.length).toBeGreaterThanOrEqual(3);
    expect(failures.every((line) => line.includes('127.0.0.1') && !line.includes('203.0.113.'))).toBe(true);
    expect(warnings.join('\n')).not.toContain('wrong-guess-number');
  });

  it('takes the client address from X-Forwarded-For only behind a trusted proxy', async () => {
    warnings.length = 0;
    // Behind a trusted proxy, each forwarded address is a client of its own: none is throttled by another's failures.
    for (let client = 0; client < 12; client += 1) {
      expect((await signIn(proxied.url, 'not-the-token-either', { 'x-forwarded-for': `198.51.100.${client}` })).status).toBe(401);
    }
    expect(warnings.some((line) => line.includes('198.51.100.3'))).toBe(true);
    expect((await signIn(proxied.url, TOKEN, { 'x-forwarded-for': '198.51.100.99' })).status).toBe(200);
  });

  it('marks the sign-in cookie Secure when a trusted proxy says the browser came over HTTPS, and believes no one else', async () => {
    const cookie = (answer: { headers: Record<string, string | string[] | undefined> }) => String(answer.headers['set-cookie'] ?? '');
    const overHttps = { 'x-forwarded-proto': 'https', 'x-forwarded-for': '198.51.100.100' };
    expect(cookie(await signIn(proxied.url, TOKEN, overHttps))).toMatch(/;\s*Secure/i);
    expect(cookie(await signIn(proxied.url, TOKEN, { 'x-forwarded-for': '198.51.100.101' }))).not.toMatch(/;\s*Secure/i);
    // Not from a trusted proxy: the header is the client's own word.
    const unproxied = await serveDeployment(runtime, { token: TOKEN }, log);
    try {
      const direct = await signIn(unproxied.url, TOKEN, overHttps);
      expect(direct.status).toBe(200);
      expect(cookie(direct)).not.toMatch(/;\s*Secure/i);
    } finally {
      await unproxied.close();
    }
  });
});

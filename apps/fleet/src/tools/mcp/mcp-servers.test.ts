import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isAlive, waitFor } from '@tierflow/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SpecialistUnavailableError } from '../../specialist.js';
import type { Tool } from '../tool.js';
import type { McpServerConfig } from './mcp-config.js';
import { McpServers } from './mcp-servers.js';

const FIXTURE = fileURLToPath(new URL('./testdata/fake-mcp-server.js', import.meta.url));

let dir: string;
let logCount = 0;
const opened: McpServers[] = [];
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown): void => void unhandled.push(reason);

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mcp-servers-'));
  process.on('unhandledRejection', onUnhandled);
});
afterAll(() => {
  process.off('unhandledRejection', onUnhandled);
  rmSync(dir, { recursive: true, force: true });
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((servers) => servers.close()));
  // Nothing the servers did may reach the process as an unhandled rejection.
  expect(unhandled).toEqual([]);
});

interface Fake {
  readonly servers: McpServers;
  /** The fixture's own notes: `started <pid>`, `slow <id>`, `cancelled <id>`. */
  readonly notes: () => string[];
  readonly warnings: string[];
}

function fake(extra: Record<string, McpServerConfig> = {}): Fake {
  const logFile = join(dir, `fake-${++logCount}.log`);
  const warnings: string[] = [];
  const servers = new McpServers({
    servers: { fake: { command: process.execPath, args: [FIXTURE], env: { FAKE_MCP_LOG: logFile } }, ...extra },
    env: {},
    log: { info: () => undefined, warn: (message, fields) => void warnings.push(`${message} ${JSON.stringify(fields)}`) },
  });
  opened.push(servers);
  const notes = (): string[] => (existsSync(logFile) ? readFileSync(logFile, 'utf8').split('\n').filter(Boolean) : []);
  return { servers, notes, warnings };
}

const startedPids = (notes: string[]): number[] => notes.flatMap((line) => (/^started (\d+)$/.exec(line) ? [Number(line.split(' ')[1])] : []));
const context = (signal: AbortSignal = new AbortController().signal) => ({ signal, callId: 'call_1' });
const signal = (): AbortSignal => new AbortController().signal;

async function tool(servers: McpServers, name: string): Promise<Tool> {
  const [found] = await servers.tools([name], signal());
  if (found === undefined) throw new Error(`no tool ${name}`);
  return found;
}

describe('McpServers over stdio', () => {
  it('lists the tools and calls them', async () => {
    const { servers } = fake();
    const tools = await servers.tools(['mcp:fake/*'], signal());
    expect(tools.map((t) => t.name).sort()).toEqual(['mcp:fake/add', 'mcp:fake/crash', 'mcp:fake/echo', 'mcp:fake/fail', 'mcp:fake/grow', 'mcp:fake/mixed', 'mcp:fake/slow']);
    const echo = tools.find((t) => t.name === 'mcp:fake/echo')!;
    expect(echo.description).toBe('Returns its text');
    expect(echo.parameters).toMatchObject({ type: 'object', properties: { text: { type: 'string' } }, required: ['text'] });
    await expect(echo.run({ text: 'hello' }, context())).resolves.toEqual({ content: 'hello' });
    const add = tools.find((t) => t.name === 'mcp:fake/add')!;
    await expect(add.run({ a: 2, b: 3 }, context())).resolves.toEqual({ content: '5' });
  });

  it('selects tools by pattern, and starts no server for patterns that are not its own', async () => {
    const { servers, notes } = fake({ other: { command: 'no-such-command-for-mcp-test' } });
    const names = async (patterns: string[]): Promise<string[]> => (await servers.tools(patterns, signal())).map((t) => t.name).sort();
    // `other` cannot start: asking for these would throw if it were started.
    expect(await names(['search', 'tool:x', '*x'])).toEqual([]);
    expect(await names(['mcp:nobody/*'])).toEqual([]);
    expect(notes()).toEqual([]);
    expect(await names(['mcp:fake/ec*'])).toEqual(['mcp:fake/echo']);
    expect(await names(['mcp:fake/add', 'search'])).toEqual(['mcp:fake/add']);
    expect(await names(['mcp:f*/ad*', 'mcp:fake/echo'])).toEqual(['mcp:fake/add', 'mcp:fake/echo']);
    expect(startedPids(notes())).toHaveLength(1);
  });

  it('starts a server once for concurrent first calls', async () => {
    const { servers, notes } = fake();
    const lists = await Promise.all([1, 2, 3, 4].map(() => servers.tools(['mcp:fake/echo'], signal())));
    expect(lists.map((list) => list.length)).toEqual([1, 1, 1, 1]);
    expect(startedPids(notes())).toHaveLength(1);
  });

  it('rejects an aborted call at once, and the server hears of the cancellation', async () => {
    const { servers, notes } = fake();
    const slow = await tool(servers, 'mcp:fake/slow');
    const controller = new AbortController();
    const call = slow.run({ ms: 60_000 }, context(controller.signal));
    call.catch(() => undefined);
    await waitFor(() => notes().some((line) => line.startsWith('slow ')), { description: 'the slow call to start' });
    const abortedAt = Date.now();
    controller.abort(new Error('run cancelled'));
    await expect(call).rejects.toThrow('run cancelled');
    expect(Date.now() - abortedAt).toBeLessThan(1_000);
    const requestId = notes()
      .find((line) => line.startsWith('slow '))!
      .split(' ')[1];
    await waitFor(() => notes().includes(`cancelled ${requestId}`), { description: 'the server to log the cancellation' });
  });

  it('fails a call whose server dies, and restarts the server on the next use', async () => {
    const { servers, notes, warnings } = fake();
    const crash = await tool(servers, 'mcp:fake/crash');
    await expect(crash.run({}, context())).rejects.toThrow(/MCP server "fake" stopped during the call to "crash"/);
    const [firstPid] = startedPids(notes());
    await waitFor(() => !isAlive(firstPid!), { description: 'the crashed server to be gone' });
    expect(warnings.join('\n')).toMatch(/MCP server stopped; it restarts on its next use.*"server":"fake"/);
    // The tool from before the crash works again: its server is started anew.
    const echo = await tool(servers, 'mcp:fake/echo');
    await expect(echo.run({ text: 'back' }, context())).resolves.toEqual({ content: 'back' });
    const pids = startedPids(notes());
    expect(pids).toHaveLength(2);
    expect(pids[1]).not.toBe(firstPid);
  });

  it('restarts a server for a call from a tool listed before it died', async () => {
    const { servers, notes } = fake();
    const [crash, echo] = await Promise.all([tool(servers, 'mcp:fake/crash'), tool(servers, 'mcp:fake/echo')]);
    await expect(crash.run({}, context())).rejects.toThrow(/stopped during the call/);
    await expect(echo.run({ text: 'again' }, context())).resolves.toEqual({ content: 'again' });
    expect(startedPids(notes())).toHaveLength(2);
  });

  it('throws SpecialistUnavailableError naming a server whose command does not exist, and again at once while it backs off', async () => {
    const { servers, warnings } = fake({ nope: { command: 'no-such-command-for-mcp-test' } });
    const first = servers.tools(['mcp:nope/*'], signal());
    await expect(first).rejects.toBeInstanceOf(SpecialistUnavailableError);
    await expect(first).rejects.toThrow(/^MCP server "nope" cannot start: .*ENOENT/);
    await expect(servers.tools(['mcp:*'], signal())).rejects.toThrow(/^MCP server "nope" cannot start: .*ENOENT.*\(next try in 1 s\)/);
    expect(warnings.join('\n')).toMatch(/MCP server cannot start.*nope/);
    // The other server is unharmed.
    await expect(servers.tools(['mcp:fake/echo'], signal())).resolves.toHaveLength(1);
  });

  it('throws SpecialistUnavailableError for a server that exits at once, with what it wrote to stderr, and does not respawn it in a loop', async () => {
    const spawns = join(dir, 'spawns.log');
    const script = `require('node:fs').appendFileSync(${JSON.stringify(spawns)}, 'x'); console.error('bad config: no root'); process.exit(2);`;
    const { servers } = fake({ dies: { command: process.execPath, args: ['-e', script] } });
    await expect(servers.tools(['mcp:dies/*'], signal())).rejects.toThrow(/^MCP server "dies" cannot start: .*Connection closed.*bad config: no root/);
    await expect(servers.tools(['mcp:dies/*'], signal())).rejects.toThrow(/next try in 1 s/);
    expect(readFileSync(spawns, 'utf8')).toBe('x');
  });

  it('passes a result`s isError on, and describes content other than text', async () => {
    const { servers } = fake();
    await expect((await tool(servers, 'mcp:fake/fail')).run({}, context())).resolves.toEqual({ content: 'it failed on purpose', isError: true });
    const mixed = await (await tool(servers, 'mcp:fake/mixed')).run({}, context());
    expect(mixed.content.split('\n')).toEqual(['first', '[image image/png, 6 bytes]', '[resource file:///notes.txt]', 'the notes', '[resource link file:///big.bin (big)]', 'last']);
  });

  it('sees a tool the server adds after it says its list changed', async () => {
    const { servers } = fake();
    await expect(servers.tools(['mcp:fake/extra'], signal())).resolves.toEqual([]);
    await (await tool(servers, 'mcp:fake/grow')).run({}, context());
    await waitFor(async () => (await servers.tools(['mcp:fake/extra'], signal())).length === 1, { description: 'the new tool to be listed' });
  });

  it('close() stops a server that is still starting', async () => {
    const pidFile = join(dir, 'hung.pid');
    // Never answers `initialize`.
    const script = `require('node:fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); setInterval(() => {}, 1000);`;
    const { servers } = fake({ hung: { command: process.execPath, args: ['-e', script] } });
    const listing = servers.tools(['mcp:hung/*'], signal());
    listing.catch(() => undefined);
    const pid = Number(await waitFor(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8'), { description: 'the hung server to start' }));
    await servers.close();
    await expect(listing).rejects.toThrow(/MCP server "hung" is closed/);
    await waitFor(() => !isAlive(pid), { description: `the hung server ${pid} to be gone` });
  });

  it('close() stops the server process, and is idempotent', async () => {
    const { servers, notes } = fake();
    await servers.tools(['mcp:fake/*'], signal());
    const [pid] = startedPids(notes());
    expect(isAlive(pid!)).toBe(true);
    await Promise.all([servers.close(), servers.close()]);
    await waitFor(() => !isAlive(pid!), { description: `the server process ${pid} to be gone` });
    await servers.close();
    await expect(servers.tools(['mcp:fake/*'], signal())).rejects.toThrow(/MCP server "fake" is closed/);
  });
});

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { TierflowError } from '@tierflow/protocol';
import type { TierLogger } from '@tierflow/runtime';
import { abortableDelay, abortError } from '../../abortable-delay.js';
import { SpecialistUnavailableError } from '../../specialist.js';
import type { McpServerConfig } from './mcp-config.js';
import { StderrTail } from './stderr-tail.js';

/** A tool as its server lists it. */
export interface McpToolInfo {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: Readonly<Record<string, unknown>>;
}

export interface McpConnectionOptions {
  readonly env: NodeJS.ProcessEnv;
  readonly log: TierLogger;
  readonly clientName: string;
  readonly clientVersion: string;
  /** The longest one call may run; the caller's signal is what normally stops it. */
  readonly callTimeoutMs: number;
  /** The longest a start (spawn or connect, then `initialize`) or a `tools/list` may take. */
  readonly startTimeoutMs: number;
}

/** The first pause between two failed starts; it doubles with each further failure, up to {@link MAX_BACKOFF_MS}. */
const FIRST_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 30_000;
/** A server that ran this long before it stopped is not crash-looping: its next start comes at once. */
const STABLE_MS = 60_000;
/** At most one warning of a server's connection errors per this long. */
const ERROR_WARNING_INTERVAL_MS = 10_000;
/** More tools than this from one server is a server paging forever. */
const MAX_TOOLS = 10_000;

interface Live {
  readonly client: Client;
  readonly transport: Transport;
  readonly startedAt: number;
  readonly stderr: StderrTail;
  tools: Promise<readonly McpToolInfo[]> | null;
}

/**
 * One MCP server of the Fleet process: started on first use, restarted on the use after it died
 * (with a growing pause while it keeps failing), closed with the Fleet.
 */
export class McpConnection {
  private live: Live | null = null;
  private starting: Promise<Live> | null = null;
  /** Failed starts and early deaths in a row: they set the pause before the next start. */
  private strikes = 0;
  private notBefore = 0;
  /** Why the last start failed; null once one succeeds, and after a death (that start worked). */
  private lastFailure: SpecialistUnavailableError | null = null;
  private closing: Promise<void> | null = null;
  /** The client of a start under way, for close() to stop at once rather than wait for it. */
  private pending: Client | null = null;
  private lastErrorWarning = Number.NEGATIVE_INFINITY;
  private errorsHeldBack = 0;

  constructor(
    readonly name: string,
    private readonly config: McpServerConfig,
    private readonly options: McpConnectionOptions,
  ) {}

  /** The server's tools, listed once per start (again after it says its list changed). */
  async tools(signal: AbortSignal): Promise<readonly McpToolInfo[]> {
    const live = await this.ready(signal);
    if (live.tools === null) {
      const listing = this.listTools(live);
      live.tools = listing;
      // A failed listing is not kept: the next use asks again.
      listing.catch(() => {
        if (live.tools === listing) live.tools = null;
      });
    }
    return await untilAborted(live.tools, signal);
  }

  /** Calls `tool`; rejects with the signal's reason when it aborts (the SDK tells the server), with a clear error when the server dies. */
  async call(tool: string, args: Readonly<Record<string, unknown>>, signal: AbortSignal): Promise<unknown> {
    const live = await this.ready(signal);
    try {
      return await live.client.callTool({ name: tool, arguments: { ...args } }, undefined, { signal, timeout: this.options.callTimeoutMs });
    } catch (error) {
      if (signal.aborted) throw abortError(signal);
      const died = this.live !== live || (error instanceof McpError && error.code === Number(ErrorCode.ConnectionClosed));
      // An HTTP server that cannot be reached: reconnect on the next use rather than keep a dead session.
      if (!died && !(error instanceof McpError) && 'url' in this.config) this.drop(live, 'a request failed');
      const message = died
        ? `MCP server "${this.name}" stopped during the call to "${tool}" (it restarts on its next use): ${messageOf(error)}`
        : `MCP tool "mcp:${this.name}/${tool}" failed: ${messageOf(error)}`;
      throw TierflowError.retryable(message, { code: 'mcp_call_failed', kind: 'unavailable', cause: error });
    }
  }

  /** Closes the client and stops a stdio server's process; later uses throw. Idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      // A start under way fails as soon as its client closes (its process is stopped).
      await this.pending?.close().catch(() => undefined);
      const live = this.live ?? (await this.starting?.catch(() => null)) ?? null;
      this.live = null;
      if (live !== null) await live.client.close().catch(() => undefined);
    })();
    return this.closing;
  }

  private async ready(signal: AbortSignal): Promise<Live> {
    for (;;) {
      if (this.closing !== null) throw new SpecialistUnavailableError(`MCP server "${this.name}" is closed`);
      if (signal.aborted) throw abortError(signal);
      if (this.live !== null) return this.live;
      if (this.starting !== null) return await untilAborted(this.starting, signal);
      const wait = this.notBefore - Date.now();
      if (wait <= 0) break;
      // After a failed start, say so at once: waiting would only stall the caller on a server known to be down.
      if (this.lastFailure !== null) throw new SpecialistUnavailableError(`${this.lastFailure.message} (next try in ${Math.ceil(wait / 1000)} s)`, { cause: this.lastFailure.cause });
      // After a death, wait out the pause (a crash-looping server is not restarted in a hot loop).
      await abortableDelay(wait, signal);
    }
    const starting = this.start().finally(() => {
      if (this.starting === starting) this.starting = null;
    });
    this.starting = starting;
    // Its callers each handle the outcome; this keeps an abandoned start from being an unhandled rejection.
    starting.catch(() => undefined);
    return await untilAborted(starting, signal);
  }

  private async start(): Promise<Live> {
    const stderr = new StderrTail();
    let client: Client | null = null;
    try {
      const transport = this.transport(stderr);
      client = new Client({ name: this.options.clientName, version: this.options.clientVersion }, { capabilities: {} });
      const live: Live = { client, transport, startedAt: Date.now(), stderr, tools: null };
      client.onclose = () => this.died(live);
      // Transport errors (a broken pipe, a line on stdout that is not JSON-RPC) can come once per
      // line a misbehaving server writes: warned of at most once per interval, never thrown.
      client.onerror = (error) => this.warnError(error);
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        live.tools = null;
      });
      this.pending = client;
      await client.connect(transport, { timeout: this.options.startTimeoutMs });
      if (this.closing !== null) throw new Error('closed while starting');
      this.live = live;
      this.lastFailure = null;
      const pid = transport instanceof StdioClientTransport ? transport.pid : null;
      this.options.log.info('MCP server started', { server: this.name, ...(pid === null ? {} : { pid }), server_info: client.getServerVersion()?.name });
      return live;
    } catch (error) {
      await client?.close().catch(() => undefined);
      if (this.closing !== null) throw new SpecialistUnavailableError(`MCP server "${this.name}" is closed`, { cause: error });
      const tail = stderr.text();
      const failure = new SpecialistUnavailableError(`MCP server "${this.name}" cannot start: ${messageOf(error)}${tail === '' ? '' : ` (stderr: ${tail.split('\n').slice(-3).join(' | ')})`}`, {
        cause: error,
      });
      this.strikes++;
      this.notBefore = Date.now() + backoff(this.strikes);
      this.lastFailure = failure;
      this.options.log.warn('MCP server cannot start', { server: this.name, error: failure.message, retry_in_ms: this.notBefore - Date.now() });
      throw failure;
    } finally {
      this.pending = null;
    }
  }

  private transport(stderr: StderrTail): Transport {
    const config = this.config;
    if ('command' in config) {
      // stderr is piped and only its last lines kept (see StderrTail), not inherited into the Fleet's output.
      const transport = new StdioClientTransport({
        command: config.command,
        ...(config.args === undefined ? {} : { args: config.args }),
        ...(config.env === undefined ? {} : { env: config.env }),
        ...(config.cwd === undefined ? {} : { cwd: config.cwd }),
        stderr: 'pipe',
      });
      // Read at once: an unread pipe fills up and blocks the child.
      transport.stderr?.on('data', (chunk: unknown) => stderr.write(chunk));
      return transport;
    }
    let requestInit: RequestInit | undefined;
    if (config.tokenEnv !== undefined) {
      const token = this.options.env[config.tokenEnv];
      if (token === undefined || token === '') throw new Error(`the environment variable ${config.tokenEnv} (tokenEnv) is not set`);
      requestInit = { headers: { authorization: `Bearer ${token}` } };
    }
    return new StreamableHTTPClientTransport(new URL(config.url), requestInit === undefined ? {} : { requestInit });
  }

  private async listTools(live: Live): Promise<readonly McpToolInfo[]> {
    const tools: McpToolInfo[] = [];
    try {
      let cursor: string | undefined;
      do {
        const page = await live.client.listTools(cursor === undefined ? {} : { cursor }, { timeout: this.options.startTimeoutMs });
        for (const tool of page.tools) {
          tools.push({ name: tool.name, description: tool.description ?? tool.title ?? '', inputSchema: tool.inputSchema });
        }
        cursor = page.nextCursor;
      } while (cursor !== undefined && tools.length < MAX_TOOLS);
    } catch (error) {
      throw new SpecialistUnavailableError(`MCP server "${this.name}" cannot list its tools: ${messageOf(error)}`, { cause: error });
    }
    return tools;
  }

  /** The server's process exited or its transport closed: forget it, so the next use starts it again. */
  private died(live: Live): void {
    if (this.live !== live) return; // a start that failed, or a connection dropped on purpose
    this.live = null;
    if (this.closing !== null) return;
    const now = Date.now();
    this.strikes = now - live.startedAt < STABLE_MS ? this.strikes + 1 : 0;
    this.notBefore = this.strikes === 0 ? 0 : now + backoff(this.strikes);
    const tail = live.stderr.text();
    this.options.log.warn('MCP server stopped; it restarts on its next use', { server: this.name, restart_in_ms: Math.max(0, this.notBefore - now), ...(tail === '' ? {} : { stderr: tail }) });
  }

  private warnError(error: Error): void {
    const now = Date.now();
    if (now - this.lastErrorWarning < ERROR_WARNING_INTERVAL_MS) {
      this.errorsHeldBack++;
      return;
    }
    this.options.log.warn('MCP server connection error', { server: this.name, error: error.message, ...(this.errorsHeldBack > 0 ? { held_back: this.errorsHeldBack } : {}) });
    this.lastErrorWarning = now;
    this.errorsHeldBack = 0;
  }

  private drop(live: Live, why: string): void {
    if (this.live !== live) return;
    this.live = null;
    this.options.log.warn(`MCP server dropped: ${why}; it reconnects on its next use`, { server: this.name });
    live.client.close().catch(() => undefined);
  }
}

function backoff(strikes: number): number {
  return Math.min(FIRST_BACKOFF_MS * 2 ** Math.max(0, strikes - 1), MAX_BACKOFF_MS);
}

/** `promise`, or a rejection with the signal's reason as soon as it aborts; the work itself goes on for others. */
async function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) throw abortError(signal);
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_resolve, reject) => {
    onAbort = () => reject(abortError(signal));
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([promise, aborted]);
  } finally {
    if (onAbort !== undefined) signal.removeEventListener('abort', onAbort);
  }
}

/** An error's message, with its cause's when that says more (fetch's "fetch failed" hides ECONNREFUSED there). */
function messageOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  // Its code is the HTTP status (401 for a refused token), which its message leaves out.
  if (error instanceof StreamableHTTPError && error.code !== undefined && error.code >= 100) return `${error.message} (HTTP ${error.code})`;
  const cause: unknown = error.cause;
  return cause instanceof Error && cause.message !== '' && !error.message.includes(cause.message) ? `${error.message} (${cause.message})` : error.message;
}

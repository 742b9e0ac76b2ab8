import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One scripted answer to a chat completion: a status with a body and headers, or none at all (`hang`). */
export interface FakeReply {
  readonly status?: number;
  readonly headers?: Readonly<Record<string, string>>;
  /** The JSON body; a completion whose content is {@link FakeOpenAiServer.defaultContent} when left out. */
  readonly body?: unknown;
  /** Never answer: the request stays open until the client gives up. */
  readonly hang?: boolean;
  /** Streamed: send the first chunk, then nothing more, until the client gives up. */
  readonly hangAfter?: boolean;
}

/** The token counts a completion reports, as OpenAI's `usage` field has them. */
export interface FakeUsage {
  readonly prompt_tokens: number;
  readonly completion_tokens: number;
}

/** A request the server received. */
export interface FakeRequest {
  readonly path: string;
  readonly body: unknown;
  readonly headers: IncomingMessage['headers'];
  /** When it arrived (ms since the epoch). */
  readonly at: number;
}

/**
 * An OpenAI-compatible endpoint for tests, on a free loopback port: `GET /v1/models` lists
 * `models`, and `POST /v1/chat/completions` gives the next scripted reply (a plain completion
 * when none is left), streamed as server-sent chunks when the request asks for a stream. It
 * records every request, and whether a hanging one was abandoned.
 */
export class FakeOpenAiServer {
  readonly requests: FakeRequest[] = [];
  readonly replies: FakeReply[] = [];
  /** How many requests left hanging were closed by the client. */
  abandoned = 0;
  defaultContent = JSON.stringify({ summary: 'done', confidence: 0.8, output: { ok: true } });
  /** The `usage` of the completions it makes up (12 in, 5 out by default); null: answers carry none, as some servers send. */
  usage: FakeUsage | null = DEFAULT_USAGE;
  /** While set, chat completions are held unanswered until this many have arrived (then all are answered), or until {@link release}. */
  private hold: { count: number; release: () => void; released: Promise<void> } | null = null;
  /** How long each chat completion takes to answer, as a model server's generation would (0: at once). */
  latencyMs = 0;
  /** Whether to keep each request in {@link requests}: a bench sending thousands turns it off. */
  keepRequests = true;
  /** Chat completions asked for since the start, kept in {@link requests} or not. */
  received = 0;
  /**
   * While set, a chat completion past `limit` in any `windowMs` is refused with a 429, as a
   * provider's own rate limit would, and counted in {@link overLimit}.
   */
  rateLimit: { readonly limit: number; readonly windowMs: number } | null = null;
  /**
   * While set, a chat completion that would take the tokens answered in any `windowMs` past
   * `limit` is refused with a 429, as a provider's tokens-per-minute limit would, and counted in
   * {@link overLimit}. Each completion counts the tokens its `usage` reports, at its arrival.
   */
  tokenLimit: { readonly limit: number; readonly windowMs: number } | null = null;
  /** Completions refused by {@link rateLimit} or {@link tokenLimit}. */
  overLimit = 0;
  /** Connections clients opened since the start: a client that keeps its connections alive opens few. */
  connections = 0;
  /** What the limits count: each completion let through, by arrival, with its tokens; kept whether or not requests are. */
  private readonly counted: { readonly at: number; readonly tokens: number }[] = [];
  /** Answers by what is asked (the request's JSON body), before the scripted replies; undefined leaves it to them. */
  respond: ((body: { model?: string; messages?: { role: string; content: string }[] }) => FakeReply | undefined) | null = null;

  private constructor(
    private readonly server: Server,
    readonly models: string[],
  ) {}

  static async start(models: readonly string[] = ['sim-model']): Promise<FakeOpenAiServer> {
    const server = createServer();
    const fake = new FakeOpenAiServer(server, [...models]);
    server.on('request', (request, response) => void fake.handle(request, response));
    server.on('connection', () => (fake.connections += 1));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  /** The base URL a client is given: `http://127.0.0.1:<port>/v1`. */
  get baseURL(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  /**
   * Holds every chat completion's answer until `count` of them have arrived since, so that that
   * many callers are in flight at once; a request the client abandons meanwhile is never answered.
   */
  holdUntil(count: number): void {
    let release = (): void => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    this.hold = { count: this.completions() + count, release, released };
  }

  /** Answers every held completion now, and holds none after. */
  release(): void {
    this.hold?.release();
    this.hold = null;
  }

  /** How many chat completions were asked for. */
  completions(): number {
    return this.requests.filter((request) => request.path === '/v1/chat/completions').length;
  }

  /** The chat completions that arrived in the `windowMs` up to `at`, that one included. */
  inWindow(at: number, windowMs: number): number {
    return this.requests.filter((request) => request.path === '/v1/chat/completions' && request.at > at - windowMs && request.at <= at).length;
  }

  /** The most chat completions that arrived in any `windowMs`. */
  mostInAnyWindow(windowMs: number): number {
    return Math.max(0, ...this.requests.filter((request) => request.path === '/v1/chat/completions').map((request) => this.inWindow(request.at, windowMs)));
  }

  /** Whether a completion arriving at `at` is past a limit; one that is not is counted. */
  private overLimits(at: number): boolean {
    if (!this.rateLimit && !this.tokenLimit) return false;
    const longest = Math.max(this.rateLimit?.windowMs ?? 0, this.tokenLimit?.windowMs ?? 0);
    while (this.counted.length > 0 && this.counted[0]!.at <= at - longest) this.counted.shift();
    const since = (windowMs: number) => this.counted.filter((entry) => entry.at > at - windowMs);
    const tokens = this.usage ? this.usage.prompt_tokens + this.usage.completion_tokens : 0;
    if (this.rateLimit && since(this.rateLimit.windowMs).length + 1 > this.rateLimit.limit) return true;
    if (this.tokenLimit && since(this.tokenLimit.windowMs).reduce((sum, entry) => sum + entry.tokens, 0) + tokens > this.tokenLimit.limit) return true;
    this.counted.push({ at, tokens });
    return false;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const path = request.url ?? '/';
    const at = Date.now();
    if (this.keepRequests) this.requests.push({ path, body: text === '' ? null : (JSON.parse(text) as unknown), headers: request.headers, at });
    if (path === '/v1/chat/completions') this.received += 1;
    if (request.method === 'GET' && path === '/v1/models') {
      return send(response, 200, {}, { object: 'list', data: this.models.map((id) => ({ id, object: 'model', created: 0, owned_by: 'test' })) });
    }
    if (request.method !== 'POST' || path !== '/v1/chat/completions') return send(response, 404, {}, { error: { message: `no route ${path}` } });
    if (this.overLimits(at)) {
      this.overLimit++;
      return send(response, 429, { 'retry-after': '1' }, { error: { message: 'rate limit reached' } });
    }
    const reply = this.respond?.(JSON.parse(text) as never) ?? this.replies.shift() ?? {};
    const hold = this.hold;
    if (hold) {
      if (this.completions() >= hold.count) this.release();
      await hold.released;
      if (response.destroyed || request.socket.destroyed) return;
    }
    if (this.latencyMs > 0) {
      await new Promise((resolve) => setTimeout(resolve, this.latencyMs));
      if (response.destroyed || request.socket.destroyed) return;
    }
    // The response never ends: a close is the client giving up.
    if (reply.hang || reply.hangAfter) response.once('close', () => this.abandoned++);
    if (reply.hang) return;
    const { model = 'unknown', stream = false } = JSON.parse(text) as { model?: string; stream?: boolean };
    const status = reply.status ?? 200;
    // A streamed request gets its completion as server-sent chunks; an error stays a plain JSON answer.
    if (stream && status === 200) {
      const calls = toolCallsOf(reply.body);
      if (calls) return sendToolCallStream(response, model, calls, this.usage);
      return sendStream(response, model, contentOf(reply.body) ?? this.defaultContent, reply.hangAfter, this.usage);
    }
    send(response, status, reply.headers ?? {}, reply.body ?? completion(model, this.defaultContent, this.usage));
  }
}

/** The content of a scripted completion body, for streaming it. */
function contentOf(body: unknown): string | undefined {
  const content = (body as { choices?: { message?: { content?: unknown } }[] } | undefined)?.choices?.[0]?.message?.content;
  return typeof content === 'string' ? content : undefined;
}

const DEFAULT_USAGE: FakeUsage = { prompt_tokens: 12, completion_tokens: 5 };

/** A streamed completion: the content in three chunks, then one with the usage (unless null), then [DONE]; or the first chunk only, and nothing more, with `hangAfter`. */
function sendStream(response: ServerResponse, model: string, content: string, hangAfter: boolean | undefined, usage: FakeUsage | null): void {
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  const chunk = (delta: object, usage: object | null = null, finish: string | null = null) =>
    `data: ${JSON.stringify({ id: 'chatcmpl-test', object: 'chat.completion.chunk', created: 0, model, choices: usage ? [] : [{ index: 0, delta, finish_reason: finish }], ...(usage ? { usage } : {}) })}\n\n`;
  const third = Math.ceil(content.length / 3);
  const pieces = [content.slice(0, third), content.slice(third, 2 * third), content.slice(2 * third)];
  response.write(chunk({ role: 'assistant', content: pieces[0] }));
  if (hangAfter) return;
  response.write(chunk({ content: pieces[1] }));
  response.write(chunk({ content: pieces[2] }, null, 'stop'));
  if (usage) response.write(chunk({}, withTotal(usage)));
  response.end('data: [DONE]\n\n');
}

/** A tool call a scripted completion asks for: its arguments as an object (sent as JSON) or as the very text to send. */
export interface FakeToolCall {
  readonly id?: string;
  readonly name: string;
  readonly arguments?: Readonly<Record<string, unknown>> | string;
}

/** A non-streamed chat completion that asks for `calls` (ids `call_1`, `call_2`… unless given), finish reason `tool_calls`. */
export function toolCallsCompletion(model: string, calls: readonly FakeToolCall[], usage: FakeUsage | null = DEFAULT_USAGE): unknown {
  const toolCalls = calls.map((call, index) => ({
    id: call.id ?? `call_${index + 1}`,
    type: 'function',
    function: { name: call.name, arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {}) },
  }));
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion',
    created: 0,
    model,
    choices: [{ index: 0, message: { role: 'assistant', content: null, tool_calls: toolCalls }, finish_reason: 'tool_calls' }],
    ...(usage ? { usage: withTotal(usage) } : {}),
  };
}

/** The tool calls of a scripted completion body, when it asks for any. */
function toolCallsOf(body: unknown): { id: string; function: { name: string; arguments: string } }[] | null {
  const calls = (body as { choices?: { message?: { tool_calls?: unknown } }[] } | undefined)?.choices?.[0]?.message?.tool_calls;
  return Array.isArray(calls) && calls.length > 0 ? (calls as { id: string; function: { name: string; arguments: string } }[]) : null;
}

/** A streamed completion asking for tool calls: each call's id and name in one chunk, its arguments in two more, as servers send them. */
function sendToolCallStream(response: ServerResponse, model: string, calls: readonly { id: string; function: { name: string; arguments: string } }[], usage: FakeUsage | null): void {
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  const chunk = (delta: object, finish: string | null = null) =>
    `data: ${JSON.stringify({ id: 'chatcmpl-test', object: 'chat.completion.chunk', created: 0, model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  response.write(chunk({ role: 'assistant', content: null }));
  calls.forEach((call, index) => {
    const half = Math.ceil(call.function.arguments.length / 2);
    response.write(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] }));
    response.write(chunk({ tool_calls: [{ index, function: { arguments: call.function.arguments.slice(0, half) } }] }));
    response.write(chunk({ tool_calls: [{ index, function: { arguments: call.function.arguments.slice(half) } }] }));
  });
  response.write(chunk({}, 'tool_calls'));
  if (usage) response.write(`data: ${JSON.stringify({ id: 'chatcmpl-test', object: 'chat.completion.chunk', created: 0, model, choices: [], usage: withTotal(usage) })}\n\n`);
  response.end('data: [DONE]\n\n');
}

/** A non-streamed chat completion with `content`, 12 tokens in and 5 out unless `usage` says otherwise (null: no `usage` field). */
export function completion(model: string, content: string, usage: FakeUsage | null = DEFAULT_USAGE): unknown {
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion',
    created: 0,
    model,
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    ...(usage ? { usage: withTotal(usage) } : {}),
  };
}

function withTotal(usage: FakeUsage): FakeUsage & { total_tokens: number } {
  return { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens };
}

function send(response: ServerResponse, status: number, headers: Readonly<Record<string, string>>, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

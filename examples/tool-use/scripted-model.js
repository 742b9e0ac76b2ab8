// A stand-in for a model that calls tools, so the tool-use example runs offline: an
// OpenAI-compatible chat completions endpoint on 127.0.0.1 (node:http only) whose answers follow
// from the conversation it is sent, as a model's would:
//
//   no tool results yet          → list_notes
//   the list of notes            → read_note on each note, all in one answer (they run together)
//   the notes' texts             → count_words on each text, all in one answer
//   the word counts              → the answer: { summary, confidence, output }
//
// `npm run demo` starts it in-process (startScriptedModel). To run the example by hand:
//
//   node examples/tool-use/scripted-model.js [port]   # prints its URL
import { createServer } from 'node:http';
import { pathToFileURL } from 'node:url';

/** The one model it serves: the librarian's, in examples/tool-use/tierflow.config.ts. */
export const SCRIPTED_MODEL = 'scripted-librarian';

/**
 * Starts the scripted model on 127.0.0.1 (`port` 0: any free one).
 * @param {number} [port]
 * @returns {Promise<{ url: string, close: () => Promise<void> }>} its base URL (the API is under `/v1`), and how to stop it
 */
export async function startScriptedModel(port = 0) {
  const server = createServer((request, response) => {
    handle(request, response).catch((error) => send(response, 500, { error: { message: String(error?.message ?? error), type: 'server_error' } }));
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(undefined));
  });
  const address = server.address();
  return {
    url: `http://127.0.0.1:${address.port}`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve(undefined));
        server.closeAllConnections();
      }),
  };
}

async function handle(request, response) {
  const path = new URL(request.url ?? '/', 'http://localhost').pathname;
  if (request.method === 'GET' && path === '/v1/models') return send(response, 200, { object: 'list', data: [{ id: SCRIPTED_MODEL, object: 'model', created: 0, owned_by: 'tierflow-example' }] });
  if (request.method !== 'POST' || path !== '/v1/chat/completions') return send(response, 404, { error: { message: `no route ${request.method} ${path}`, type: 'not_found' } });
  const chunks = [];
  for await (const chunk of request) chunks.push(chunk);
  const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  if (body.stream) return send(response, 400, { error: { message: 'the scripted model does not stream', type: 'invalid_request_error' } });
  const reply = nextReply(body);
  const prompt = Math.ceil(JSON.stringify(body.messages ?? []).length / 4);
  const completion = Math.ceil(JSON.stringify(reply).length / 4);
  return send(response, 200, {
    id: `chatcmpl-scripted-${Date.now()}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: body.model ?? SCRIPTED_MODEL,
    choices: [{ index: 0, message: { role: 'assistant', ...reply }, finish_reason: reply.tool_calls ? 'tool_calls' : 'stop' }],
    usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
  });
}

/** What the model says next, read from the conversation so far. */
function nextReply(body) {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  // The functions offered, as the Fleet names them (an MCP tool `mcp:notes/read_note` is `notes__read_note`).
  const offered = (body.tools ?? []).map((tool) => tool.function?.name).filter(Boolean);
  const named = (tool) => offered.find((name) => name === tool || name.endsWith(`__${tool}`));
  const results = new Map(messages.filter((message) => message.role === 'tool').map((message) => [message.tool_call_id, textOf(message.content)]));
  const asked = messages.filter((message) => message.role === 'assistant' && Array.isArray(message.tool_calls) && message.tool_calls.length > 0);
  const last = asked.at(-1)?.tool_calls ?? [];
  const lastTool = last[0]?.function?.name;
  const mayCall = body.tool_choice !== 'none';
  try {
    if (mayCall && last.length === 0 && named('list_notes')) return toolCalls([{ id: 'list', name: named('list_notes'), arguments: {} }]);
    if (mayCall && lastTool === named('list_notes') && named('read_note')) {
      const names = JSON.parse(results.get(last[0].id) ?? '[]');
      return toolCalls(names.map((name, index) => ({ id: `read_${index}`, name: named('read_note'), arguments: { name } })));
    }
    if (mayCall && lastTool === named('read_note') && named('count_words')) {
      return toolCalls(last.map((call, index) => ({ id: `count_${index}`, name: named('count_words'), arguments: { text: results.get(call.id) ?? '' } })));
    }
    if (lastTool === named('count_words')) return answer(wordCounts(asked, results));
  } catch (error) {
    return answer(null, `the notes could not be read: ${error instanceof Error ? error.message : String(error)}`);
  }
  return answer(null, 'the notes could not be read: the tools list_notes, read_note and count_words were not all offered');
}

/** Each note read, with the words count_words found in it. */
function wordCounts(asked, results) {
  const reads = asked.find((message) => message.tool_calls.some((call) => call.function.name.endsWith('read_note')))?.tool_calls ?? [];
  return reads.map((call, index) => ({ name: JSON.parse(call.function.arguments).name, words: JSON.parse(results.get(`count_${index}`) ?? '{}').words ?? 0 }));
}

/** The final answer, in the shape an LLM specialist reads: { summary, confidence, output }. */
function answer(notes, failure) {
  if (!notes || notes.length === 0) return { content: JSON.stringify({ summary: failure ?? 'there are no notes', confidence: 0.2, output: null }) };
  const longest = notes.reduce((best, note) => (note.words > best.words ? note : best));
  const total = notes.reduce((sum, note) => sum + note.words, 0);
  const summary = `Read ${notes.length} notes (${total} words); the longest is ${longest.name}, with ${longest.words} words`;
  return { content: JSON.stringify({ summary, confidence: 0.9, output: { notes, longest: longest.name, total_words: total } }) };
}

function toolCalls(calls) {
  return { content: null, tool_calls: calls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.arguments) } })) };
}

function textOf(content) {
  if (typeof content === 'string') return content;
  return Array.isArray(content) ? content.map((part) => part?.text ?? '').join('') : '';
}

function send(response, status, body) {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

// Run directly: serve until stopped, on the port given (any free one when none).
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { url } = await startScriptedModel(Number(process.argv[2] ?? 0));
  process.stdout.write(`scripted model at ${url}: OPENAI_BASE_URL=${url}/v1 (Ctrl-C stops it)\n`);
}

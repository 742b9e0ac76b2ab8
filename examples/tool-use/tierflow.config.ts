// The tool-use example: an LLM specialist, the librarian, calls a function tool of this file
// (count_words) and the tools of an MCP server (notes-server.js, over the notes/ folder) until it
// can answer. `npm run demo` runs it offline, after the other examples, against scripted-model.js;
// by hand, with the scripted model or any OpenAI-compatible endpoint whose model calls tools:
//
//   node examples/tool-use/scripted-model.js 8787   # or your own endpoint (then change the model below)
//   OPENAI_BASE_URL=http://127.0.0.1:8787/v1 OPENAI_API_KEY=demo npx tierflow up --config examples/tool-use/tierflow.config.ts
//   npx tierflow enqueue examples/tool-use/objective.json --wait
//   npx tierflow inspect <the leaf's id>             # its tool calls, each with its arguments and result
import { fileURLToPath } from 'node:url';
import type { ProjectConfigInput } from '@tierflow/cli';
import { z } from 'zod';

const here = (path: string): string => fileURLToPath(new URL(path, import.meta.url));

export default {
  specialists: [
    {
      kind: 'llm',
      name: 'librarian',
      // What scripted-model.js serves; change it to a model of your endpoint that calls tools.
      model: 'scripted-librarian',
      systemPrompt: 'You answer questions about the notes, reading them with your tools. Answer with one JSON object: "summary" (one sentence), "confidence" (0 to 1) and "output".',
      // The file's count_words, and every tool of the MCP server `notes` (mcp:notes/list_notes, mcp:notes/read_note).
      tools: ['count_words', 'mcp:notes/*'],
      maxToolCalls: 8,
    },
  ],
  tools: [
    {
      name: 'count_words',
      description: 'The number of words in a text',
      parameters: z.object({ text: z.string() }),
      run: ({ text }: { text: string }) => ({ words: text.split(/\s+/).filter(Boolean).length }),
    },
  ],
  // Each Fleet process starts this server the first time the librarian runs, and speaks MCP to it over stdio.
  mcp: { notes: { command: process.execPath, args: [here('./notes-server.js'), here('./notes')] } },
  routing: { summarize_notes: ['librarian'] },
  // A run that sets no budget of its own stops after 12 tool calls and 10 model calls.
  budget: { max_tool_calls: 12, max_llm_calls: 10 },
} satisfies ProjectConfigInput;

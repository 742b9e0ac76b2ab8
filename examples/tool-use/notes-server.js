// The tool-use example's MCP server over stdio: `list_notes` and `read_note { name }`, over the
// text files of one folder and nothing outside it. The Fleet starts it as its project file says:
//
//   node examples/tool-use/notes-server.js <folder>
//
// Plain JavaScript, so node runs it without a build.
import { readdir, readFile, realpath } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const folderArg = process.argv[2];
if (!folderArg) {
  process.stderr.write('usage: node notes-server.js <folder of notes>\n');
  process.exit(2);
}
const folder = await realpath(resolve(folderArg));

/** The path of note `name` inside the folder, or null: a bare file name, which must resolve (links followed) inside the folder. */
async function notePath(name) {
  if (name === '' || name.includes('/') || name.includes('\\') || name.includes('\0') || name === '.' || name.includes('..')) return null;
  try {
    const path = await realpath(resolve(folder, name));
    return dirname(path) === folder ? path : null;
  } catch {
    return null;
  }
}

const text = (value) => ({ content: [{ type: 'text', text: value }] });
const refused = (message) => ({ content: [{ type: 'text', text: message }], isError: true });

const server = new McpServer({ name: 'notes', version: '1.0.0' });

server.registerTool('list_notes', { description: 'The names of the notes, as a JSON array of strings' }, async () => {
  const entries = await readdir(folder, { withFileTypes: true });
  return text(
    JSON.stringify(
      entries
        .filter((entry) => entry.isFile() && !entry.name.startsWith('.'))
        .map((entry) => entry.name)
        .sort(),
    ),
  );
});

server.registerTool('read_note', { description: 'The text of one note, by its name as list_notes gives it', inputSchema: { name: z.string() } }, async ({ name }) => {
  const path = await notePath(name);
  if (path === null) return refused(`no note ${JSON.stringify(name)}: give a name list_notes gives`);
  try {
    return text(await readFile(path, 'utf8'));
  } catch {
    return refused(`no note ${JSON.stringify(name)}: give a name list_notes gives`);
  }
});

await server.connect(new StdioServerTransport());

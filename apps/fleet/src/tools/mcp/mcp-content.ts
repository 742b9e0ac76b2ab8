import type { ToolResult } from '../tool.js';

/** The most of an unknown part's JSON the model is shown. */
const MAX_PART_JSON = 500;

/**
 * A `tools/call` result as the model reads it: text parts as they are, joined by line breaks;
 * other parts (image, audio, resource, …) as a short description rather than their bytes. Read
 * leniently: a server's odd content becomes a description, never an exception.
 */
export function toolResultFromMcp(result: unknown): ToolResult {
  const record = asRecord(result);
  if (record === null) return { content: describe(result) };
  const isError = record['isError'] === true;
  const parts = Array.isArray(record['content']) ? (record['content'] as unknown[]) : [];
  let content = parts.map(partText).join('\n');
  // No content: the structured result, or the result of a server older than content (`toolResult`).
  if (content === '' && record['structuredContent'] !== undefined) content = describe(record['structuredContent']);
  if (content === '' && record['toolResult'] !== undefined) content = describe(record['toolResult']);
  return isError ? { content, isError } : { content };
}

function partText(part: unknown): string {
  const record = asRecord(part);
  if (record === null) return describe(part);
  const type = record['type'];
  switch (type) {
    case 'text':
      return typeof record['text'] === 'string' ? record['text'] : describe(part);
    case 'image':
    case 'audio':
      return `[${type}${mimeType(record)}${base64Size(record['data'])}]`;
    case 'resource': {
      const resource = asRecord(record['resource']);
      const uri = typeof resource?.['uri'] === 'string' ? ` ${resource['uri']}` : '';
      // A text resource is content the model can read; a blob is described by its size.
      if (typeof resource?.['text'] === 'string') return `[resource${uri}]\n${resource['text']}`;
      return `[resource${uri}${resource === null ? '' : mimeType(resource)}${base64Size(resource?.['blob'])}]`;
    }
    case 'resource_link': {
      const uri = typeof record['uri'] === 'string' ? ` ${record['uri']}` : '';
      const name = typeof record['name'] === 'string' ? ` (${record['name']})` : '';
      return `[resource link${uri}${name}]`;
    }
    default:
      return describe(part);
  }
}

function mimeType(record: Readonly<Record<string, unknown>>): string {
  return typeof record['mimeType'] === 'string' ? ` ${record['mimeType']}` : '';
}

function base64Size(data: unknown): string {
  return typeof data === 'string' ? `, ${Math.floor((data.length * 3) / 4)} bytes` : '';
}

function asRecord(value: unknown): Readonly<Record<string, unknown>> | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

/** Short JSON of anything (cycles and BigInts included), cut at {@link MAX_PART_JSON} characters. */
function describe(value: unknown): string {
  let json: string;
  try {
    json = JSON.stringify(value) ?? String(value);
  } catch {
    json = String(value);
  }
  return json.length > MAX_PART_JSON ? `${json.slice(0, MAX_PART_JSON)}…` : json;
}

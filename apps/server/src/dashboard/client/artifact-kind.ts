import type { Artifact } from './api-types.js';

/**
 * How an artifact is shown (pure): code as code, JSON folded, a `test_result` whose content is
 * JSON of test cases as a table, content kept in Beads as its reference, anything else as text.
 */
export type ArtifactShape =
  | { readonly kind: 'ref'; readonly ref: string }
  | { readonly kind: 'code'; readonly text: string; readonly language: string | null }
  | { readonly kind: 'tests'; readonly columns: readonly string[]; readonly rows: readonly (readonly string[])[] }
  | { readonly kind: 'json'; readonly text: string; readonly summary: string }
  | { readonly kind: 'text'; readonly text: string };

const CODE_TYPES = new Set(['code', 'patch', 'diff', 'source', 'script']);
/** Where a test result keeps its cases, when not an array itself. */
const CASE_LISTS = ['tests', 'cases', 'results', 'test_cases'];
const MAX_COLUMNS = 8;

export function artifactShape(artifact: Artifact): ArtifactShape {
  if (artifact.inline_content === null) return { kind: 'ref', ref: artifact.content_ref ?? '?' };
  const text = artifact.inline_content;
  const language = typeof artifact.metadata.language === 'string' ? artifact.metadata.language : null;
  if (CODE_TYPES.has(artifact.artifact_type) || language !== null) return { kind: 'code', text, language };
  const json = parseJson(text);
  if (json === undefined) return { kind: 'text', text };
  if (artifact.artifact_type === 'test_result') {
    const table = testTable(json);
    if (table) return table;
  }
  if (typeof json !== 'object' || json === null) return { kind: 'text', text };
  const size = Array.isArray(json) ? `${json.length} item${json.length === 1 ? '' : 's'}` : `${Object.keys(json).length} field${Object.keys(json).length === 1 ? '' : 's'}`;
  return { kind: 'json', text: JSON.stringify(json, null, 2), summary: `JSON, ${size}` };
}

/** Test cases as rows: an array of objects, or one under `tests`, `cases`, `results`; null otherwise. */
function testTable(json: unknown): ArtifactShape | null {
  const list = Array.isArray(json) ? json : isObject(json) ? CASE_LISTS.map((name) => json[name]).find(Array.isArray) : undefined;
  if (!list || list.length === 0 || !list.every(isObject)) return null;
  const columns = [...new Set(list.flatMap((item) => Object.keys(item)))].slice(0, MAX_COLUMNS);
  return { kind: 'tests', columns, rows: list.map((item) => columns.map((column) => cellText(item[column]))) };
}

function cellText(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

import { TierflowError } from '@tierflow/protocol';

/**
 * `tierflow rerun --set <path>=<value>` edits (docs/operations.md#rerun-fork-and-replay), pure.
 *
 * - `path` is a dotted path into the value: names of fields, and whole numbers for places in a
 *   list (`objective`, `constraints.1`, `task_data.plan.subtasks.0.objective`). A number names a
 *   field when the value there is an object; a missing field on the way is made an empty object.
 * - `value` is JSON when it parses as JSON (`42`, `true`, `null`, `"42"`, `{"a":1}`, `["x"]`), and
 *   otherwise the text as it is (`objective=write it in French`): quote a string that would parse
 *   as something else (`--set 'objective="42"'`).
 * - A place in a list must exist, or be the one just past its end (which appends).
 * - `__proto__`, `constructor` and `prototype` are no field of a path: no edit reaches a prototype.
 */
export interface Edit {
  readonly path: readonly string[];
  readonly value: unknown;
}

const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype']);

function editError(message: string): TierflowError {
  return TierflowError.permanent(message, { code: 'invalid_argument' });
}

/** `path=value` parsed (see {@link Edit}). @throws TierflowError (code `invalid_argument`) for a text with no `=`, or a path that is not one. */
export function parseEdit(text: string): Edit {
  const at = text.indexOf('=');
  if (at < 0) throw editError(`--set ${JSON.stringify(text)}: expected <path>=<value>, e.g. objective="a new objective" or constraints.0="be brief"`);
  const path = parsePath(text.slice(0, at), text);
  const raw = text.slice(at + 1);
  return { path, value: jsonOrText(raw) };
}

/** Every edit parsed, in order. @throws TierflowError (code `invalid_argument`) at the first that is not one. */
export function parseEdits(texts: readonly string[]): Edit[] {
  return texts.map(parseEdit);
}

function parsePath(path: string, text: string): string[] {
  const fields = path.trim().split('.');
  if (path.trim() === '' || fields.some((field) => field === ''))
    throw editError(`--set ${JSON.stringify(text)}: ${JSON.stringify(path)} is not a path (fields separated by single dots, e.g. task_data.plan.subtasks.0.objective)`);
  const forbidden = fields.find((field) => FORBIDDEN.has(field));
  if (forbidden !== undefined) throw editError(`--set ${JSON.stringify(text)}: ${JSON.stringify(forbidden)} cannot be edited`);
  return fields;
}

function jsonOrText(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}

/**
 * `value` with each edit made in order: a new value, `value` itself untouched.
 *
 * @throws TierflowError (code `invalid_argument`) naming the edit and where its path stops: a
 *   field of something that is not an object, a place past the end of a list, a list indexed by name.
 */
export function applyEdits(value: unknown, edits: readonly (string | Edit)[]): unknown {
  let result = structuredClone(value);
  for (const edit of edits) result = applyEdit(result, typeof edit === 'string' ? parseEdit(edit) : edit);
  return result;
}

/** One edit made on `root`, which this module owns (a copy): the places on its path are changed in place. */
function applyEdit(root: unknown, edit: Edit): unknown {
  const shown = edit.path.join('.');
  if (edit.path.length === 0) return structuredClone(edit.value);
  let holder: unknown = root;
  for (let index = 0; index < edit.path.length; index++) {
    const field = edit.path[index]!;
    const last = index === edit.path.length - 1;
    const where = edit.path.slice(0, index).join('.') || 'the value';
    if (Array.isArray(holder)) {
      if (!/^\d+$/.test(field)) throw editError(`--set ${shown}: ${where} is a list; ${JSON.stringify(field)} is no place in it (0 to ${holder.length - 1})`);
      const place = Number(field);
      if (place > holder.length || (!last && place === holder.length))
        throw editError(`--set ${shown}: ${where} has ${holder.length} item${holder.length === 1 ? '' : 's'}; there is no place ${place} in it`);
      if (last) {
        holder[place] = structuredClone(edit.value);
        return root;
      }
      holder = holder[place];
    } else if (typeof holder === 'object' && holder !== null) {
      const fields = holder as Record<string, unknown>;
      if (last) {
        fields[field] = structuredClone(edit.value);
        return root;
      }
      // A missing field on the way is made: `task_data.notes.tone=…` on an objective without notes.
      if (!Object.hasOwn(fields, field) || fields[field] === undefined) fields[field] = {};
      holder = fields[field];
    } else {
      throw editError(`--set ${shown}: ${where} is ${describe(holder)}, which has no field ${JSON.stringify(field)}`);
    }
  }
  return root;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return 'a string';
  if (typeof value === 'number') return 'a number';
  if (typeof value === 'boolean') return 'a boolean';
  return typeof value;
}

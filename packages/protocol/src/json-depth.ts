/**
 * How deep a JSON value may nest: objects and arrays inside one another, the message itself at
 * depth 1. Far beyond any message or task_data a person or a planner writes, and far below what
 * the recursive code every tier runs on a message (a schema's parse, JSON.stringify, signing's
 * canonical form) can take before it runs out of stack.
 */
export const MAX_JSON_DEPTH = 128;

interface Frame {
  readonly value: unknown;
  readonly depth: number;
  readonly parent: Frame | null;
  readonly key: string | number | null;
}

function pathTo(frame: Frame): (string | number)[] {
  const path: (string | number)[] = [];
  for (let at: Frame | null = frame; at !== null && at.key !== null; at = at.parent) path.push(at.key);
  return path.reverse();
}

/**
 * The path to the first object or array nested deeper than `max`, or null when none is. Walks
 * with a stack of its own rather than by recursion, since the input may be nested deeper than
 * the call stack allows (JSON.parse reads 300,000 levels; JSON.stringify does not write them).
 * A cycle counts as too deep, so it ends too.
 */
export function tooDeepAt(value: unknown, max: number = MAX_JSON_DEPTH): (string | number)[] | null {
  const stack: Frame[] = [{ value, depth: 1, parent: null, key: null }];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    const { value: node, depth } = frame;
    if (typeof node !== 'object' || node === null) continue;
    if (depth > max) return pathTo(frame);
    if (Array.isArray(node)) {
      for (let index = node.length - 1; index >= 0; index--) stack.push({ value: node[index] as unknown, depth: depth + 1, parent: frame, key: index });
    } else {
      for (const key of Object.keys(node)) stack.push({ value: (node as Record<string, unknown>)[key], depth: depth + 1, parent: frame, key });
    }
  }
  return null;
}

import { wildcardMatches } from '@tierflow/core';

/**
 * How a `tools` selection names tools: an exact name, or a pattern where `*` stands for any
 * characters (`/` included: `mcp:*` is every MCP tool). Everything else is literal.
 */

/** Whether `pattern` selects the tool called `name`: the wildcards of boundaries. */
export function toolPatternMatches(pattern: string, name: string): boolean {
  return wildcardMatches(pattern, name);
}

/**
 * Whether some name that starts with `prefix` could match `pattern`: lets a caller skip a source
 * (an MCP server, whose names all start with `mcp:<server>/`) before knowing its tools. Walks the
 * pattern over the prefix as a small automaton; once the prefix is spent, whatever is left of the
 * pattern can always be matched by some rest of the name.
 */
export function toolPatternMayMatchPrefix(pattern: string, prefix: string): boolean {
  // Positions in the pattern reachable after the characters read so far.
  let states = closure(new Set([0]), pattern);
  for (const char of prefix) {
    const next = new Set<number>();
    for (const at of states) {
      if (at >= pattern.length) continue;
      if (pattern[at] === '*') next.add(at);
      else if (pattern[at] === char) next.add(at + 1);
    }
    states = closure(next, pattern);
    if (states.size === 0) return false;
  }
  return true;
}

/** Adds, for each position on a `*`, the position after it: a star may match nothing. */
function closure(states: Set<number>, pattern: string): Set<number> {
  for (const at of states) if (pattern[at] === '*') states.add(at + 1);
  return states;
}

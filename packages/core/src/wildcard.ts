/**
 * Whether `name` matches `pattern`, where `*` stands for any run of characters (none, `/` and
 * line breaks included) and everything else is itself: how boundaries name parties
 * (`fleet:python-*`) and how specialists select tools (`mcp:files/*`). Pure.
 *
 * ```ts
 * wildcardMatches('fleet:python-*', 'fleet:python-lora'); // true
 * ```
 */
export function wildcardMatches(pattern: string, name: string): boolean {
  return compiledPattern(pattern).test(name);
}

/** Patterns come from project files: few and fixed, so a small cache covers them. */
const compiled = new Map<string, RegExp>();
const CACHED_PATTERNS = 1_000;

function compiledPattern(pattern: string): RegExp {
  let regExp = compiled.get(pattern);
  if (regExp === undefined) {
    const source = pattern
      .split('*')
      .map((part) => part.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'))
      .join('.*');
    regExp = new RegExp(`^${source}$`, 's');
    if (compiled.size < CACHED_PATTERNS) compiled.set(pattern, regExp);
  }
  return regExp;
}

/**
 * The metric names a PromQL expression reads: enough of PromQL's grammar to tell a metric from a
 * function, keyword, label or number, for checking that a dashboard names only metrics Tierflow
 * exports. Grafana's `$variables` are allowed anywhere a value or duration goes.
 */

const KEYWORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'bool', 'and', 'or', 'unless', 'offset', 'inf', 'nan']);
const STRING = /"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g;
const NAME_MATCHER = /__name__\s*=\s*("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')/g;

/** The metric names `expr` selects, sorted, each once. */
export function promqlMetricNames(expr: string): string[] {
  const names = new Set<string>();
  // `{__name__="x"}` names a metric inside a matcher.
  for (const match of expr.matchAll(NAME_MATCHER)) names.add(match[1]!.slice(1, -1));
  const bare = expr
    .replace(STRING, '""')
    .replace(/\{[^}]*\}/g, ' ') // label matchers
    .replace(/\[[^\]]*\]/g, ' ') // ranges and subqueries
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ') // label lists
    .replace(/\$\{[^}]*\}|\$\w+/g, ' '); // Grafana variables
  // A token starting with a digit is a number or duration; an identifier before `(` a function.
  for (const match of bare.matchAll(/[0-9][0-9a-zA-Z_.]*|([a-zA-Z_:][a-zA-Z0-9_:]*)(\s*\()?/g)) {
    const [, identifier, call] = match;
    if (identifier && !call && !KEYWORDS.has(identifier.toLowerCase())) names.add(identifier);
  }
  return [...names].sort();
}

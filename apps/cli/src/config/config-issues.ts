import type { z } from 'zod';

/**
 * One line per problem, `specialists[1].model: Invalid input: expected string, received number`.
 * A value that fits none of a union's shapes is blamed on the shape it came closest to: the one
 * whose problems lie deepest. Pure.
 */
export function issueLines(issues: readonly z.core.$ZodIssue[], base: readonly PropertyKey[] = []): string[] {
  return issues.flatMap((issue) => {
    const path = [...base, ...issue.path];
    if (issue.code === 'invalid_union' && issue.errors.length > 0) {
      const closest = issue.errors.reduce((best, branch) => (depth(branch) > depth(best) ? branch : best));
      return issueLines(closest, path);
    }
    return [`${pathText(path) || '(the file)'}: ${issue.message}`];
  });
}

function depth(issues: readonly z.core.$ZodIssue[]): number {
  return Math.max(0, ...issues.map((issue) => issue.path.length + (issue.code === 'invalid_union' ? 1 : 0)));
}

/** `specialists[1].model`, as a reader of the file would point at it. */
export function pathText(path: readonly PropertyKey[]): string {
  return path.reduce<string>((text, key) => (typeof key === 'number' ? `${text}[${key}]` : text === '' ? String(key) : `${text}.${String(key)}`), '');
}

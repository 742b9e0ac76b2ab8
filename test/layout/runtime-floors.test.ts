import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The runtime's folders stack in floors (packages/runtime/floors.json): a folder imports from its
// own floor and those below, never from above, and no file imports itself round a cycle, type-only
// imports included (lint's no-cycle skips those).
const RUNTIME = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'packages', 'runtime');
const SRC = join(RUNTIME, 'src');
const { floors } = JSON.parse(readFileSync(join(RUNTIME, 'floors.json'), 'utf8')) as { floors: { name: string; folders: string[] }[] };
const floorOf = new Map(floors.flatMap((floor, index) => floor.folders.map((folder) => [folder, index] as const)));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [relative(SRC, join(dir, entry.name))] : [],
  );
}

/** Each source file's relative imports (value and type), as paths from src/. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sources(SRC)) {
    const text = readFileSync(join(SRC, file), 'utf8');
    const targets = [...text.matchAll(/from '(\.{1,2}\/[^']+)\.js'/g)].map((match) => normalize(join(dirname(file), `${match[1]!}.ts`)));
    graph.set(file, targets);
  }
  return graph;
}

const folderOf = (file: string) => (file.includes('/') ? file.split('/')[0]! : null);

/** The cycles of the graph (Tarjan's strongly connected components of more than one file). */
function cycles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string) => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(file, Math.min(low.get(file)!, index.get(target)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1) found.push(component.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}

describe('the runtime’s floors', () => {
  const graph = importGraph();

  it('place every folder of packages/runtime/src on one floor', () => {
    const folders = [...new Set([...graph.keys()].map(folderOf).filter((folder): folder is string => folder !== null))].sort();
    expect(folders.filter((folder) => !floorOf.has(folder))).toEqual([]);
  });

  it('import only from their own floor and those below', () => {
    const upward = [...graph].flatMap(([file, targets]) => {
      const from = folderOf(file);
      if (from === null) return [];
      return targets
        .filter((target) => {
          const to = folderOf(target);
          return to !== null && floorOf.get(to)! > floorOf.get(from)!;
        })
        .map((target) => `${file} -> ${target}`);
    });
    expect(upward).toEqual([]);
  });

  it('hold no import cycle, type-only imports included', () => {
    expect(cycles(graph)).toEqual([]);
  });

  it('finds a cycle and a climb when there is one', () => {
    const planted = new Map([
      ['policy/a.ts', ['engine/b.ts']],
      ['engine/b.ts', ['policy/a.ts']],
    ]);
    expect(cycles(planted)).toEqual([['engine/b.ts', 'policy/a.ts']]);
    expect(floorOf.get('engine')! > floorOf.get('policy')!).toBe(true);
  });
});

import type { Profiler } from 'node:inspector';

/** A share of busy samples (0–1), with what it is charged to. */
export interface Share {
  readonly name: string;
  readonly share: number;
}

export interface ProfileShares {
  /** By the package that owns the sampled frame: an npm package, a Tierflow workspace, Node itself. */
  readonly owners: readonly Share[];
  /** By function (self time), named with its file and line. */
  readonly functions: readonly Share[];
  readonly busySamples: number;
}

/** Samples the profiler takes while nothing runs; not work. */
const NOT_BUSY = new Set(['(idle)', '(program)']);

/**
 * Who owns a frame: `node_modules/<package>` (scoped too), a Tierflow workspace
 * (`packages/<name>`, `apps/<name>`), a `node:` module, the garbage collector, or native code.
 */
export function ownerOf(frame: Profiler.ProfileNode['callFrame']): string {
  const { url, functionName } = frame;
  if (url !== '') return ownerOfUrl(url);
  return functionName === '(garbage collector)' ? 'garbage collection' : 'native (socket writes, microtask queue, builtins)';
}

/** Who owns the code at `url` (as {@link ownerOf} says); the url itself when it is none of those. */
export function ownerOfUrl(url: string): string {
  const dependency = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (dependency) return dependency[1]!;
  const workspace = /\/(packages|apps)\/([^/]+)\//.exec(url);
  if (workspace) return `tierflow ${workspace[1] === 'apps' ? 'app ' : ''}${workspace[2]}`;
  // The plain-BullMQ half's own worker code.
  if (/\/test\/dist\/bench\//.test(url)) return 'bench code';
  if (url.startsWith('node:'))
    return (
      'node:' +
      url
        .slice('node:'.length)
        .replace(/^internal\//, '')
        .split('/')[0]!
    );
  return url;
}

/**
 * The frame a sample is charged to: its own, unless it is code made at run time (no file, no
 * name: zod compiles its object parsers with `new Function`), which is charged to its caller's.
 */
function ownFrame(id: number, nodes: ReadonlyMap<number, Profiler.ProfileNode>, callers: ReadonlyMap<number, number>): Profiler.ProfileNode['callFrame'] | undefined {
  let node = nodes.get(id);
  while (node && node.callFrame.url === '' && node.callFrame.functionName === '') node = nodes.get(callers.get(node.id) ?? -1);
  return node?.callFrame;
}

function functionLabel(frame: Profiler.ProfileNode['callFrame']): string {
  const file = frame.url.replace(/^.*node_modules\//, '').replace(/^.*\/((packages|apps)\/)/, '$1');
  return `${frame.functionName || '(anonymous)'} ${file}:${frame.lineNumber + 1}`;
}

/** One busy sample: the node sampled, with its profile's nodes and each node's caller. */
interface BusySample {
  readonly id: number;
  readonly frame: Profiler.ProfileNode['callFrame'];
  readonly nodes: ReadonlyMap<number, Profiler.ProfileNode>;
  readonly callers: ReadonlyMap<number, number>;
}

function* busySamples(profiles: readonly Profiler.Profile[]): Generator<BusySample> {
  for (const profile of profiles) {
    const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
    const callers = new Map<number, number>();
    for (const node of profile.nodes) for (const child of node.children ?? []) callers.set(child, node.id);
    for (const id of profile.samples ?? []) {
      const frame = nodes.get(id)?.callFrame;
      if (frame && !NOT_BUSY.has(frame.functionName)) yield { id, frame, nodes, callers };
    }
  }
}

function ranked(counts: ReadonlyMap<string, number>, total: number): Share[] {
  return [...counts].map(([name, count]) => ({ name, share: total === 0 ? 0 : count / total })).sort((a, b) => b.share - a.share || a.name.localeCompare(b.name));
}

function count(counts: Map<string, number>, name: string): void {
  counts.set(name, (counts.get(name) ?? 0) + 1);
}

/** Self samples of one or more profiles, charged to owners and to functions, largest first. */
export function profileShares(profiles: readonly Profiler.Profile[]): ProfileShares {
  const owners = new Map<string, number>();
  const functions = new Map<string, number>();
  let total = 0;
  for (const { id, frame, nodes, callers } of busySamples(profiles)) {
    total += 1;
    count(owners, ownerOf(ownFrame(id, nodes, callers) ?? frame));
    count(functions, functionLabel(frame));
  }
  return { owners: ranked(owners, total), functions: ranked(functions, total), busySamples: total };
}

/**
 * The samples charged to `owner` (zod, say), by the Tierflow code that called into it: the
 * nearest two Tierflow frames up the stack, as `caller ← its caller`, so a thin wrapper such as
 * the protocol's `validateWith` still names who validated. Shares are of all busy samples.
 */
export function callerShares(profiles: readonly Profiler.Profile[], owner: string): Share[] {
  const counts = new Map<string, number>();
  let total = 0;
  for (const { id, frame, nodes, callers } of busySamples(profiles)) {
    total += 1;
    if (ownerOf(ownFrame(id, nodes, callers) ?? frame) === owner) count(counts, tierflowCallers(id, nodes, callers));
  }
  return ranked(counts, total);
}

function tierflowCallers(id: number, nodes: ReadonlyMap<number, Profiler.ProfileNode>, callers: ReadonlyMap<number, number>): string {
  const found: string[] = [];
  for (let node = nodes.get(id); node && found.length < 2; node = nodes.get(callers.get(node.id) ?? -1)) {
    if (ownerOf(node.callFrame).startsWith('tierflow ')) found.push(functionLabel(node.callFrame));
  }
  return found.length === 0 ? '(no Tierflow caller)' : found.join(' ← ');
}

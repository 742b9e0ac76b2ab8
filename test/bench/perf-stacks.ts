import { ownerOfUrl, type Share } from './profile-owners.js';

/** One sample from `perf script -F tid,ip,sym`: the thread it was taken on, and its frames, innermost first. */
export interface PerfSample {
  readonly thread: number;
  readonly frames: readonly string[];
}

/** Splits `perf script -F tid,ip,sym` output into samples: a line with the thread id, then one indented line per frame. */
export function parsePerfScript(text: string): PerfSample[] {
  const samples: PerfSample[] = [];
  let current: { thread: number; frames: string[] } | null = null;
  for (const line of text.split('\n')) {
    if (line.trim() === '') {
      if (current) samples.push(current);
      current = null;
    } else if (!/^\s/.test(line)) {
      if (current) samples.push(current);
      current = { thread: Number(line.trim().split(/\s+/)[0]), frames: [] };
    } else if (current) {
      // "<address> <symbol>": the symbol may hold spaces.
      const symbol = line.trim().replace(/^[0-9a-f]+\s+/, '');
      current.frames.push(symbol);
    }
  }
  if (current) samples.push(current);
  return samples;
}

/** A frame of JavaScript as Node's perf map names it: `JS:*name file:line:column` (`*` optimized, `^` baseline, `~` interpreted). */
const JS_FRAME = /^JS:[*^~]?(.*?) ((?:file:\/\/|node:)?\S*):\d+:\d+$/;

/** V8's collector, at work on whichever thread: scavenges, marking, sweeping, compaction. */
const COLLECTOR =
  /Scaveng|ConcurrentMarking|MarkCompact|Marking(Visitor|Worklist|Barrier)|Sweeper|Evacuat|IncrementalMarking|MinorMarkSweep|Heap::|HeapObject::SizeFromMap|BodyDescriptor|LiveObjectRange|RememberedSet|FreeList|Pretenuring|ArrayBufferSweeper/;
const COMPILER = /v8::internal::compiler::|v8::internal::maglev::|Turbofan|Pipeline|Compile/;
const SYSCALL = /^(entry_SYSCALL|do_syscall_64)/;

export interface PerfShares {
  /** Everything sampled, every thread of every process. */
  readonly samples: number;
  /**
   * By owner: a main thread's sample goes to the package of the innermost JavaScript frame on its
   * stack, so builtins, the runtime and the interpreter count for the code that called them; V8's
   * own threads, the collector and the kernel are owners of their own.
   */
  readonly owners: readonly Share[];
  /** By the innermost JavaScript function on a main thread's stack. */
  readonly functions: readonly Share[];
}

/**
 * Charges samples as {@link PerfShares} says. `mainThreads` are the processes' ids (a process's
 * main thread has its pid as its thread id); every other thread is one of V8's or libuv's.
 */
export function perfShares(samples: readonly PerfSample[], mainThreads: ReadonlySet<number>): PerfShares {
  const owners = new Map<string, number>();
  const functions = new Map<string, number>();
  const add = (counts: Map<string, number>, name: string): void => {
    counts.set(name, (counts.get(name) ?? 0) + 1);
  };
  for (const { thread, frames } of samples) {
    const leaf = frames[0] ?? '';
    if (!mainThreads.has(thread)) {
      add(owners, `other threads: ${COLLECTOR.test(leaf) ? 'garbage collection' : COMPILER.test(leaf) ? 'optimizing compiler' : 'other'}`);
      continue;
    }
    if (COLLECTOR.test(leaf)) {
      add(owners, 'main threads: garbage collection');
      continue;
    }
    const js = frames.map((frame) => JS_FRAME.exec(frame)).find((match) => match !== null);
    if (!js) {
      // The event loop itself: waiting on and reading sockets, timers, with no script running.
      add(owners, frames.some((frame) => SYSCALL.test(frame)) ? 'main threads: system calls outside JavaScript' : 'main threads: no JavaScript on the stack');
      continue;
    }
    const [, name = '', url = ''] = js;
    add(owners, url === '' ? 'code made at run time' : ownerOfUrl(url));
    const where = url === '' ? '(made at run time)' : url.replace(/^.*node_modules\//, '').replace(/^.*\/((packages|apps|test)\/)/, '$1');
    add(functions, `${name || '(anonymous)'} ${where}`);
  }
  const ranked = (counts: ReadonlyMap<string, number>): Share[] =>
    [...counts].map(([name, count]) => ({ name, share: count / samples.length })).sort((a, b) => b.share - a.share || a.name.localeCompare(b.name));
  return { samples: samples.length, owners: ranked(owners), functions: ranked(functions) };
}

import { createRequire } from 'node:module';

/** One of BullMQ's Lua scripts: its name, its source and how many of its arguments are keys. */
export interface BullmqScript {
  readonly name: string;
  readonly content: string;
  readonly keys: number;
}

// BullMQ's scripts as the installed version ships them (its script modules have no declarations).
const require = createRequire(import.meta.url);
const SCRIPTS = new Map(Object.values(require('bullmq/dist/cjs/scripts/index.js') as Record<string, BullmqScript>).map((script) => [script.name, script]));

export function bullmqScript(name: string): BullmqScript {
  const script = SCRIPTS.get(name);
  if (!script) throw new Error(`the installed BullMQ has no ${name} script`);
  return script;
}

/**
 * BullMQ's script `name` as a local Lua function `name(KEYS, ARGV)`, to run inside one of the
 * runtime's scripts: its parameters stand in for the globals, so each call sees the keys and
 * arguments it is given.
 */
export function bullmqFunction(name: string): string {
  return `local function ${name}(KEYS, ARGV)\n${bullmqScript(name).content}\nend`;
}

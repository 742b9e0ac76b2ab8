/**
 * The `tierflow` command, also callable in-process:
 *
 * ```ts
 * import { main } from '@tierflow/cli';
 * process.exitCode = await main(['validate', 'message.json']);
 * ```
 */
export { main } from './main.js';
export type { CliIo } from './io.js';
export { spawnTiers } from './spawn-tiers.js';
export type { TierProcesses } from './spawn-tiers.js';
export { renderTree } from './render-tree.js';

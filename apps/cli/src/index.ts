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

import { completionScript, isShell, SHELLS, type CompletedCommand } from '../completion.js';
import { EXIT, type CliIo } from '../io.js';

/** `tierflow completion bash|zsh|fish`: prints the shell's completion script. */
export function completionCommand(shell: string, commands: readonly CompletedCommand[], io: CliIo): number {
  if (!isShell(shell)) {
    io.stderr(`no completion for "${shell}"; the shells are: ${SHELLS.join(', ')}\n`);
    return EXIT.unusable;
  }
  io.stdout(completionScript(shell, commands));
  return EXIT.ok;
}

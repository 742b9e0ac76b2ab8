import type { Command } from 'commander';

/** What a completion script needs of one command. */
export interface CompletedCommand {
  readonly name: string;
  readonly description: string;
  readonly options: readonly { readonly long: string; readonly description: string; readonly takesValue: boolean }[];
}

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

export function isShell(name: string): name is Shell {
  return (SHELLS as readonly string[]).includes(name);
}

/** The commands and their long options, read from the program itself, so a script never lags behind it. */
export function completedCommands(cli: Command): CompletedCommand[] {
  return cli.commands.map((command) => ({
    name: command.name(),
    description: firstClause(command.description()),
    options: [
      ...command.options.flatMap((option) => (option.long ? [{ long: option.long, description: firstClause(option.description), takesValue: option.required || option.optional }] : [])),
      { long: '--help', description: 'its usage', takesValue: false },
    ],
  }));
}

/** The script for `shell`: commands first, then the options of the command typed; files otherwise. */
export function completionScript(shell: Shell, commands: readonly CompletedCommand[]): string {
  switch (shell) {
    case 'bash':
      return bash(commands);
    case 'zsh':
      return zsh(commands);
    case 'fish':
      return fish(commands);
  }
}

const TOP_OPTIONS = ['--version', '--help'];

function bash(commands: readonly CompletedCommand[]): string {
  const cases = commands.map((command) => `    ${command.name}) options="${command.options.map((option) => option.long).join(' ')}" ;;`).join('\n');
  return `# tierflow completion for bash: source <(tierflow completion bash), or save it under ~/.local/share/bash-completion/completions/tierflow
_tierflow() {
  local current=\${COMP_WORDS[COMP_CWORD]} options=""
  if [[ $COMP_CWORD -eq 1 ]]; then
    COMPREPLY=($(compgen -W "${[...commands.map((command) => command.name), ...TOP_OPTIONS].join(' ')}" -- "$current"))
    return
  fi
  case \${COMP_WORDS[1]} in
${cases}
  esac
  if [[ $current == -* ]]; then COMPREPLY=($(compgen -W "$options" -- "$current")); fi
}
complete -o default -F _tierflow tierflow
`;
}

function zsh(commands: readonly CompletedCommand[]): string {
  const described = commands.map((command) => `    ${quote(`${command.name}:${command.description.replaceAll(':', '\\:')}`)}`).join('\n');
  const cases = commands
    .map((command) => {
      const options = command.options.map((option) => quote(`${option.long}[${option.description.replaceAll(/[[\]]/g, '')}]${option.takesValue ? ':value: ' : ''}`));
      return `    ${command.name}) _arguments ${[...options, quote('*:file:_files')].join(' ')} ;;`;
    })
    .join('\n');
  return `#compdef tierflow
# tierflow completion for zsh: source <(tierflow completion zsh), or save it as _tierflow in a folder of $fpath
_tierflow() {
  local -a commands
  commands=(
${described}
  )
  if (( CURRENT == 2 )); then
    _describe 'command' commands
    _arguments ${TOP_OPTIONS.map((option) => quote(option)).join(' ')}
    return
  fi
  shift words; (( CURRENT-- ))
  case $words[1] in
${cases}
  esac
}
if [[ $funcstack[1] == _tierflow ]]; then _tierflow "$@"; else compdef _tierflow tierflow; fi
`;
}

function fish(commands: readonly CompletedCommand[]): string {
  const lines = [
    '# tierflow completion for fish: tierflow completion fish > ~/.config/fish/completions/tierflow.fish',
    ...TOP_OPTIONS.map((option) => `complete -c tierflow -n __fish_use_subcommand -l ${option.slice(2)}`),
    ...commands.map((command) => `complete -c tierflow -n __fish_use_subcommand -f -a ${command.name} -d ${quote(command.description)}`),
    ...commands.flatMap((command) =>
      command.options.map(
        (option) => `complete -c tierflow -n ${quote(`__fish_seen_subcommand_from ${command.name}`)} -l ${option.long.slice(2)}${option.takesValue ? ' -r' : ''} -d ${quote(option.description)}`,
      ),
    ),
  ];
  return `${lines.join('\n')}\n`;
}

/** Single-quoted for any of the three shells (a quote inside closes, escapes and reopens). */
function quote(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}

/** A description up to its first semicolon or parenthesis: enough beside a completion. */
function firstClause(text: string): string {
  return text.split(/[;(]/)[0]!.trim();
}

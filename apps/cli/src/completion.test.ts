import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { runMain } from './testing/run-main.js';

/** What bash offers after `words` with the script loaded, as a person pressing Tab would see it. */
function bashCompletes(script: string, words: string[]): string[] {
  const program = `${script}\nCOMP_WORDS=(${words.map((word) => `'${word}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _tierflow; printf '%s\\n' "\${COMPREPLY[@]}"`;
  return execFileSync('bash', ['--norc', '-c', program], { encoding: 'utf8' }).split('\n').filter(Boolean);
}

describe('tierflow completion bash', () => {
  it('completes the commands, then each command’s options', async () => {
    const { code, out } = await runMain(['completion', 'bash']);
    expect(code).toBe(0);
    expect(bashCompletes(out, ['tierflow', 'st'])).toEqual(['status', 'stats']);
    expect(bashCompletes(out, ['tierflow', 'stats', '--'])).toEqual(['--task-type', '--json', '--help']);
    expect(bashCompletes(out, ['tierflow', ''])).toEqual(expect.arrayContaining(['enqueue', 'watch', 'dlq', 'keys', 'completion', '--version', '--help']));
    expect(bashCompletes(out, ['tierflow', 'enqueue', 'x.json', '--'])).toEqual(expect.arrayContaining(['--wait', '--timeout-ms', '--help']));
    expect(bashCompletes(out, ['tierflow', 'runs', '--st'])).toEqual(['--status']);
  });
});

describe('tierflow completion zsh and fish', () => {
  it('name every command and its options', async () => {
    const zsh = (await runMain(['completion', 'zsh'])).out;
    const fish = (await runMain(['completion', 'fish'])).out;
    expect(zsh).toMatch(/^#compdef tierflow\n/);
    expect(zsh).toMatch(/'enqueue:validate an objective file and enqueue it/);
    expect(zsh).toContain("'--timeout-ms[");
    expect(fish).toContain("complete -c tierflow -n __fish_use_subcommand -f -a enqueue -d 'validate an objective file and enqueue it");
    expect(fish).toContain("complete -c tierflow -n '__fish_seen_subcommand_from runs' -l status -r -d ");
  });
});

describe('tierflow completion <unknown shell>', () => {
  it('exits 2 naming the shells', async () => {
    const { code, err } = await runMain(['completion', 'tcsh']);
    expect(code).toBe(2);
    expect(err).toContain('bash, zsh, fish');
  });
});

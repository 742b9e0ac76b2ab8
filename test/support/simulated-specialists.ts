import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A simulated specialist with hidden values: the chance it succeeds (one per phase, so a run can
 * make it change half-way), what it reports as its confidence, and what each attempt costs and
 * takes. Only the harness knows them; the tiers see only the outcomes.
 */
export interface SimulatedSpecialist {
  /** A JavaScript identifier too: the module exports it under its name. */
  readonly name: string;
  /** Success probability in phase 0, 1, …; the last applies to any later phase. */
  readonly success: readonly number[];
  /** The confidence it reports, whether it succeeds or not. */
  readonly confidence: number;
  readonly latencyMs: number;
  readonly costUsd: number;
  readonly tokensIn: number;
  readonly tokensOut: number;
}

/**
 * What a subtask's `task_data.simulated` tells the specialists: the phase (which success
 * probability applies) and the key of the draw. The same key draws the same number for a
 * specialist in every run, so runs that differ only in routing meet the same luck.
 */
export interface SimulatedDraw {
  readonly phase: number;
  readonly key: string;
}

/** A project directory with the specialists' module and a project file, and how to remove it. */
export interface SimulatedProject {
  readonly dir: string;
  /** The project file, for TIERFLOW_CONFIG. */
  readonly configFile: string;
  remove(): Promise<void>;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The module the Fleet loads (`kind: 'module'`, one export per specialist). A success is a
 * SHA-256 of `seed:key:name` read as a number in [0, 1) below the phase's probability: seeded and
 * deterministic, yet independent between specialists and keys. A subtask without a draw uses its
 * root id as the key, phase 0.
 */
export function simulatedModule(seed: number, specialists: readonly SimulatedSpecialist[]): string {
  for (const { name } of specialists) if (!IDENTIFIER.test(name)) throw new RangeError(`a simulated specialist's name must be an identifier, got ${name}`);
  const exports = specialists.map((specialist) => `export const ${specialist.name} = simulated(${JSON.stringify(specialist)});`);
  return `import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';

const SEED = ${JSON.stringify(seed)};

function draw(key) {
  return createHash('sha256').update(SEED + ':' + key).digest().readUInt32BE(0) / 2 ** 32;
}

function drawOf(input) {
  const given = input.taskData.simulated;
  const phase = typeof given?.phase === 'number' ? given.phase : 0;
  const key = typeof given?.key === 'string' ? given.key : input.rootId;
  return { phase, key };
}

function simulated(hidden) {
  return {
    name: hidden.name,
    version: '1.0.0',
    run: async (input) => {
      const { phase, key } = drawOf(input);
      const chance = hidden.success[Math.min(phase, hidden.success.length - 1)];
      const succeeded = draw(key + ':' + hidden.name) < chance;
      if (hidden.latencyMs > 0) await sleep(hidden.latencyMs, undefined, { signal: input.signal });
      const usage = { tokens_in: hidden.tokensIn, tokens_out: hidden.tokensOut, cost_usd: hidden.costUsd, llm_calls: 1 };
      const call = await input.usage.reserve();
      await call.settle(usage);
      const resources_used = { usage };
      if (succeeded) return { status: 'success', summary: hidden.name + ' did it', confidence: hidden.confidence, artifacts: [{ artifact_type: 'text', content: hidden.name }], resources_used };
      return { status: 'failed', summary: hidden.name + ' failed', confidence: hidden.confidence, error_type: 'simulated_failure', recoverable: false, resources_used };
    },
  };
}

${exports.join('\n')}
`;
}

/**
 * Writes a project to a fresh temporary directory: `simulated.mjs` with the specialists, and
 * `tierflow.config.json` declaring them (`kind: 'module'`) with `config`'s other sections.
 */
export async function writeSimulatedProject(seed: number, specialists: readonly SimulatedSpecialist[], config: Readonly<Record<string, unknown>>): Promise<SimulatedProject> {
  const dir = await mkdtemp(join(tmpdir(), 'tierflow-simulated-'));
  await writeFile(join(dir, 'simulated.mjs'), simulatedModule(seed, specialists));
  const declared = specialists.map(({ name }) => ({ kind: 'module', module: './simulated.mjs', export: name }));
  const configFile = join(dir, 'tierflow.config.json');
  await writeFile(configFile, `${JSON.stringify({ ...config, specialists: declared }, null, 2)}\n`);
  return { dir, configFile, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** The number in [0, 1) the module draws for `specialist` under `key`: below its chance, it succeeds. */
export function simulatedDraw(seed: number, key: string, specialist: string): number {
  return createHash('sha256').update(`${seed}:${key}:${specialist}`).digest().readUInt32BE(0) / 2 ** 32;
}

/** The subtask field that carries a {@link SimulatedDraw}. */
export function simulatedTaskData(drawn: SimulatedDraw): Record<string, unknown> {
  return { simulated: drawn };
}

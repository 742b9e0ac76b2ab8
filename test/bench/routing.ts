// Routing by measured results (issue 42): simulated module specialists with hidden success
// probabilities, costs and latencies serve one task type; several hundred roots go through the
// four tiers as worker processes, paced at a fixed rate with a few in flight, so a half-life set
// in roots decays the history the same on any machine that keeps the pace. Per mode (`fixed`
// with the best candidate not first, `uniform` by a random hint per root, `learned`): the share of
// picks that go to the best candidate per window, and the cumulative regret against an oracle
// that knows the hidden values; then `learned` again with the best specialist degrading half-way.
// The same bandit is also run in this process over many seeds (routing-model.ts), as what to
// expect. Targets: after 200 roots ≥ 90 % of picks to the best; learned's cumulative regret ≤ a
// fifth of uniform's; after the degradation, the router moves to the new best within 100 roots.
//   npm run bench:routing -- [--roots 400] [--interval-ms 300] [--half-life-roots 80] [--exploration 0.2]
//     [--in-flight 8] [--repeats 1] [--modes fixed,uniform,learned,degrading] [--model-seeds 200] [--seed 42]
import { parseArgs } from 'node:util';
import { learningRecordsOf } from '@tierflow/core';
import type { OutcomeMessage } from '@tierflow/protocol';
import type { ObjectiveFile } from '@tierflow/runtime';
import { startDeployment, type Deployment } from '../support/deployment.js';
import { treeNodes } from '../support/runs.js';
import { simulatedTaskData, writeSimulatedProject, type SimulatedSpecialist } from '../support/simulated-specialists.js';
import { bestOf, bestShareBetween, cumulativeRegret, type HiddenValues, missedByReason, type PhaseOf, pickWindows, type RoutingPick, rootsToMove } from './routing-figures.js';
import { modelPicks, quantile } from './routing-model.js';

const { values: args } = parseArgs({
  options: {
    roots: { type: 'string', default: '400' },
    'interval-ms': { type: 'string', default: '300' },
    'half-life-roots': { type: 'string', default: '80' },
    exploration: { type: 'string', default: '0.2' },
    'in-flight': { type: 'string', default: '8' },
    repeats: { type: 'string', default: '1' },
    modes: { type: 'string', default: 'fixed,uniform,learned,degrading' },
    'model-seeds': { type: 'string', default: '200' },
    seed: { type: 'string', default: '42' },
  },
});
const ROOTS = Number(args.roots);
const INTERVAL_MS = Number(args['interval-ms']);
const HALF_LIFE_ROOTS = Number(args['half-life-roots']);
const EXPLORATION = Number(args.exploration);
const IN_FLIGHT = Number(args['in-flight']);
const REPEATS = Number(args.repeats);
const MODES = args.modes.split(',').filter((mode) => mode !== '');
const MODEL_SEEDS = Number(args['model-seeds']);
const SEED = Number(args.seed);
const TASK_TYPE = 'bench';
/** Where the figures are cut: the targets speak of "after 200 roots" and "within 100 roots". */
const SETTLED_AFTER = 200;
const MOVE_WITHIN = 100;
const WINDOW = 50;
/** The move counts when the new best gets half the picks of this many roots in a row. */
const MOVE_WINDOW = 25;

// The hidden values. The table puts bravo first; charlie is the best until it degrades half-way
// in the degrading run, when bravo becomes the best. Evenly spread chances, 0.3 to 0.9.
const SPECIALISTS: readonly SimulatedSpecialist[] = [
  { name: 'bravo', success: [0.7], confidence: 0.8, latencyMs: 20, costUsd: 0.004, tokensIn: 400, tokensOut: 200 },
  { name: 'alpha', success: [0.5], confidence: 0.8, latencyMs: 10, costUsd: 0.002, tokensIn: 300, tokensOut: 150 },
  { name: 'charlie', success: [0.9, 0.3], confidence: 0.8, latencyMs: 40, costUsd: 0.01, tokensIn: 800, tokensOut: 400 },
  { name: 'delta', success: [0.3], confidence: 0.8, latencyMs: 5, costUsd: 0.001, tokensIn: 200, tokensOut: 100 },
];
const TABLE = SPECIALISTS.map((specialist) => specialist.name);

type Mode = 'fixed' | 'uniform' | 'learned';
interface RunSpec {
  readonly label: string;
  readonly mode: Mode;
  readonly degrading: boolean;
  readonly repeat: number;
}

function valuesIn(phase: number): HiddenValues {
  return Object.fromEntries(SPECIALISTS.map((specialist) => [specialist.name, specialist.success[Math.min(phase, specialist.success.length - 1)]!]));
}
const phaseOfRoot = (degrading: boolean, index: number): number => (degrading && index >= ROOTS / 2 ? 1 : 0);
const phaseOf =
  (degrading: boolean): PhaseOf =>
  (index) =>
    valuesIn(phaseOfRoot(degrading, index));

/** A random hint per root for the uniform baseline, the same sequence in every run. */
function uniformHints(): string[] {
  let state = SEED >>> 0;
  return Array.from({ length: ROOTS }, () => {
    // mulberry32
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    const u = ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
    return TABLE[Math.floor(u * TABLE.length)]!;
  });
}

function objective(spec: RunSpec, index: number, hint: string | undefined): ObjectiveFile {
  const subtask = {
    objective: `serve root ${index}`,
    task_type: TASK_TYPE,
    task_data: simulatedTaskData({ phase: phaseOfRoot(spec.degrading, index), key: `root-${index}` }),
    ...(hint === undefined ? {} : { specialist_hint: hint }),
  };
  return { objective: `bench routing ${index}`, task_data: { plan: { strategy: 'all_success', subtasks: [subtask] } } };
}

/** The specialist a root's routing chose: its first leaf attempt's learning record, else the first Fleet node of its tree. */
async function pickOf(deployment: Deployment, rootId: string, index: number, outcome: OutcomeMessage): Promise<RoutingPick | null> {
  const [record] = learningRecordsOf(outcome.payload).records;
  if (record) return { index, chosen: record.specialist, reason: record.routing?.reason ?? null };
  const tree = await deployment.client.tree(rootId);
  const leaves = tree ? treeNodes(tree, 'SPECIALIZED_FLEET').filter((node) => node.specialist !== null) : [];
  leaves.sort((a, b) => (a.started_at ?? '').localeCompare(b.started_at ?? ''));
  const leaf = leaves[0];
  return leaf ? { index, chosen: leaf.specialist!, reason: null } : null;
}

interface RunResult {
  readonly spec: RunSpec;
  readonly picks: RoutingPick[];
  readonly missing: number;
  readonly fromTree: number;
  /** Mean time between root launches, against INTERVAL_MS. */
  readonly meanIntervalMs: number;
  /** Roots launched more than one interval behind the schedule. */
  readonly late: number;
  /** Mean number of other roots in flight when a root was launched. */
  readonly meanInFlight: number;
  readonly seconds: number;
}

async function run(spec: RunSpec): Promise<RunResult> {
  const halfLifeMs = HALF_LIFE_ROOTS * INTERVAL_MS;
  const mode = spec.mode === 'learned' ? 'learned' : 'fixed';
  const project = await writeSimulatedProject(SEED, SPECIALISTS, {
    routing: { mode, exploration: EXPLORATION, [TASK_TYPE]: TABLE },
    history: { halfLife: halfLifeMs },
    // One decision per root: no revision of a failed round (the specialists' failures are not recoverable either).
    architect: { maxRevisions: 0 },
  });
  // The cascade check off: calibration makes a poor specialist's confidence honest, and the check
  // would then hold its work for a person's review; routing is what this measures.
  const env = { TIERFLOW_CONFIG: project.configFile, TIERFLOW_HISTORY_HALF_LIFE_MS: String(halfLifeMs), TIERFLOW_CASCADE_CHECK: 'off' };
  const deployment = await startDeployment(`bench-routing-${spec.mode}`, env, { stopGraceMs: 30_000 });
  const hints = spec.mode === 'uniform' ? uniformHints() : [];
  const picks: RoutingPick[] = [];
  let missing = 0;
  let fromTree = 0;
  let late = 0;
  let inFlightSum = 0;
  const launches: number[] = [];
  const flying = new Set<Promise<void>>();
  const started = performance.now();
  try {
    for (let index = 0; index < ROOTS; index++) {
      const due = started + index * INTERVAL_MS;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      while (flying.size >= IN_FLIGHT) await Promise.race(flying);
      const now = performance.now();
      if (now - due > INTERVAL_MS) late++;
      launches.push(now);
      inFlightSum += flying.size;
      const rootId = `routing-${spec.mode}${spec.degrading ? '-degrading' : ''}-${spec.repeat}-${index}`;
      const root = (async () => {
        await deployment.client.enqueue(objective(spec, index, hints[index]), { rootId });
        const outcome = await deployment.client.waitForResult(rootId, { timeoutMs: 120_000 }).catch((error: unknown) => {
          console.error(`  ${rootId}: ${error instanceof Error ? error.message : String(error)}`);
          return null;
        });
        const pick = outcome && (await pickOf(deployment, rootId, index, outcome));
        if (!pick) missing++;
        else {
          if (pick.reason === null && spec.mode !== 'uniform') fromTree++;
          picks.push(pick);
        }
      })();
      const tracked: Promise<void> = root.finally(() => flying.delete(tracked));
      flying.add(tracked);
    }
    await Promise.all(flying);
  } catch (error) {
    console.error(deployment.logs.slice(-40).join('\n'));
    throw error;
  } finally {
    await deployment.stop();
    await project.remove();
  }
  picks.sort((a, b) => a.index - b.index);
  const meanIntervalMs = launches.length > 1 ? (launches.at(-1)! - launches[0]!) / (launches.length - 1) : INTERVAL_MS;
  return { spec, picks, missing, fromTree, meanIntervalMs, late, meanInFlight: inFlightSum / ROOTS, seconds: (performance.now() - started) / 1000 };
}

const percent = (share: number | null): string => (share === null ? '—' : `${(share * 100).toFixed(0)} %`);

function report(result: RunResult): void {
  const { spec, picks } = result;
  const phases = phaseOf(spec.degrading);
  const windows = pickWindows(picks, phases, ROOTS, WINDOW);
  console.log(
    `\n${spec.label}${REPEATS > 1 ? ` #${spec.repeat + 1}` : ''}: ${picks.length} picks (${result.missing} missing${result.fromTree > 0 ? `, ${result.fromTree} from the run tree` : ''}), ` +
      `${result.seconds.toFixed(0)} s; a root every ${result.meanIntervalMs.toFixed(0)} ms (set ${INTERVAL_MS}), ${result.late} late, ${result.meanInFlight.toFixed(1)} others in flight at launch`,
  );
  console.log(`  share to the best, per ${WINDOW} roots: ${windows.map((window) => percent(window.bestShare)).join(' · ')}`);
  console.log(`  regret per window:               ${windows.map((window) => window.regret.toFixed(1)).join(' · ')}`);
  const counts = Object.fromEntries(TABLE.map((name) => [name, picks.filter((pick) => pick.chosen === name).length]));
  console.log(`  picks: ${TABLE.map((name) => `${name} ${counts[name]}`).join(', ')}; cumulative regret ${cumulativeRegret(picks, phases).toFixed(1)}`);
  if (spec.mode === 'learned') {
    const missed = spec.degrading ? missedByReason(picks, phases, 0, ROOTS - 1) : missedByReason(picks, phases, SETTLED_AFTER, ROOTS - 1);
    console.log(`  picks not to the best ${spec.degrading ? '' : `after ${SETTLED_AFTER} roots `}by reason: ${JSON.stringify(missed)}`);
  }
}

function stationaryVerdict(learned: RunResult, uniform: RunResult | undefined): { share: number | null; regretRatio: number | null } {
  const phases = phaseOf(false);
  const share = bestShareBetween(learned.picks, phases, SETTLED_AFTER, ROOTS - 1);
  const regretRatio = uniform ? cumulativeRegret(learned.picks, phases) / cumulativeRegret(uniform.picks, phases) : null;
  return { share, regretRatio };
}

function moveOf(result: RunResult): number | null {
  const newBest = bestOf(valuesIn(1));
  return rootsToMove(result.picks, ROOTS / 2, newBest, MOVE_WINDOW);
}

function check(label: string, ok: boolean | null, detail: string): void {
  console.log(`  ${ok === null ? 'n/a ' : ok ? 'MET ' : 'MISS'}  ${label}: ${detail}`);
}

/** What the same bandit gives in this process over many seeds, with the lag the real runs measured. */
function modelExpectation(lagRoots: number): void {
  const uniformRegret = ROOTS * Object.values(valuesIn(0)).reduce((sum, chance, _, all) => sum + (Math.max(...all) - chance) / all.length, 0);
  const shares: number[] = [];
  const ratios: number[] = [];
  const moves: number[] = [];
  for (let seed = 1; seed <= MODEL_SEEDS; seed++) {
    const options = { roots: ROOTS, table: TABLE, halfLifeRoots: HALF_LIFE_ROOTS, exploration: EXPLORATION, lagRoots, seed };
    const steady = modelPicks({ ...options, phaseOf: phaseOf(false) });
    shares.push(bestShareBetween(steady, phaseOf(false), SETTLED_AFTER, ROOTS - 1) ?? 0);
    ratios.push(cumulativeRegret(steady, phaseOf(false)) / uniformRegret);
    const degrading = modelPicks({ ...options, phaseOf: phaseOf(true) });
    moves.push(rootsToMove(degrading, ROOTS / 2, bestOf(valuesIn(1)), MOVE_WINDOW) ?? Infinity);
  }
  const met = (values: number[], ok: (value: number) => boolean): string => `${((values.filter(ok).length / values.length) * 100).toFixed(0)} % of seeds meet it`;
  const q = (values: number[], digits = 2): string =>
    [0.1, 0.5, 0.9]
      .map((at) => quantile(values, at))
      .map((value) => (value === null || !Number.isFinite(value) ? 'never' : value.toFixed(digits)))
      .join(' / ');
  console.log(`\nThe same bandit in this process, ${MODEL_SEEDS} seeds, records ${lagRoots} roots late (p10 / median / p90):`);
  console.log(`  share to the best after ${SETTLED_AFTER} roots: ${q(shares)}; ${met(shares, (share) => share >= 0.9)}`);
  console.log(`  learned's regret / uniform's (expected):   ${q(ratios)}; ${met(ratios, (ratio) => ratio <= 0.2)}`);
  console.log(`  roots to move after the degradation:       ${q(moves, 0)}; ${met(moves, (move) => move <= MOVE_WITHIN)}`);
}

console.log(
  `bench:routing: ${ROOTS} roots per run, one every ${INTERVAL_MS} ms, at most ${IN_FLIGHT} in flight; half-life ${HALF_LIFE_ROOTS} roots ` +
    `(${HALF_LIFE_ROOTS * INTERVAL_MS} ms); exploration ${EXPLORATION}; seed ${SEED}`,
);
console.log(`hidden values: ${SPECIALISTS.map((s) => `${s.name} ${s.success.join('→')} (${s.latencyMs} ms, $${s.costUsd})`).join(', ')}; table ${TABLE.join(', ')}`);

const specs: RunSpec[] = [];
for (let repeat = 0; repeat < REPEATS; repeat++) {
  for (const mode of MODES) {
    if (mode === 'degrading') specs.push({ label: 'learned, degrading', mode: 'learned', degrading: true, repeat });
    else if (mode === 'fixed' || mode === 'uniform' || mode === 'learned') {
      if (repeat === 0 || mode === 'learned') specs.push({ label: mode, mode, degrading: false, repeat });
    } else throw new Error(`unknown mode ${mode}`);
  }
}
const results: RunResult[] = [];
for (const spec of specs) {
  const result = await run(spec);
  report(result);
  results.push(result);
}

console.log(`\nTargets:`);
const uniform = results.find((result) => result.spec.mode === 'uniform');
for (const learned of results.filter((result) => result.spec.mode === 'learned' && !result.spec.degrading)) {
  const { share, regretRatio } = stationaryVerdict(learned, uniform);
  const tag = REPEATS > 1 ? ` (#${learned.spec.repeat + 1})` : '';
  check(`after ${SETTLED_AFTER} roots, ≥ 90 % of picks to the best${tag}`, share === null ? null : share >= 0.9, percent(share));
  check(
    `learned's cumulative regret ≤ 1/5 of uniform's${tag}`,
    regretRatio === null ? null : regretRatio <= 0.2,
    regretRatio === null
      ? 'no uniform run'
      : `${regretRatio.toFixed(3)} of it (${cumulativeRegret(learned.picks, phaseOf(false)).toFixed(1)} against ${cumulativeRegret(uniform!.picks, phaseOf(false)).toFixed(1)})`,
  );
}
for (const degrading of results.filter((result) => result.spec.degrading)) {
  const move = moveOf(degrading);
  const after = move === null ? null : bestShareBetween(degrading.picks, phaseOf(true), ROOTS / 2 + move, ROOTS - 1);
  const tag = REPEATS > 1 ? ` (#${degrading.spec.repeat + 1})` : '';
  check(
    `after the degradation, the move to ${bestOf(valuesIn(1))} within ${MOVE_WITHIN} roots${tag}`,
    move === null ? false : move <= MOVE_WITHIN,
    move === null ? 'never' : `${move} roots (half of ${MOVE_WINDOW} in a row), then ${percent(after)} of the picks to it`,
  );
}
const measured = results.filter((result) => result.spec.mode === 'learned');
const lag = measured.length > 0 ? Math.round(measured.reduce((sum, result) => sum + result.meanInFlight, 0) / measured.length) : 1;
if (MODEL_SEEDS > 0) modelExpectation(lag);

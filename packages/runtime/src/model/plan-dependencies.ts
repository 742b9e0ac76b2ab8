import { aggregationStrategySchema, type AggregationStrategy } from '@tierflow/protocol';

// The dependency rules of a plan (docs/protocol.md#subtask-dependencies), kept apart from the plan
// schema that applies them so the tiers can share the graph helpers. Structural types only: the
// schema imports this module.

/** What these rules read of a subtask. */
export interface DependentSubtask {
  /** 1-based indices of the subtasks of the same plan whose work this one takes as input. */
  readonly depends_on?: readonly number[] | undefined;
}

/** What these rules read of a plan. */
export interface DependentPlan {
  readonly strategy: AggregationStrategy;
  readonly subtasks: readonly DependentSubtask[];
}

/** One problem with a plan's dependencies: where (zod's path within the plan), which rule, and what is wrong. */
export interface DependencyProblem {
  readonly path: readonly (string | number)[];
  readonly rule: 'dependency_out_of_range' | 'dependency_on_itself' | 'dependency_repeated' | 'dependency_cycle' | 'dependency_in_race';
  readonly message: string;
}

/** A race has nothing to wait on: its first success cancels the rest. */
const RACE: AggregationStrategy = 'first_success';

/** The strategies that take dependencies, for the message that refuses them elsewhere. */
const STRATEGIES_WITH_DEPENDENCIES: readonly AggregationStrategy[] = aggregationStrategySchema.options.filter((strategy) => strategy !== RACE);

/**
 * Every problem with a plan's `depends_on` lists: an index out of range, a subtask depending on
 * itself, an index given twice, a cycle (naming its subtasks), and any dependency under
 * `first_success`. Pure.
 */
export function dependencyProblems(plan: DependentPlan): DependencyProblem[] {
  const total = plan.subtasks.length;
  const problems: DependencyProblem[] = [];
  plan.subtasks.forEach((subtask, i) => {
    const dependsOn = subtask.depends_on ?? [];
    if (plan.strategy === RACE && dependsOn.length > 0) {
      problems.push({
        path: ['subtasks', i, 'depends_on'],
        rule: 'dependency_in_race',
        message: `first_success races its subtasks, so none can wait for another; dependencies are taken under ${STRATEGIES_WITH_DEPENDENCIES.join(', ')}`,
      });
      return;
    }
    dependsOn.forEach((dependency, j) => {
      const path = ['subtasks', i, 'depends_on', j];
      if (dependency < 1 || dependency > total) {
        problems.push({ path, rule: 'dependency_out_of_range', message: `subtask ${dependency} does not exist: the plan has subtasks 1 to ${total}` });
      } else if (dependency === i + 1) {
        problems.push({ path, rule: 'dependency_on_itself', message: `subtask ${i + 1} cannot depend on itself` });
      } else if (dependsOn.indexOf(dependency) !== j) {
        problems.push({ path, rule: 'dependency_repeated', message: `subtask ${dependency} is listed more than once` });
      }
    });
  });
  return plan.strategy === RACE ? problems : [...problems, ...cycleProblems(plan.subtasks)];
}

/** The valid, distinct dependencies of each subtask (1-based), in `depends_on` order. */
function dependencyLists(subtasks: readonly DependentSubtask[]): number[][] {
  return subtasks.map((subtask, i) => [...new Set(subtask.depends_on ?? [])].filter((dependency) => dependency >= 1 && dependency <= subtasks.length && dependency !== i + 1));
}

/** One problem per cycle a depth-first walk finds: every cyclic part of the graph yields at least one. */
function cycleProblems(subtasks: readonly DependentSubtask[]): DependencyProblem[] {
  const lists = dependencyLists(subtasks);
  const state = new Map<number, 'open' | 'done'>();
  const stack: number[] = [];
  const problems: DependencyProblem[] = [];
  const seen = new Set<string>();
  const visit = (index: number): void => {
    state.set(index, 'open');
    stack.push(index);
    for (const dependency of lists[index - 1] ?? []) {
      if (state.get(dependency) === 'open') {
        const cycle = stack.slice(stack.indexOf(dependency));
        const key = [...cycle].sort((a, b) => a - b).join(',');
        if (!seen.has(key)) {
          seen.add(key);
          problems.push(cycleProblem(cycle, subtasks));
        }
      } else if (!state.has(dependency)) {
        visit(dependency);
      }
    }
    stack.pop();
    state.set(index, 'done');
  };
  for (let index = 1; index <= subtasks.length; index++) if (!state.has(index)) visit(index);
  return problems;
}

/** A cycle `[a, b, c]` (a depends on b, b on c, c on a), told from its lowest subtask. */
function cycleProblem(cycle: readonly number[], subtasks: readonly DependentSubtask[]): DependencyProblem {
  const start = cycle.indexOf(Math.min(...cycle));
  const ordered = [...cycle.slice(start), ...cycle.slice(0, start)];
  const [first] = ordered as [number, ...number[]];
  const next = (k: number): number => ordered[(k + 1) % ordered.length]!;
  const links = ordered.map((index, k) => (k === 0 ? `${index} depends on ${next(k)}` : `${index} on ${next(k)}`)).join(', ');
  return {
    path: ['subtasks', first - 1, 'depends_on', (subtasks[first - 1]?.depends_on ?? []).indexOf(next(0))],
    rule: 'dependency_cycle',
    message: `subtasks ${listOf(ordered)} wait for each other in a cycle (${links}), so none of them could start`,
  };
}

function listOf(indices: readonly number[]): string {
  return indices.length < 2 ? indices.join('') : `${indices.slice(0, -1).join(', ')} and ${indices.at(-1)}`;
}

/** The dependency edges of a plan, `[from, to]`: the work of subtask `from` goes to subtask `to`. Pure. */
export function dependencyEdges(plan: Pick<DependentPlan, 'subtasks'>): [number, number][] {
  return plan.subtasks.flatMap((subtask, i) => (subtask.depends_on ?? []).map((dependency): [number, number] => [dependency, i + 1]));
}

/**
 * `indices` with every subtask they depend on, directly or not: what must run again for them to
 * get their input. Ascending, each once; indices outside the plan are kept as given. Pure.
 */
export function withDependencies(plan: Pick<DependentPlan, 'subtasks'>, indices: Iterable<number>): number[] {
  const closed = new Set<number>();
  const pending = [...indices];
  for (let index = pending.pop(); index !== undefined; index = pending.pop()) {
    if (closed.has(index)) continue;
    closed.add(index);
    pending.push(...(plan.subtasks[index - 1]?.depends_on ?? []));
  }
  return [...closed].sort((a, b) => a - b);
}

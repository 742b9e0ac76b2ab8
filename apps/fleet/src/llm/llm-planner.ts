import type { ModelPrice } from '@tierflow/core';
import { aggregationStrategySchema, isTierflowError, TierflowError } from '@tierflow/protocol';
import { ACCEPTANCE_CRITERIA_KEY, checkedPlan, resolveModelLimit, type ModelLimit, type ModelLimitOptions, type PlanRequest, type Planner, type RevisionContext } from '@tierflow/runtime/policy';
import { type Plan } from '@tierflow/runtime';
import type OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { ResponseFormatJSONSchema } from 'openai/resources/shared';
import { chatCompletion, openAiClient, promptText, type LlmEndpoint } from './llm-call.js';
import { checkContextSize } from './context-limit.js';

/** Options of {@link llmPlanner}. */
export interface LlmPlannerOptions extends LlmEndpoint {
  readonly model: string;
  readonly systemPrompt?: string;
  /** The specialists a subtask may name in `specialist_hint`; the model is told them, and held to them. */
  readonly specialists?: readonly string[];
  /** What the model costs per million tokens, for the run's budget. */
  readonly price?: ModelPrice;
  /** The most tokens a plan may have, sent as `max_tokens` and reserved against the run's budget (1,024 reserved when left out). */
  readonly maxTokens?: number;
  /** The model's limits, shared with every other process that calls it (docs/operations.md#model-limits). */
  readonly limits?: ModelLimitOptions;
}

const DEFAULT_SYSTEM_PROMPT =
  'You plan work for a team of agents. Split the objective into a few subtasks that together achieve it, ' +
  'and choose how their results combine: "all_success" (every subtask is needed), "any_success" (one good result is enough), ' +
  '"majority" (most must agree) or "first_success" (race alternatives; the first good one wins). ' +
  'Subtasks run in parallel unless one needs the work of others: then list those in its "depends_on", by their 1-based position ' +
  '(a review after a draft: the review depends on the draft); it starts once they have succeeded, and is given their work. ' +
  'No cycles, and no "depends_on" under "first_success". ' +
  'Answer with one JSON object: {"strategy": …, "subtasks": [{"objective": …, "task_type": …, "specialist_hint": …, "task_data": {…}, "depends_on": […]}]}.';

/**
 * A planner (the Architect's `planner`, the Dispatcher's `decomposer`) that asks a model for the
 * plan as JSON. A plan that does not parse or does not fit the plan schema is sent back once with
 * the problems; a second bad plan fails the delegation with `invalid_plan`.
 *
 * ```ts
 * startArchitectWorker({ runtime, planner: llmPlanner({ model: 'planner-lora' }) });
 * ```
 */
export function llmPlanner(options: LlmPlannerOptions): Planner {
  const client = openAiClient(options);
  const modelLimit = resolveModelLimit(options.limits);
  return async (request) => {
    const messages = planMessages(request, options);
    const first = await ask(client, options, modelLimit, messages, request);
    try {
      return planIn(first, options.specialists);
    } catch (error) {
      if (!isTierflowError(error) || error.code !== 'invalid_plan') throw error;
      request.log.warn('the model proposed an invalid plan; asking once more', { model: options.model, problem: error.message });
      messages.push({ role: 'assistant', content: first }, { role: 'user', content: `That plan is not valid: ${error.message}. Answer again with the corrected plan only.` });
      return planIn(await ask(client, options, modelLimit, messages, request), options.specialists);
    }
  };
}

async function ask(client: OpenAI, options: LlmPlannerOptions, modelLimit: ModelLimit, messages: ChatCompletionMessageParam[], request: PlanRequest): Promise<string> {
  // Planning calls are reserved and settled against the run's budget like any model call.
  const limits = {
    signal: request.signal,
    deadline: request.deadline,
    usage: request.usage,
    price: options.price ?? null,
    calls: request.calls,
    purpose: 'planner',
    provider: options.provider,
    modelLimit,
  } as const;
  const maxTokens = options.maxTokens === undefined ? {} : { max_tokens: options.maxTokens };
  const body = { model: options.model, messages, response_format: planFormat(options.specialists), ...maxTokens };
  // As a specialist's: a prompt over the delegation's limit is refused before the model is called.
  checkContextSize(promptText(body), request.maxContextTokens, `planner ${options.model}`);
  const reply = await chatCompletion(client, body, limits);
  return reply.content;
}

/** The chat messages asking for a plan: the system prompt, then the delegation, and on a revision the failure in hand. */
export function planMessages(request: PlanRequest, options: Pick<LlmPlannerOptions, 'systemPrompt' | 'specialists'>): ChatCompletionMessageParam[] {
  const parts = [`Objective: ${request.objective}`];
  if (request.constraints.length > 0) parts.push(`Constraints:\n${request.constraints.map((constraint) => `- ${constraint}`).join('\n')}`);
  if (request.deadlineHint) parts.push(`Due: ${request.deadlineHint}`);
  if (request.acceptanceCriteria && request.acceptanceCriteria.length > 0) parts.push(`Acceptance criteria:\n${request.acceptanceCriteria.map((criterion) => `- ${criterion}`).join('\n')}`);
  // On a revision the plan that ran is shown with the failure, not as task data to follow again;
  // the acceptance criteria are shown above, not twice.
  const { [ACCEPTANCE_CRITERIA_KEY]: _criteria, ...given } = request.taskData;
  const { plan: _plan, ...taskData } = given;
  const shown = request.revision ? taskData : given;
  if (Object.keys(shown).length > 0) parts.push(`Task data (JSON):\n${JSON.stringify(shown)}`);
  if (options.specialists && options.specialists.length > 0) parts.push(`Specialists you may name in specialist_hint: ${options.specialists.join(', ')}`);
  if (request.revision) parts.push(revisionText(request.revision));
  return [
    { role: 'system', content: options.systemPrompt ?? DEFAULT_SYSTEM_PROMPT },
    { role: 'user', content: parts.join('\n\n') },
  ];
}

/**
 * The failure in hand, for a revision's prompt: the plan that ran, each failed subtask with its
 * error, specialists and attempts, what succeeded (kept), and what the new plan is for. Pure.
 */
export function revisionText(revision: RevisionContext): string {
  const lines = [`This is revision ${revision.round}: the last attempt fell short.`];
  if (revision.plan) lines.push(`The plan that ran (JSON): ${JSON.stringify(revision.plan)}`);
  lines.push('Failed:');
  for (const failure of revision.failed) {
    const type = failure.task_type === null ? '' : ` (task type ${failure.task_type})`;
    const by = failure.tried.length > 0 ? failure.tried.join(', ') : failure.specialist || 'no specialist';
    const times = failure.attempts === 1 ? 'attempt' : 'attempts';
    lines.push(`- subtask ${failure.subtask_index}${type}: ${JSON.stringify(failure.description)}; by ${by}, ${failure.attempts} ${times}; ${failure.error_type ?? 'failed'}: ${failure.summary}`);
  }
  if (revision.succeeded.length > 0) {
    lines.push('Succeeded (their work is kept; do not plan it again):');
    for (const success of revision.succeeded) lines.push(`- subtask ${success.subtask_index} by ${success.specialist || 'no specialist'}: ${success.summary}`);
  }
  lines.push(
    `Plan only the work of subtask${revision.redo.length === 1 ? '' : 's'} ${revision.redo.join(', ')} again. ` +
      'You may change the strategy, split or merge the work, and name other specialists: prefer ones that have not failed it.',
  );
  return lines.join('\n');
}

/** Structured output: the part of the plan schema a model writes. */
function planFormat(specialists: readonly string[] | undefined): ResponseFormatJSONSchema {
  const hint = specialists && specialists.length > 0 ? { type: 'string', enum: [...specialists] } : { type: 'string' };
  return {
    type: 'json_schema',
    json_schema: {
      name: 'plan',
      schema: {
        type: 'object',
        properties: {
          strategy: { type: 'string', enum: [...aggregationStrategySchema.options] },
          subtasks: {
            type: 'array',
            minItems: 1,
            items: {
              type: 'object',
              properties: {
                objective: { type: 'string' },
                task_type: { type: 'string' },
                specialist_hint: hint,
                task_data: { type: 'object' },
                depends_on: { type: 'array', items: { type: 'integer', minimum: 1 } },
              },
              required: ['objective'],
            },
          },
        },
        required: ['strategy', 'subtasks'],
      },
    },
  };
}

/**
 * The plan in a model's answer. Pure.
 *
 * @throws TierflowError (permanent, code `invalid_plan`) when it is not JSON, not a plan, or names a specialist not offered.
 */
export function planIn(text: string, specialists?: readonly string[]): Plan {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw TierflowError.permanent(`invalid plan: the answer is not JSON (${JSON.stringify(text.slice(0, 80))})`, { code: 'invalid_plan' });
  }
  const plan = checkedPlan(value, '$plan');
  if (specialists && specialists.length > 0) {
    const unknown = plan.subtasks.flatMap((subtask, i) =>
      subtask.specialist_hint && !specialists.includes(subtask.specialist_hint) ? [`$plan.subtasks[${i}].specialist_hint: no specialist "${subtask.specialist_hint}"`] : [],
    );
    if (unknown.length > 0) throw TierflowError.permanent(`invalid plan: ${unknown.join('; ')}`, { code: 'invalid_plan' });
  }
  return plan;
}

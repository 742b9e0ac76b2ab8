import { TierflowError } from '@tierflow/protocol';
import { z } from 'zod';

export const CODE_RUNNER_LANGUAGES = ['javascript', 'python'] as const;
export type CodeRunnerLanguage = (typeof CODE_RUNNER_LANGUAGES)[number];

/** The most test cases one subtask may carry. */
export const MAX_TEST_CASES = 100;
/** The most characters of source code one subtask may carry. */
export const MAX_CODE_CHARS = 200_000;

const language = z.enum(CODE_RUNNER_LANGUAGES);
const code = z.string().min(1).max(MAX_CODE_CHARS);
// An identifier both languages accept, so the harness can name it in generated code safely.
const entry = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, { message: 'must be a function name: letters, digits and "_", not starting with a digit' });

const testCase = z.strictObject({
  args: z.array(z.json()),
  expected: z.json(),
  name: z.string().min(1).max(200).optional(),
});

/** Candidate code handed over by another step, e.g. what a model wrote: `task_data.candidate`. */
const candidate = z.strictObject({ code, language: language.optional(), entry: entry.optional() });

/**
 * What the code runner reads from `task_data`. Other fields are left alone: the delegation may
 * carry context for other tiers. `code`, `language` and `entry` win over those of `candidate`.
 */
export const codeRunnerTaskDataSchema = z
  .object({
    language: language.optional(),
    code: code.optional(),
    entry: entry.optional(),
    tests: z.array(testCase).min(1).max(MAX_TEST_CASES),
    candidate: candidate.optional(),
  })
  .transform((data, context) => {
    const source = data.code ?? data.candidate?.code;
    const name = data.entry ?? data.candidate?.entry;
    if (source === undefined) context.addIssue({ code: 'custom', path: ['code'], message: 'required: the source to run, here or in task_data.candidate.code' });
    if (name === undefined) context.addIssue({ code: 'custom', path: ['entry'], message: 'required: the name of the function to call, here or in task_data.candidate.entry' });
    if (source === undefined || name === undefined) return z.NEVER;
    return { language: data.language ?? data.candidate?.language ?? 'javascript', code: source, entry: name, tests: data.tests };
  });

/** A subtask for the code runner, defaults filled in. */
export type CodeRunnerTask = z.output<typeof codeRunnerTaskDataSchema>;
export type CodeRunnerTestCase = CodeRunnerTask['tests'][number];

/**
 * Pure: the code runner's subtask from `task_data`.
 *
 * @throws TierflowError (permanent, code `invalid_task_data`) naming each bad field, e.g. `task_data.tests.0.args`.
 */
export function parseCodeRunnerTask(taskData: Readonly<Record<string, unknown>>): CodeRunnerTask {
  const parsed = codeRunnerTaskDataSchema.safeParse(taskData);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `${['task_data', ...issue.path.map(String)].join('.')}: ${issue.message}`);
  throw TierflowError.permanent(`code-runner: invalid task_data: ${problems.join('; ')}`, { code: 'invalid_task_data' });
}

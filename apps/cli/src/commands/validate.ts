import { formatValidationError, messageKind, validate, validateWith, type ValidationError } from '@tierflow/protocol';
import { objectiveFileSchema } from '@tierflow/runtime';
import { EXIT, parseJsonText, readInput, type CliIo } from '../io.js';

export interface ValidateOptions {
  readonly json?: boolean;
}

/** The two kinds of document the command checks, as it names them. */
export const DOCUMENT = { objective: 'objective file', message: 'delegation/outcome/cancellation message' } as const;
type Document = (typeof DOCUMENT)[keyof typeof DOCUMENT];

type Report =
  | { source: string; status: 'valid'; document: typeof DOCUMENT.message; kind: string; id: string; version: string; from: string; to: string }
  | { source: string; status: 'valid'; document: typeof DOCUMENT.objective; subtasks: number | null; strategy: string | null }
  | { source: string; status: 'invalid'; document: Document; errors: readonly ValidationError[] }
  | { source: string; status: 'unusable'; reason: string };

/**
 * `tierflow validate <file|->...`: checks each document as an objective file (what `enqueue`
 * takes) or as a protocol message, whichever it is, and says which. Exit 0 when every document is
 * valid, 1 when one is invalid (each error printed with its path), 2 when an input cannot be read
 * or is not JSON.
 */
export async function validateCommand(sources: readonly string[], options: ValidateOptions, io: CliIo): Promise<number> {
  const reports: Report[] = [];
  for (const source of sources) reports.push(await check(source, io));
  if (options.json) io.stdout(`${JSON.stringify(sources.length === 1 ? reports[0] : reports, null, 2)}\n`);
  else for (const report of reports) print(report, io);
  const codes = reports.map((report) => (report.status === 'valid' ? EXIT.ok : report.status === 'invalid' ? EXIT.invalid : EXIT.unusable));
  return Math.max(EXIT.ok, ...codes);
}

/**
 * A message always has a version and an envelope around its payload; an objective file has its
 * `objective` at the top and none of those. Anything else is checked as a message, as before.
 */
export function documentOf(value: unknown): Document {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return DOCUMENT.message;
  const envelope = ['version', 'payload', 'source_tier', 'target_tier'].some((key) => Object.hasOwn(value, key));
  return Object.hasOwn(value, 'objective') && !envelope ? DOCUMENT.objective : DOCUMENT.message;
}

async function check(source: string, io: CliIo): Promise<Report> {
  const name = source === '-' ? '<stdin>' : source;
  let text: string;
  try {
    text = await readInput(source, io);
  } catch (error) {
    return { source: name, status: 'unusable', reason: `cannot read: ${(error as Error).message}` };
  }
  const parsed = parseJsonText(text);
  if (!parsed.ok) return { source: name, status: 'unusable', reason: parsed.reason };
  if (documentOf(parsed.value) === DOCUMENT.objective) return checkObjective(name, parsed.value);
  const result = validate(parsed.value);
  if (!result.ok) return { source: name, status: 'invalid', document: DOCUMENT.message, errors: result.errors };
  const message = result.value;
  return {
    source: name,
    status: 'valid',
    document: DOCUMENT.message,
    kind: messageKind(message),
    id: message.id,
    version: message.version,
    from: message.source_tier,
    to: message.target_tier,
  };
}

function checkObjective(source: string, value: unknown): Report {
  const result = validateWith(objectiveFileSchema, value);
  if (!result.ok) return { source, status: 'invalid', document: DOCUMENT.objective, errors: result.errors };
  const plan = result.value.task_data?.plan;
  return { source, status: 'valid', document: DOCUMENT.objective, subtasks: plan?.subtasks.length ?? null, strategy: plan?.strategy ?? null };
}

function print(report: Report, io: CliIo): void {
  switch (report.status) {
    case 'valid':
      if (report.document === DOCUMENT.objective) {
        const plan = report.subtasks === null ? 'no plan: the Architect makes one' : `a plan of ${report.subtasks} subtask${report.subtasks === 1 ? '' : 's'}, ${report.strategy}`;
        io.stdout(`${report.source}: valid objective file (${plan})\n`);
      } else io.stdout(`${report.source}: valid ${report.kind} message ${report.id} (${report.from} → ${report.to}, version ${report.version})\n`);
      return;
    case 'invalid':
      io.stdout(`${report.source}: invalid ${report.document === DOCUMENT.objective ? 'objective file' : 'message'}, ${report.errors.length} error${report.errors.length === 1 ? '' : 's'}\n`);
      for (const error of report.errors) io.stdout(`  ${formatValidationError(error)}\n`);
      return;
    case 'unusable':
      io.stderr(`${report.source}: ${report.reason}\n`);
      return;
  }
}

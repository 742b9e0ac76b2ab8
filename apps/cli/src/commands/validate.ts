import { formatValidationError, messageKind, validate, type ValidationError } from '@tierflow/protocol';
import { EXIT, parseJsonText, readInput, type CliIo } from '../io.js';

export interface ValidateOptions {
  readonly json?: boolean;
}

type Report =
  | { source: string; status: 'valid'; kind: string; id: string; version: string; from: string; to: string }
  | { source: string; status: 'invalid'; errors: readonly ValidationError[] }
  | { source: string; status: 'unusable'; reason: string };

/**
 * `tierflow validate <file|->...`: exit 0 when every message is valid, 1 when one is invalid
 * (each error printed with its path), 2 when an input cannot be read or is not JSON.
 */
export async function validateCommand(sources: readonly string[], options: ValidateOptions, io: CliIo): Promise<number> {
  const reports: Report[] = [];
  for (const source of sources) reports.push(await check(source, io));
  if (options.json) io.stdout(`${JSON.stringify(sources.length === 1 ? reports[0] : reports, null, 2)}\n`);
  else for (const report of reports) print(report, io);
  const codes = reports.map((report) => (report.status === 'valid' ? EXIT.ok : report.status === 'invalid' ? EXIT.invalid : EXIT.unusable));
  return Math.max(EXIT.ok, ...codes);
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
  const result = validate(parsed.value);
  if (!result.ok) return { source: name, status: 'invalid', errors: result.errors };
  const message = result.value;
  return {
    source: name,
    status: 'valid',
    kind: messageKind(message),
    id: message.id,
    version: message.version,
    from: message.source_tier,
    to: message.target_tier,
  };
}

function print(report: Report, io: CliIo): void {
  switch (report.status) {
    case 'valid':
      io.stdout(`${report.source}: valid ${report.kind} ${report.id} (${report.from} → ${report.to}, version ${report.version})\n`);
      return;
    case 'invalid':
      io.stdout(`${report.source}: invalid, ${report.errors.length} error${report.errors.length === 1 ? '' : 's'}\n`);
      for (const error of report.errors) io.stdout(`  ${formatValidationError(error)}\n`);
      return;
    case 'unusable':
      io.stderr(`${report.source}: ${report.reason}\n`);
      return;
  }
}

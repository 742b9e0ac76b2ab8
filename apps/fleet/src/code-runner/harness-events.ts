import { z } from 'zod';

/**
 * Why something the candidate did failed, as the harness sees it: `syntax` (the code does not
 * compile), `memory` (an allocation failed), `network` (a guarded network call), `error` (anything else).
 */
const failureKind = z.enum(['syntax', 'error', 'memory', 'network']);
export type FailureKind = z.output<typeof failureKind>;

const index = z.int().nonnegative();
const ms = z.number().nonnegative();

/**
 * One line the harness writes on fd 3, its result channel: JSON per line, as the harnesses of
 * both languages write them. The candidate's own stdout and stderr never mix in.
 */
export const harnessEventSchema = z.union([
  /** The code could not be loaded, or does not define the entry function. */
  z.strictObject({ t: z.literal('load'), kind: failureKind, error: z.string() }),
  /** A test case returned: `json` is the value as JSON text, compared with `expected` by the parent. */
  z.strictObject({ t: z.literal('case'), i: index, ok: z.literal(true), json: z.string(), ms }),
  z.strictObject({ t: z.literal('case'), i: index, ok: z.literal(false), kind: failureKind, error: z.string(), ms }),
  /** A network call the in-language guard refused, at the moment it did (the run may end before it can say more). */
  z.strictObject({ t: z.literal('denied'), what: z.string() }),
  /** An error outside any test case (an unhandled rejection, say) ended the run. */
  z.strictObject({ t: z.literal('fatal'), kind: failureKind, error: z.string() }),
  /** Every case ran. */
  z.strictObject({ t: z.literal('done') }),
]);
export type HarnessEvent = z.output<typeof harnessEventSchema>;
export type CaseEvent = Extract<HarnessEvent, { t: 'case' }>;

/** What the harness reported, gathered. */
export interface HarnessReport {
  readonly cases: ReadonlyMap<number, CaseEvent>;
  readonly load: Extract<HarnessEvent, { t: 'load' }> | null;
  readonly fatal: Extract<HarnessEvent, { t: 'fatal' }> | null;
  /** What the network guard refused, in order. */
  readonly denied: readonly string[];
  readonly done: boolean;
  /** Lines that were not harness events: something else wrote on the result channel. */
  readonly garbled: number;
}

/** Pure: the report in the lines of the result channel. */
export function readHarnessReport(lines: readonly string[]): HarnessReport {
  const cases = new Map<number, CaseEvent>();
  let load: HarnessReport['load'] = null;
  let fatal: HarnessReport['fatal'] = null;
  const denied: string[] = [];
  let done = false;
  let garbled = 0;
  for (const line of lines) {
    const event = parseLine(line);
    if (event === null) {
      garbled++;
      continue;
    }
    switch (event.t) {
      case 'case':
        cases.set(event.i, event);
        break;
      case 'load':
        load ??= event;
        break;
      case 'fatal':
        fatal ??= event;
        break;
      case 'denied':
        denied.push(event.what);
        break;
      case 'done':
        done = true;
        break;
    }
  }
  return { cases, load, fatal, denied, done, garbled };
}

function parseLine(line: string): HarnessEvent | null {
  try {
    const parsed = harnessEventSchema.safeParse(JSON.parse(line));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

import { ROOT_CONTEXT } from '@opentelemetry/api';
import { UNMETERED, UNRECORDED_CALLS } from '@tierflow/runtime/policy';
import type { SpecialistInput } from './specialist.js';

/** A specialist input for tests: the sim script in `taskData.sim`, attempt 1, a signal that never fires. */
export function specialistInput(overrides: Partial<SpecialistInput> & { sim?: unknown } = {}): SpecialistInput {
  const { sim, ...rest } = overrides;
  return {
    messageId: 'msg-002',
    rootId: 'root-1',
    objective: 'Write binary search function',
    taskType: 'execute_code',
    constraints: [],
    contextRefs: [],
    readContext: () => Promise.resolve({}),
    taskData: sim === undefined ? {} : { sim },
    expectedOutputSchema: null,
    deadline: null,
    attempt: 1,
    signal: new AbortController().signal,
    traceContext: ROOT_CONTEXT,
    usage: UNMETERED,
    calls: UNRECORDED_CALLS,
    progress: () => undefined,
    repair: null,
    ...rest,
  };
}

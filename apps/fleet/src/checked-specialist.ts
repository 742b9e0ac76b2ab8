import { defineSpecialist, type Specialist, type SpecialistArtifact, type SpecialistInput, type SpecialistResult } from './specialist.js';

/** Options of {@link checkedSpecialist}. */
export interface CheckedSpecialistOptions {
  /** The name routed by, e.g. `writer-a`. */
  readonly name: string;
  /** Makes the candidate: its first artifact's content is what gets checked. */
  readonly writer: Specialist;
  /** Judges it: gets the delegation with the candidate in `task_data.candidate.code` (the code runner reads it there). */
  readonly checker: Specialist;
}

/**
 * A writer whose work counts only once a checker has passed it: the writer runs, its candidate
 * goes to the checker with the same delegation, and the checker's verdict is the answer, with both
 * their artifacts. Raced under `first_success`, the first candidate that passes wins, not merely
 * the first one written.
 *
 * ```ts
 * registry.register(checkedSpecialist({ name: 'writer-a', writer: llmSpecialist({ name: 'w', model: 'python-lora' }), checker: codeRunnerSpecialist() }));
 * ```
 */
export function checkedSpecialist(options: CheckedSpecialistOptions): Specialist {
  const { writer, checker } = options;
  return defineSpecialist({
    name: options.name,
    version: '1.0.0',
    // Either one changing makes a different agent.
    config: {
      kind: 'checked',
      writer: { name: writer.name, version: writer.version, config: writer.config ?? {} },
      checker: { name: checker.name, version: checker.version, config: checker.config ?? {} },
    },
    ...(writer.maxConcurrent === undefined ? {} : { maxConcurrent: writer.maxConcurrent }),
    run: async (input) => {
      const written = await writer.run(input);
      const artifact = written.artifacts?.[0];
      if ((written.status ?? 'success') !== 'success' || artifact === undefined) return written;
      const verdict = await checker.run({ ...input, taskData: { ...input.taskData, candidate: { ...candidateOf(input), code: codeIn(artifact) } } });
      return combined(written, verdict);
    },
  });
}

/** `task_data.candidate` as the delegation gave it (language, entry), for the checker to complete. */
function candidateOf(input: SpecialistInput): Record<string, unknown> {
  const given = input.taskData['candidate'];
  return typeof given === 'object' && given !== null && !Array.isArray(given) ? { ...(given as Record<string, unknown>) } : {};
}

/**
 * The code in an artifact: a JSON object's `code` field (a model asked for structured output), else
 * the text with a Markdown code fence around it removed, else the text. Pure.
 */
export function codeIn(artifact: SpecialistArtifact): string {
  const text = artifact.content;
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === 'string') return unfenced(value);
    if (typeof value === 'object' && value !== null && typeof (value as { code?: unknown }).code === 'string') return (value as { code: string }).code;
  } catch {
    // Not JSON: code as written.
  }
  return unfenced(text);
}

function unfenced(text: string): string {
  const fenced = /^\s*```[\w+-]*\n([\s\S]*?)\n```\s*$/.exec(text);
  return fenced ? fenced[1]! : text;
}

/** The checker's verdict (status, confidence, error) over both their work; the writer's usage, which the runtime sums. */
function combined(written: SpecialistResult, verdict: SpecialistResult): SpecialistResult {
  return {
    ...verdict,
    summary: `${written.summary} — ${verdict.summary}`,
    artifacts: [...(written.artifacts ?? []), ...(verdict.artifacts ?? [])],
    resources_used: { ...written.resources_used, checker: verdict.resources_used ?? {} },
  };
}

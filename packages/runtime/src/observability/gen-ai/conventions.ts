/**
 * Which shape of the OpenTelemetry GenAI semantic conventions Tierflow's spans and model-call
 * metrics take, and whether they carry prompts and answers. The conventions are still in
 * development: `v1.41` (semantic conventions v1.41.0) is the default; `latest` is the newer shape
 * (the semantic-conventions-genai repository), chosen with OTEL_SEMCONV_STABILITY_OPT_IN, as every
 * OpenTelemetry instrumentation lets its users opt in to a newer shape.
 */
export const GEN_AI_CONVENTIONS = ['v1.41', 'latest'] as const;
export type GenAiConventions = (typeof GEN_AI_CONVENTIONS)[number];

/** What decides the GenAI attributes of a worker's spans and its model-call metrics. */
export interface GenAiOptions {
  /** `v1.41` by default; `latest` with OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental. */
  readonly conventions: GenAiConventions;
  /**
   * Prompts, system instructions and answers on each model call's span (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true);
   * off by default: they may hold what a trace store should not keep.
   */
  readonly captureContent: boolean;
}

export const DEFAULT_GEN_AI_OPTIONS: GenAiOptions = { conventions: 'v1.41', captureContent: false };

/** The opt-in value that asks for the newest GenAI conventions. */
export const LATEST_OPT_IN = 'gen_ai_latest_experimental';

/**
 * The conventions an OTEL_SEMCONV_STABILITY_OPT_IN value asks for: a comma-separated list of
 * opt-ins, of which only {@link LATEST_OPT_IN} concerns GenAI (others, `http` say, belong to other
 * instrumentations and are ignored). Pure.
 */
export function conventionsOf(optIn: string | undefined): GenAiConventions {
  const values = (optIn ?? '').split(',').map((value) => value.trim().toLowerCase());
  return values.includes(LATEST_OPT_IN) ? 'latest' : 'v1.41';
}

/** OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT as OpenTelemetry reads its booleans: `true` in any case is on, anything else off. Pure. */
export function captureContentOf(value: string | undefined): boolean {
  return value?.trim().toLowerCase() === 'true';
}

/** The two variables, as the environment gives them, resolved to {@link GenAiOptions}. Pure. */
export function resolveGenAiOptions(input: { readonly semconvOptIn?: string | undefined; readonly captureContent?: string | boolean | undefined } = {}): GenAiOptions {
  return {
    conventions: conventionsOf(input.semconvOptIn),
    captureContent: typeof input.captureContent === 'boolean' ? input.captureContent : captureContentOf(input.captureContent),
  };
}

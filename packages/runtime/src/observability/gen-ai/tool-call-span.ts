import { SpanKind, SpanStatusCode, trace, type Context, type Span } from '@opentelemetry/api';
import type { ToolCallEnd, ToolCallObservation, ToolCallStart } from '../../policy/tool-calls.js';

const tracer = trace.getTracer('@tierflow/runtime');

/** The GenAI conventions' attributes of a tool call's span (`execute_tool`). Pure. */
export function toolCallAttributes(start: ToolCallStart): Record<string, string> {
  return {
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': start.name,
    'gen_ai.tool.call.id': start.callId,
    'gen_ai.tool.type': start.type,
  };
}

/**
 * One tool call's observation: an INTERNAL span `execute_tool {name}`, child of the hop's span in
 * `parent`, ended with how the call went (a refusal, a denial and a failure are errors on it).
 * Telemetry never fails a call: nothing here throws.
 */
export function observeToolCall(parent: Context, start: ToolCallStart): ToolCallObservation {
  let span: Span | null = null;
  try {
    span = tracer.startSpan(`execute_tool ${start.name}`, { kind: SpanKind.INTERNAL, attributes: toolCallAttributes(start) }, parent);
  } catch {
    span = null;
  }
  let ended = false;
  return {
    ended: (end: ToolCallEnd, error: string | null, resultBytes: number) => {
      if (ended) return;
      ended = true;
      try {
        span?.setAttributes({ 'tierflow.tool.end': end, 'tierflow.tool.result_bytes': resultBytes });
        if (end !== 'ok') {
          span?.setAttribute('error.type', end === 'error' ? 'tool_error' : `tool_${end}`);
          span?.setStatus({ code: SpanStatusCode.ERROR, message: error ?? end });
        }
        span?.end();
      } catch {
        // A span that fails to take an attribute loses it; the call goes on.
      }
    },
  };
}

import { SpanKind, SpanStatusCode, trace, type Context, type Span } from '@opentelemetry/api';
import type { ModelCallObservation, ModelCallReply, ModelCallStart, ModelCallWait } from '../../policy/model-calls.js';
import { chatRequestAttributes, chatResponseAttributes, chatSpanName, errorTypeOf, providerOf, serverOf } from './attributes.js';
import { inputContentAttributes, outputContentAttributes } from './content.js';
import type { GenAiOptions } from './conventions.js';
import { recordModelCall } from './instruments.js';

const tracer = trace.getTracer('@tierflow/runtime');

/**
 * One model call's observation: a CLIENT span `chat {model}`, child of the hop's span in `parent`
 * (passed, not taken from an async context), each wait an event on it, and, for a call that was
 * sent, the model-call metrics once it ends. Telemetry never fails a call: nothing here throws.
 */
export function observeModelCall(parent: Context, options: GenAiOptions, start: ModelCallStart, now: () => number = performance.now.bind(performance)): ModelCallObservation {
  const { request } = start;
  const provider = providerOf(request.endpoint, start.provider);
  const startedAt = now();
  let span: Span | null = null;
  try {
    span = tracer.startSpan(
      chatSpanName(request.model),
      {
        kind: SpanKind.CLIENT,
        attributes: {
          ...chatRequestAttributes({ endpoint: request.endpoint, model: request.model, params: request.params, provider, purpose: start.purpose, replayed: start.replayed }),
          ...(options.captureContent ? inputContentAttributes(request.messages) : {}),
        },
      },
      parent,
    );
  } catch {
    span = null;
  }
  let ended = false;
  const measure = (reply: ModelCallReply | null, errorType: string | null, costUsd: number) => {
    if (start.replayed) return;
    recordModelCall(
      {
        provider,
        requestModel: request.model,
        responseModel: reply?.answer.model ?? null,
        serverAddress: serverOf(request.endpoint)?.address ?? null,
        durationS: (now() - startedAt) / 1000,
        tokens: reply?.tokens ?? null,
        costUsd,
        errorType,
      },
      options.conventions,
    );
  };
  return {
    waited: (wait: ModelCallWait) => {
      if (ended) return;
      // Held back before sending, by the model's shared limits: not a retry of anything.
      if (wait.reason === 'model_limit') {
        guarded(() => span?.addEvent('model_limit', { 'tierflow.limit': wait.limit ?? '', 'tierflow.wait_ms': wait.ms, 'tierflow.attempt': wait.attempt }));
        return;
      }
      guarded(() =>
        span?.addEvent('retry', {
          'tierflow.retry.reason': wait.reason,
          'tierflow.retry.wait_ms': wait.ms,
          'tierflow.attempt': wait.attempt,
          ...(wait.status === null ? {} : { 'http.response.status_code': wait.status }),
        }),
      );
    },
    answered: (reply: ModelCallReply) => {
      if (ended) return;
      ended = true;
      guarded(() => {
        span?.setAttributes({
          ...chatResponseAttributes({ model: reply.answer.model, id: reply.id, finishReason: reply.answer.finish_reason, tokens: reply.tokens, costUsd: reply.costUsd }, options.conventions),
          ...(options.captureContent ? outputContentAttributes(reply.answer.content, reply.answer.finish_reason, reply.answer.tool_calls) : {}),
        });
        span?.end();
      });
      measure(reply, null, reply.costUsd);
    },
    failed: (error: unknown, costUsd: number) => {
      if (ended) return;
      ended = true;
      const errorType = errorTypeOf(error);
      guarded(() => {
        span?.setAttributes({ 'error.type': errorType, 'tierflow.cost_usd': costUsd });
        span?.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
        span?.end();
      });
      measure(null, errorType, costUsd);
    },
    parked: (until: number) => {
      if (ended) return;
      ended = true;
      guarded(() => {
        span?.addEvent('parked', { 'tierflow.parked_until': new Date(until).toISOString() });
        span?.end();
      });
    },
  };
}

function guarded(work: () => void): void {
  try {
    work();
  } catch {
    // A span that fails to take an attribute loses it; the call goes on.
  }
}

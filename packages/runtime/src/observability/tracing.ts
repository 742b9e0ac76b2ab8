import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Link, type Span } from '@opentelemetry/api';
import type { DelegationMessage, OutcomeMessage, OutcomeStatus, TierName } from '@tierflow/protocol';
import { agentAttributes } from './gen-ai/attributes.js';
import type { GenAiConventions } from './gen-ai/conventions.js';

/**
 * Spans for every hop, through `@opentelemetry/api` only: a process without the SDK records
 * nothing and pays almost nothing. W3C trace context travels in the job's own telemetry metadata
 * (BullMQ keeps `opts.telemetry.metadata`), so the four processes join one trace per root.
 * Telemetry never fails a job: every call here returns, whatever the SDK does.
 */
const tracer = trace.getTracer('@tierflow/runtime');

/** Trace context as a carrier, serialised for `opts.telemetry.metadata`; undefined when nothing records. */
export function serialiseContext(active: Context): string | undefined {
  const carrier: Record<string, string> = {};
  propagation.inject(active, carrier);
  return Object.keys(carrier).length > 0 ? JSON.stringify(carrier) : undefined;
}

export function deserialiseContext(metadata: unknown): Context {
  if (typeof metadata !== 'string') return ROOT_CONTEXT;
  try {
    return propagation.extract(ROOT_CONTEXT, JSON.parse(metadata) as Record<string, string>);
  } catch {
    return ROOT_CONTEXT;
  }
}

/** The span context a carrier names, for links. */
export function linkTo(metadata: string | undefined): Link | null {
  if (!metadata) return null;
  const spanContext = trace.getSpanContext(deserialiseContext(metadata));
  return spanContext ? { context: spanContext } : null;
}

export interface HopFacts {
  readonly messageId: string;
  readonly correlationId: string;
  readonly rootId: string;
  readonly tier: TierName;
  readonly queue: string;
  readonly taskType: string;
  readonly specialist?: string | null;
  readonly attempt?: number;
  /** How the sender chose this receiver (the delegation's `routing`), for the Fleet's pass: its `tierflow.routing.*` attributes. */
  readonly routing?: unknown;
}

export function hopAttributes(facts: HopFacts, operation: 'send' | 'process'): Attributes {
  const attributes: Attributes = {
    'tierflow.correlation_id': facts.correlationId,
    'tierflow.root_id': facts.rootId,
    'tierflow.tier': facts.tier,
    'messaging.system': 'bullmq',
    'messaging.destination.name': facts.queue,
    'messaging.operation.type': operation,
    'messaging.operation.name': operation,
    'tierflow.message.id': facts.messageId,
    'tierflow.task_type': facts.taskType,
  };
  if (facts.specialist) attributes['tierflow.specialist'] = facts.specialist;
  if (facts.attempt !== undefined) attributes['tierflow.attempt'] = facts.attempt;
  attributes['messaging.message.id'] = facts.messageId;
  return attributes;
}

/**
 * The CONSUMER span of one processing pass (an attempt, or a parent's aggregate step, linked to
 * the pass that sent the round). A pass is also the tier's agent at work on the delegation, so it
 * carries the GenAI conventions' `invoke_agent` attributes beside the messaging ones; it keeps the
 * messaging name (`fleet process`), which says which queue's pass it is (docs/operations.md#traces-in-the-genai-conventions).
 */
export function startProcessSpan(parent: Context, facts: HopFacts, aggregate: readonly Link[] | null, conventions: GenAiConventions = 'v1.41'): Span {
  const name = aggregate ? `${facts.queue} aggregate` : `${facts.queue} process`;
  const attributes = {
    ...hopAttributes(facts, 'process'),
    ...agentAttributes({ tier: facts.tier, rootId: facts.rootId, specialist: facts.specialist }, conventions),
    ...routingAttributes(facts.routing),
  };
  return tracer.startSpan(name, { kind: aggregate ? SpanKind.INTERNAL : SpanKind.CONSUMER, attributes, links: [...(aggregate ?? [])] }, parent);
}

const ROUTING_TEXT = ['mode', 'chosen', 'reason', 'fixed', 'learned'] as const;

/**
 * A routing decision on a span (docs/operations.md#routing-modes): `tierflow.routing.mode`,
 * `.chosen`, `.reason`, `.fixed`, `.learned`, `.expected_gain` (those it has), and `.scores` as
 * JSON. It came over the wire, so each field is taken only when it has its type; none otherwise.
 */
export function routingAttributes(routing: unknown): Attributes {
  if (typeof routing !== 'object' || routing === null || Array.isArray(routing)) return {};
  const decision = routing as Readonly<Record<string, unknown>>;
  const attributes: Attributes = {};
  for (const field of ROUTING_TEXT) {
    const value = decision[field];
    if (typeof value === 'string') attributes[`tierflow.routing.${field}`] = value;
  }
  if (typeof decision.expected_gain === 'number') attributes['tierflow.routing.expected_gain'] = decision.expected_gain;
  if (Array.isArray(decision.scores) && decision.scores.length > 0) attributes['tierflow.routing.scores'] = JSON.stringify(decision.scores);
  return attributes;
}

/**
 * A round of delegations, sent by a pass: an event on the pass's span (the span in `pass`), whose
 * context goes with every child job of the round, so each child's process span is its child.
 * A round goes out in one script, at one moment: a PRODUCER span of its own (the messaging
 * conventions' send span) would say no more than this event does, at the cost of a span per round
 * (test/bench/RESULTS.md, 2026-11-28). The event carries the destination, the messages' ids, and
 * their count when there are several.
 */
export function roundSent(pass: Context, messages: readonly DelegationMessage[], queue: string): string | undefined {
  const first = messages[0];
  if (!first) return undefined;
  trace.getSpan(pass)?.addEvent(`${queue} send`, {
    'messaging.operation.type': 'send',
    'messaging.destination.name': queue,
    ...(messages.length === 1 ? { 'messaging.message.id': first.id } : { 'messaging.batch.message_count': messages.length }),
    'tierflow.message.ids': messages.map((message) => message.id),
  });
  return serialiseContext(pass);
}

/** The PRODUCER span of a root objective sent to the Monitor's queue. */
export function rootSpan(rootId: string, queue: string): Span {
  return tracer.startSpan(`${queue} send`, {
    kind: SpanKind.PRODUCER,
    attributes: hopAttributes({ messageId: rootId, correlationId: rootId, rootId, tier: 'PROGRESS_MONITOR', queue, taskType: 'objective' }, 'send'),
  });
}

const ERROR_STATUSES: ReadonlySet<OutcomeStatus> = new Set(['failed', 'timeout']);

/** Ends a processing span with its outcome: status, confidence, and an event when it was stopped. */
export function endWithOutcome(span: Span, outcome: OutcomeMessage, strategy: string | null): void {
  const { status, confidence, error_detail } = outcome.payload;
  span.setAttributes({ 'tierflow.status': status, 'tierflow.confidence': confidence, 'tierflow.outcome.id': outcome.id });
  if (strategy) span.setAttribute('tierflow.strategy', strategy);
  if (status === 'cancelled' || status === 'timeout') span.addEvent(status, { reason: error_detail ?? '' });
  span.setStatus(ERROR_STATUSES.has(status) ? { code: SpanStatusCode.ERROR, message: error_detail ?? status } : { code: SpanStatusCode.OK });
  span.end();
}

export function endForRetry(span: Span, error: unknown, attempt: number): void {
  const message = error instanceof Error ? error.message : String(error);
  span.addEvent('retry', { attempt, error: message });
  span.setStatus({ code: SpanStatusCode.ERROR, message });
  span.end();
}

export { context, trace };

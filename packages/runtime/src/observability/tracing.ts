import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Link, type Span } from '@opentelemetry/api';
import type { DelegationMessage, OutcomeMessage, OutcomeStatus, TierName } from '@tierflow/protocol';

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
}

export function hopAttributes(facts: HopFacts, operation: 'send' | 'process'): Attributes {
  return {
    ...sharedAttributes(facts, operation),
    'tierflow.message.id': facts.messageId,
    'tierflow.task_type': facts.taskType,
    ...(facts.specialist ? { 'tierflow.specialist': facts.specialist } : {}),
    ...(facts.attempt === undefined ? {} : { 'tierflow.attempt': facts.attempt }),
    'messaging.message.id': facts.messageId,
  };
}

/** What every message of a hop or a batch shares: its run, its tier, and the queue it goes through. */
function sharedAttributes(facts: HopFacts, operation: 'send' | 'process'): Attributes {
  return {
    'tierflow.correlation_id': facts.correlationId,
    'tierflow.root_id': facts.rootId,
    'tierflow.tier': facts.tier,
    'messaging.system': 'bullmq',
    'messaging.destination.name': facts.queue,
    'messaging.operation.type': operation,
    'messaging.operation.name': operation,
  };
}

/** The CONSUMER span of one processing pass (an attempt, or a parent's aggregate step with links to its children). */
export function startProcessSpan(parent: Context, facts: HopFacts, aggregate: readonly Link[] | null): Span {
  const name = aggregate ? `${facts.queue} aggregate` : `${facts.queue} process`;
  return tracer.startSpan(name, { kind: aggregate ? SpanKind.INTERNAL : SpanKind.CONSUMER, attributes: hopAttributes(facts, 'process'), links: [...(aggregate ?? [])] }, parent);
}

/**
 * One PRODUCER span per round of delegations, ended at once; its context goes with every child
 * job of the round. A round goes out in one script, so its messages are sent together: a batch
 * send in the messaging conventions, with `messaging.batch.message_count` and the messages' ids
 * in `tierflow.message.ids`. A round of one is that message's own send span.
 */
export function roundSpan(parent: Context, messages: readonly DelegationMessage[], queue: string, rootId: string): string | undefined {
  const facts = (message: DelegationMessage): HopFacts => ({
    messageId: message.id,
    correlationId: message.correlation_id ?? rootId,
    rootId,
    tier: message.target_tier,
    queue,
    taskType: message.payload.task_type,
    specialist: message.payload.specialist_hint,
  });
  const first = messages[0];
  if (!first) return undefined;
  const attributes = messages.length === 1 ? hopAttributes(facts(first), 'send') : batchAttributes(facts(first), messages);
  const span = tracer.startSpan(`${queue} send`, { kind: SpanKind.PRODUCER, attributes }, parent);
  const metadata = serialiseContext(trace.setSpan(parent, span));
  span.end();
  return metadata;
}

/** A batch's attributes: what its messages share, their ids, and how many. */
function batchAttributes(first: HopFacts, messages: readonly DelegationMessage[]): Attributes {
  const taskTypes = new Set(messages.map((message) => message.payload.task_type));
  return {
    ...sharedAttributes(first, 'send'),
    'tierflow.message.ids': messages.map((message) => message.id),
    ...(taskTypes.size === 1 ? { 'tierflow.task_type': first.taskType } : {}),
    'messaging.batch.message_count': messages.length,
  };
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

import { outcomeMessageSchema, type OutcomePayload, type Question } from '@tierflow/protocol';
import type { TierLogger } from '../policy/handler.js';
import { blockedEvent, questionEvent, reviewEvent, rootOutcomeEvents, securityEvent, type BlockedDetail, type SecurityDetail, type WebhookEvent } from './webhook-events.js';
import type { WebhookEmitter } from './webhook-queue.js';

/**
 * What a tier's worker tells webhooks of, as it sees it happen: a root's answer (`done`, and
 * `review` when work was held for review), a run's questions, and — for the code that finds them —
 * blocked work and security findings. Each call queues the deliveries and returns at once: a
 * webhook never holds up, nor fails, the work that caused it.
 */
export class RunNotices {
  constructor(
    private readonly emitter: WebhookEmitter,
    /** The deployment's prefix, which every event names. */
    private readonly deployment: string,
    private readonly log: TierLogger,
    private readonly now: () => number = Date.now,
  ) {}

  /** A root job completed with `result` (its outcome message, as BullMQ hands it back: parsed here). */
  rootAnswered(rootId: string | undefined, result: unknown): void {
    const outcome = outcomeMessageSchema.safeParse(result);
    if (rootId === undefined || !outcome.success) {
      this.log.warn('no webhook for a root answer that is not an outcome', { root: rootId });
      return;
    }
    for (const event of rootOutcomeEvents(this.source(rootId), outcome.data)) this.emit(event);
  }

  /**
   * A run waits for a person's answers: `question`, and `review` first when what it asks is a
   * review the confidence cascade called for (`answer`: the draft the root holds while it waits).
   */
  questionsAsked(
    rootId: string,
    wait: { readonly askedAt: number; readonly until: number; readonly questions: readonly Question[] },
    answer?: Pick<OutcomePayload, 'status' | 'summary' | 'cascade_check'>,
  ): void {
    const source = this.source(rootId);
    const review = answer ? reviewEvent(source, answer) : null;
    if (review) this.emit(review);
    this.emit(questionEvent(source, wait));
  }

  /** Work of a run is blocked (`nodeId`: where; the root when left out). */
  blocked(rootId: string, input: { readonly nodeId?: string; readonly key?: string; readonly summary?: string; readonly detail: BlockedDetail }): void {
    this.emit(blockedEvent(this.source(rootId), input));
  }

  /** A security finding in a run. */
  security(rootId: string, input: { readonly nodeId?: string; readonly key?: string; readonly summary?: string; readonly detail: SecurityDetail }): void {
    this.emit(securityEvent(this.source(rootId), input));
  }

  private source(rootId: string) {
    return { deployment: this.deployment, rootId, now: this.now() };
  }

  private emit(event: WebhookEvent): void {
    void this.emitter.emit(event).catch((error: unknown) => this.log.warn('could not queue a webhook event', { event: event.id, error: String(error) }));
  }
}

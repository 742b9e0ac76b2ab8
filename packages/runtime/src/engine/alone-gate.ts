/**
 * Lets a worker run one job alone: jobs enter shared, many at once, or alone, with none beside
 * them (crash-guard.ts: a job suspected of killing its worker runs alone, so that a death while it
 * runs is its own). First come, first in: once a job waits to run alone, later jobs wait behind it
 * rather than keep it waiting for ever. In memory, one per worker process and tier. Pure.
 */
export class AloneGate {
  private shared = 0;
  private alone = false;
  private readonly waiting: { readonly alone: boolean; readonly enter: () => void }[] = [];

  /** Enters: at once (null) when nothing stands in the way, else a promise that resolves once in. */
  enter(alone: boolean): Promise<void> | null {
    if (this.waiting.length === 0 && this.admits(alone)) {
      this.take(alone);
      return null;
    }
    return new Promise((resolve) => this.waiting.push({ alone, enter: resolve }));
  }

  /** Leaves, letting in whoever waits and now may enter. */
  leave(alone: boolean): void {
    if (alone) this.alone = false;
    else this.shared = Math.max(0, this.shared - 1);
    while (this.waiting.length > 0 && this.admits(this.waiting[0]!.alone)) {
      const next = this.waiting.shift()!;
      this.take(next.alone);
      next.enter();
    }
  }

  /** Jobs inside now. */
  get inside(): number {
    return this.shared + (this.alone ? 1 : 0);
  }

  private admits(alone: boolean): boolean {
    return !this.alone && (!alone || this.shared === 0);
  }

  private take(alone: boolean): void {
    if (alone) this.alone = true;
    else this.shared++;
  }
}

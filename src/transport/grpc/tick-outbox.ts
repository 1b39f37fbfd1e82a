/**
 * Messages for one stream, held until the end of the event loop's current turn and then handed
 * over together: a turn reads every message that arrived in one socket read, so what
 * those messages cause leaves in one write instead of one per ticket or per order. setImmediate,
 * not a microtask: grpc-js delivers each received message in its own microtask, so a microtask
 * flush would run between them and batch nothing.
 */
export class TickOutbox<T> {
  private pending: T[] = [];
  private scheduled: NodeJS.Immediate | undefined;

  constructor(
    /** Receives at most `maxBatch` items per call, in the order they were pushed. */
    private readonly deliver: (items: T[]) => void,
    private readonly maxBatch = MAX_BATCH,
  ) {}

  push(item: T): void {
    this.pending.push(item);
    this.scheduled ??= setImmediate(() => this.flush());
  }

  /** Hands over everything pending now (before the stream ends, say). */
  flush(): void {
    if (this.scheduled !== undefined) clearImmediate(this.scheduled);
    this.scheduled = undefined;
    const items = this.pending;
    if (items.length === 0) return;
    this.pending = [];
    for (let i = 0; i < items.length; i += this.maxBatch) {
      this.deliver(items.length <= this.maxBatch ? items : items.slice(i, i + this.maxBatch));
    }
  }

  /** Forgets what is pending (the stream is gone). */
  discard(): void {
    if (this.scheduled !== undefined) clearImmediate(this.scheduled);
    this.scheduled = undefined;
    this.pending = [];
  }
}

/** Most items in one batched message either way; a longer batch is refused on receipt. */
export const MAX_BATCH = 1024;

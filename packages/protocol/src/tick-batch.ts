/**
 * Items pushed during one turn of the event loop, handed over together at its end: the client side
 * of batched FindGames and coalesced game-server reports, so a burst costs one message instead of
 * hundreds. At most `max` per hand-over, the coordinator's limit for one batched message.
 */
export class TickBatch<T> {
  private pending: T[] = [];
  private scheduled: NodeJS.Immediate | undefined;

  constructor(
    private readonly deliver: (items: T[]) => void,
    private readonly max = 1024,
  ) {}

  push(item: T): void {
    this.pending.push(item);
    this.scheduled ??= setImmediate(() => this.flush());
  }

  flush(): void {
    if (this.scheduled !== undefined) clearImmediate(this.scheduled);
    this.scheduled = undefined;
    const items = this.pending;
    if (items.length === 0) return;
    this.pending = [];
    if (items.length <= this.max) return this.deliver(items);
    for (let i = 0; i < items.length; i += this.max) this.deliver(items.slice(i, i + this.max));
  }
}

/**
 * Keys due at a time, popped in time order: a binary min-heap, O(log n) per push and pop. Entries
 * are never removed early; the rule that pushed one checks, when it is due, whether it still
 * matters (a call answered meanwhile, a ticket assigned).
 */
export class DeadlineQueue<K> {
  private readonly times: number[] = [];
  private readonly keys: K[] = [];

  get size(): number {
    return this.times.length;
  }

  push(at: number, key: K): void {
    this.times.push(at);
    this.keys.push(key);
    let i = this.times.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.times[parent]! <= this.times[i]!) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  /** The earliest entry due strictly before `now` (or at any time with Infinity), removed; undefined when none is. */
  popDueBefore(now: number): { at: number; key: K } | undefined {
    if (this.times.length === 0 || !(this.times[0]! < now)) return undefined;
    const at = this.times[0]!;
    const key = this.keys[0]!;
    const lastTime = this.times.pop()!;
    const lastKey = this.keys.pop()!;
    if (this.times.length > 0) {
      this.times[0] = lastTime;
      this.keys[0] = lastKey;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let smallest = i;
        if (l < this.times.length && this.times[l]! < this.times[smallest]!) smallest = l;
        if (r < this.times.length && this.times[r]! < this.times[smallest]!) smallest = r;
        if (smallest === i) break;
        this.swap(i, smallest);
        i = smallest;
      }
    }
    return { at, key };
  }

  private swap(a: number, b: number): void {
    [this.times[a], this.times[b]] = [this.times[b]!, this.times[a]!];
    [this.keys[a], this.keys[b]] = [this.keys[b]!, this.keys[a]!];
  }
}

/** A min-heap of timed events; ties leave in insertion order, so runs replay exactly. */
export class EventQueue<T> {
  private readonly heap: { at: number; seq: number; value: T }[] = [];
  private seq = 0;

  push(at: number, value: T): void {
    const heap = this.heap;
    heap.push({ at, seq: this.seq++, value });
    for (let i = heap.length - 1; i > 0; ) {
      const parent = (i - 1) >> 1;
      if (!this.less(i, parent)) break;
      const up = heap[parent]!;
      heap[parent] = heap[i]!;
      heap[i] = up;
      i = parent;
    }
  }

  peekAt(): number | undefined {
    return this.heap[0]?.at;
  }

  pop(): { at: number; value: T } | undefined {
    const heap = this.heap;
    const top = heap[0];
    if (top === undefined) return undefined;
    const last = heap.pop()!;
    if (heap.length > 0) {
      heap[0] = last;
      for (let i = 0; ; ) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < heap.length && this.less(l, m)) m = l;
        if (r < heap.length && this.less(r, m)) m = r;
        if (m === i) break;
        const down = heap[m]!;
        heap[m] = heap[i]!;
        heap[i] = down;
        i = m;
      }
    }
    return top;
  }

  get size(): number {
    return this.heap.length;
  }

  private less(a: number, b: number): boolean {
    const x = this.heap[a]!;
    const y = this.heap[b]!;
    return x.at < y.at || (x.at === y.at && x.seq < y.seq);
  }
}

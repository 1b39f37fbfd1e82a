import type { Timers } from '../ports.js';

/**
 * Every ticket's pending expiry in one binary heap behind one timer (issue 15): a setTimeout per
 * ticket cost a Timeout and two closures each, tens of thousands of them alive at a time.
 * Deadlines are exact (the timer is armed for the earliest); ties fire in the order they were set.
 * A new deadline for a key replaces the old one; stale heap entries are skipped when they surface.
 */
export class ExpiryHeap {
  private readonly dues: number[] = [];
  private readonly seqs: number[] = [];
  private readonly keys: string[] = [];
  /** The live entry of each key. */
  private readonly live = new Map<string, number>();
  private nextSeq = 0;
  private armedAt = Infinity;
  private cancelTimer: (() => void) | undefined;

  constructor(
    private readonly timers: Timers,
    private readonly now: () => number,
    private readonly expire: (key: string) => void,
  ) {}

  get size(): number {
    return this.live.size;
  }

  /** `key` expires `ms` from now (replacing its earlier deadline). O(log n). */
  set(key: string, ms: number): void {
    const due = this.now() + Math.max(0, ms);
    const seq = this.nextSeq++;
    this.live.set(key, seq);
    this.push(due, seq, key);
    if (due < this.armedAt) this.arm(due);
    if (this.dues.length > 2 * this.live.size + 1024) this.compact();
  }

  /** `key` no longer expires. O(1); its heap entry is dropped when it surfaces. */
  delete(key: string): void {
    this.live.delete(key);
    if (this.live.size === 0) this.clear();
  }

  private clear(): void {
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    this.armedAt = Infinity;
    this.dues.length = this.seqs.length = this.keys.length = 0;
  }

  private arm(due: number): void {
    this.cancelTimer?.();
    this.armedAt = due;
    this.cancelTimer = this.timers.set(() => this.fire(), due - this.now());
  }

  private fire(): void {
    this.cancelTimer = undefined;
    this.armedAt = Infinity;
    const now = this.now();
    while (this.dues.length > 0 && this.dues[0]! <= now) {
      const key = this.keys[0]!;
      const seq = this.seqs[0]!;
      this.pop();
      if (this.live.get(key) !== seq) continue;
      this.live.delete(key);
      this.expire(key);
    }
    if (this.dues.length > 0 && this.dues[0]! < this.armedAt) this.arm(this.dues[0]!);
  }

  /** Drops replaced and deleted entries once they outnumber the live ones: O(n), amortized O(1) per set. */
  private compact(): void {
    const entries = this.dues.map((due, i) => [due, this.seqs[i]!, this.keys[i]!] as const).filter(([, seq, key]) => this.live.get(key) === seq);
    this.dues.length = this.seqs.length = this.keys.length = 0;
    for (const [due, seq, key] of entries) this.push(due, seq, key);
  }

  private before(i: number, j: number): boolean {
    return this.dues[i]! < this.dues[j]! || (this.dues[i] === this.dues[j] && this.seqs[i]! < this.seqs[j]!);
  }

  private swap(i: number, j: number): void {
    [this.dues[i], this.dues[j]] = [this.dues[j]!, this.dues[i]!];
    [this.seqs[i], this.seqs[j]] = [this.seqs[j]!, this.seqs[i]!];
    [this.keys[i], this.keys[j]] = [this.keys[j]!, this.keys[i]!];
  }

  private push(due: number, seq: number, key: string): void {
    let i = this.dues.push(due) - 1;
    this.seqs.push(seq);
    this.keys.push(key);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.before(i, parent)) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  private pop(): void {
    const last = this.dues.length - 1;
    this.swap(0, last);
    this.dues.pop();
    this.seqs.pop();
    this.keys.pop();
    for (let i = 0; ; ) {
      const l = 2 * i + 1;
      const r = l + 1;
      let smallest = i;
      if (l < last && this.before(l, smallest)) smallest = l;
      if (r < last && this.before(r, smallest)) smallest = r;
      if (smallest === i) return;
      this.swap(i, smallest);
      i = smallest;
    }
  }
}

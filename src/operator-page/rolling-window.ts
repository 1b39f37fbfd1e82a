/**
 * Values over the last `slots × slotMs` milliseconds, in slots of `slotMs`: each slot holds one
 * accumulator, recycled when time moves past it. Memory is fixed whatever the event rate.
 */
export class RollingWindow<T> {
  private readonly values: T[];
  private readonly startedAt: number[];

  constructor(
    readonly slots: number,
    readonly slotMs: number,
    private readonly fresh: () => T,
    private readonly clear: (value: T) => void,
  ) {
    this.values = Array.from({ length: slots }, fresh);
    this.startedAt = new Array<number>(slots).fill(-Infinity);
  }

  /** The accumulator for time `now` (cleared if it last held an older slot). */
  at(now: number): T {
    const start = Math.floor(now / this.slotMs) * this.slotMs;
    const i = Math.floor(now / this.slotMs) % this.slots;
    if (this.startedAt[i] !== start) {
      this.clear(this.values[i]!);
      this.startedAt[i] = start;
    }
    return this.values[i]!;
  }

  /** Each accumulator whose slot lies within the window ending at `now`. */
  *live(now: number): IterableIterator<T> {
    const oldest = Math.floor(now / this.slotMs) * this.slotMs - (this.slots - 1) * this.slotMs;
    for (let i = 0; i < this.slots; i++) if (this.startedAt[i]! >= oldest) yield this.values[i]!;
  }

  get spanMs(): number {
    return this.slots * this.slotMs;
  }
}

/** A count of events over a rolling window. */
export class RollingCount {
  private readonly window: RollingWindow<{ n: number }>;

  constructor(slots: number, slotMs: number) {
    this.window = new RollingWindow(slots, slotMs, () => ({ n: 0 }), (v) => (v.n = 0));
  }

  add(now: number, n = 1): void {
    this.window.at(now).n += n;
  }

  total(now: number): number {
    let sum = 0;
    for (const v of this.window.live(now)) sum += v.n;
    return sum;
  }

  get spanMs(): number {
    return this.window.spanMs;
  }
}

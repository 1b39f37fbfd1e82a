/**
 * A set of numbers fixed when it is made, each present or not: how many present ones are below a
 * value, in O(log n) (a Fenwick tree over the numbers in sorted order). Numbers may repeat; each
 * copy is one member.
 */
export class PresenceCounts {
  private readonly sorted: Float64Array;
  /** Fenwick tree of presence (1-based). */
  private readonly tree: Int32Array;
  private readonly present: Uint8Array;
  private count = 0;

  constructor(values: Iterable<number>) {
    this.sorted = Float64Array.from(values).sort();
    this.tree = new Int32Array(this.sorted.length + 1);
    this.present = new Uint8Array(this.sorted.length);
  }

  get size(): number {
    return this.count;
  }

  /** Marks one copy of `value` present; false when it is not a member or every copy already is. */
  add(value: number): boolean {
    for (let i = this.lowerBound(value); i < this.sorted.length && this.sorted[i] === value; i++) {
      if (this.present[i]) continue;
      this.present[i] = 1;
      this.bump(i, 1);
      return true;
    }
    return false;
  }

  /** Marks one copy of `value` absent; false when none is present. */
  remove(value: number): boolean {
    for (let i = this.lowerBound(value); i < this.sorted.length && this.sorted[i] === value; i++) {
      if (!this.present[i]) continue;
      this.present[i] = 0;
      this.bump(i, -1);
      return true;
    }
    return false;
  }

  /** How many present members are below `value`. */
  below(value: number): number {
    let sum = 0;
    for (let i = this.lowerBound(value); i > 0; i -= i & -i) sum += this.tree[i]!;
    return sum;
  }

  private bump(index: number, by: number): void {
    this.count += by;
    for (let i = index + 1; i < this.tree.length; i += i & -i) this.tree[i]! += by;
  }

  /** The first index whose number is not below `value`. */
  private lowerBound(value: number): number {
    let lo = 0;
    let hi = this.sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.sorted[mid]! < value) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

/**
 * A set of small non-negative integers (a factory's first-find sequence numbers) that counts the
 * members below a value and finds the k-th smallest, each in O(log n): a Fenwick tree over
 * presence flags that doubles its size as sequence numbers grow (rebuilt in O(n) at each doubling,
 * so O(1) amortised per insert).
 */
export class RankIndex {
  private tree = new Int32Array(64);
  private present = new Uint8Array(64);
  private count = 0;

  get size(): number {
    return this.count;
  }

  has(value: number): boolean {
    return value < this.present.length && this.present[value] === 1;
  }

  add(value: number): void {
    if (this.has(value)) return;
    while (value >= this.present.length) this.grow();
    this.present[value] = 1;
    this.count++;
    this.update(value, 1);
  }

  delete(value: number): void {
    if (!this.has(value)) return;
    this.present[value] = 0;
    this.count--;
    this.update(value, -1);
  }

  /** How many members are below `value`. */
  below(value: number): number {
    let sum = 0;
    for (let i = Math.min(value, this.present.length); i > 0; i -= i & -i) sum += this.tree[i - 1]!;
    return sum;
  }

  /** The k-th smallest member (1-based), or undefined past the last. */
  kth(k: number): number | undefined {
    if (k < 1 || k > this.count) return undefined;
    let position = 0;
    for (let step = highestBit(this.present.length); step > 0; step >>= 1) {
      const next = position + step;
      if (next <= this.present.length && this.tree[next - 1]! < k) {
        position = next;
        k -= this.tree[next - 1]!;
      }
    }
    return position; // the 0-based value whose 1-based Fenwick index is position + 1
  }

  private update(value: number, delta: number): void {
    for (let i = value + 1; i <= this.present.length; i += i & -i) this.tree[i - 1]! += delta;
  }

  private grow(): void {
    const present = new Uint8Array(this.present.length * 2);
    present.set(this.present);
    this.present = present;
    this.tree = new Int32Array(present.length);
    // Linear build: each node adds itself to its parent.
    for (let i = 1; i <= present.length; i++) {
      this.tree[i - 1]! += present[i - 1]!;
      const parent = i + (i & -i);
      if (parent <= present.length) this.tree[parent - 1]! += this.tree[i - 1]!;
    }
  }
}

function highestBit(n: number): number {
  let bit = 1;
  while (bit * 2 <= n) bit *= 2;
  return bit;
}

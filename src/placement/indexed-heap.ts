/**
 * A binary heap whose items remember their own index, so an item can be removed or re-keyed
 * in O(log n) without a search. Placement keeps one per factory for servers that can take a
 * game now, one for servers waiting on a start token, and one for factories with queued work.
 *
 * An item belongs to at most one IndexedHeap at a time; `heapIndex` is -1 when it is in none.
 */
export interface HeapMember {
  heapIndex: number;
}

export class IndexedHeap<T extends HeapMember> {
  private readonly items: T[] = [];

  /** `before(a, b)` is true when a must come out before b; it must be a strict total order. */
  constructor(private readonly before: (a: T, b: T) => boolean) {}

  get size(): number {
    return this.items.length;
  }

  peek(): T | undefined {
    return this.items[0];
  }

  /** The item at array index i (0 is the top), for best-first walks that must not mutate. */
  at(i: number): T | undefined {
    return this.items[i];
  }

  has(item: T): boolean {
    return item.heapIndex >= 0 && this.items[item.heapIndex] === item;
  }

  push(item: T): void {
    item.heapIndex = this.items.length;
    this.items.push(item);
    this.siftUp(item.heapIndex);
  }

  pop(): T | undefined {
    const top = this.items[0];
    if (top !== undefined) this.remove(top);
    return top;
  }

  remove(item: T): void {
    const i = item.heapIndex;
    const last = this.items.pop()!;
    item.heapIndex = -1;
    if (last === item) return;
    this.items[i] = last;
    last.heapIndex = i;
    this.update(last);
  }

  /** Restores order after the item's key changed. */
  update(item: T): void {
    const i = item.heapIndex;
    if (i > 0 && this.before(item, this.items[(i - 1) >> 1]!)) this.siftUp(i);
    else this.siftDown(i);
  }

  private siftUp(i: number): void {
    const item = this.items[i]!;
    while (i > 0) {
      const parentIndex = (i - 1) >> 1;
      const parent = this.items[parentIndex]!;
      if (!this.before(item, parent)) break;
      this.items[i] = parent;
      parent.heapIndex = i;
      i = parentIndex;
    }
    this.items[i] = item;
    item.heapIndex = i;
  }

  private siftDown(i: number): void {
    const n = this.items.length;
    const item = this.items[i]!;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) break;
      const right = left + 1;
      let child = left;
      if (right < n && this.before(this.items[right]!, this.items[left]!)) child = right;
      const childItem = this.items[child]!;
      if (!this.before(childItem, item)) break;
      this.items[i] = childItem;
      childItem.heapIndex = i;
      i = child;
    }
    this.items[i] = item;
    item.heapIndex = i;
  }
}

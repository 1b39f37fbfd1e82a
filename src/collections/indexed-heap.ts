/**
 * A binary heap whose items remember their own position, so any item can be removed or
 * re-keyed in O(log n) without a search. The cooperative matcher (open-game buckets,
 * reservation deadlines, game start times) and placement (servers that can take a game, servers
 * waiting on a start token, factories with queued work) keep their ordered structures in these:
 * the budget is O(log n) per update, and a sorted list would need O(n) inserts.
 *
 * An item sits in at most one heap at a time; `heapIndex` is -1 while it is in none.
 */
export interface HeapItem {
  heapIndex: number;
}

export class IndexedHeap<T extends HeapItem> {
  private readonly items: T[] = [];

  /** `before(a, b)` is true when a must come out before b. */
  constructor(readonly before: (a: T, b: T) => boolean) {}

  get size(): number {
    return this.items.length;
  }

  peek(): T | undefined {
    return this.items[0];
  }

  /** The item at a heap position (0 = best); for read-only walks such as findFirst. */
  at(position: number): T | undefined {
    return this.items[position];
  }

  has(item: T): boolean {
    return item.heapIndex >= 0 && this.items[item.heapIndex] === item;
  }

  push(item: T): void {
    if (item.heapIndex !== -1) throw new Error('heap item is already in a heap');
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
    const position = item.heapIndex;
    if (!this.has(item)) throw new Error('heap item is not in this heap');
    const last = this.items.pop() as T;
    item.heapIndex = -1;
    if (last === item) return;
    this.items[position] = last;
    last.heapIndex = position;
    this.siftUp(position);
    this.siftDown(last.heapIndex);
  }

  /** Restores order after the item's key changed. */
  update(item: T): void {
    this.siftUp(item.heapIndex);
    this.siftDown(item.heapIndex);
  }

  /**
   * The best item that `accept`s, found best-first: only items better than the answer (and
   * their children) are visited, so skipping u rejected items costs O(u log u), not O(n).
   * Stats use it to find the newest/oldest game outside a predicate's union.
   */
  findFirst(accept: (item: T) => boolean): T | undefined {
    if (this.items.length === 0) return undefined;
    const frontier = new IndexedHeap<PositionNode<T>>((a, b) => this.before(a.item, b.item));
    frontier.push(new PositionNode(0, this.items[0] as T));
    for (let node = frontier.pop(); node !== undefined; node = frontier.pop()) {
      if (accept(node.item)) return node.item;
      for (const child of [2 * node.position + 1, 2 * node.position + 2]) {
        const item = this.items[child];
        if (item !== undefined) frontier.push(new PositionNode(child, item));
      }
    }
    return undefined;
  }

  /** True when the heap order and every item's heapIndex are consistent (used by tests). */
  isValid(): boolean {
    return this.items.every((item, i) => {
      const parent = this.items[(i - 1) >> 1];
      return item.heapIndex === i && (i === 0 || parent === undefined || !this.before(item, parent));
    });
  }

  *[Symbol.iterator](): IterableIterator<T> {
    yield* this.items;
  }

  private siftUp(start: number): void {
    const items = this.items;
    const item = items[start] as T;
    let position = start;
    while (position > 0) {
      const parentPosition = (position - 1) >> 1;
      const parent = items[parentPosition] as T;
      if (!this.before(item, parent)) break;
      items[position] = parent;
      parent.heapIndex = position;
      position = parentPosition;
    }
    items[position] = item;
    item.heapIndex = position;
  }

  private siftDown(start: number): void {
    const items = this.items;
    const length = items.length;
    const item = items[start] as T;
    let position = start;
    for (;;) {
      const left = 2 * position + 1;
      if (left >= length) break;
      const right = left + 1;
      let child = left;
      if (right < length && this.before(items[right] as T, items[left] as T)) child = right;
      const childItem = items[child] as T;
      if (!this.before(childItem, item)) break;
      items[position] = childItem;
      childItem.heapIndex = position;
      position = child;
    }
    items[position] = item;
    item.heapIndex = position;
  }
}

class PositionNode<T> implements HeapItem {
  heapIndex = -1;
  constructor(
    readonly position: number,
    readonly item: T,
  ) {}
}

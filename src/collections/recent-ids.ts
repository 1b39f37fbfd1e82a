/**
 * The last `capacity` ids added, for dropping repeats: a Set for membership and a ring of the same
 * ids in arrival order, so forgetting the oldest is O(1). Deleting a Set's oldest entry through
 * `values().next()` is not: V8's ordered hash table leaves a hole per deleted entry until it is
 * rehashed, and the iterator walks every hole from the front, up to `capacity` steps an add.
 */
export class RecentIds {
  private readonly ids = new Set<string>();
  private readonly ring: (string | undefined)[];
  private next = 0;

  constructor(private readonly capacity: number) {
    this.ring = new Array<string | undefined>(capacity).fill(undefined);
  }

  has(id: string): boolean {
    return this.ids.has(id);
  }

  /** Adds `id` (not already in) and forgets the oldest once more than `capacity` are kept. */
  add(id: string): void {
    const oldest = this.ring[this.next];
    if (oldest !== undefined) this.ids.delete(oldest);
    this.ring[this.next] = id;
    this.next = (this.next + 1) % this.capacity;
    this.ids.add(id);
  }

  get size(): number {
    return this.ids.size;
  }
}

/**
 * Where the open-slot buckets' heaps of place ids live: every bucket's heap is a region of one
 * Int32Array pool, and each subset's buckets are found by its dense id in another Int32Array.
 * A query then goes from its subset's id to its games through two typed arrays; when buckets
 * were JS objects (the subset's array of heaps, each heap an array with its own backing store)
 * that was four dependent cache misses per query at 100k open games (perf/PROFILE.md).
 *
 * Bucket b = subsetId · (maxPlayers + 1) + open slots. A region is a capacity header followed by
 * the heap's entries; regions come in power-of-two capacities from a free list per capacity,
 * grow by moving to the next capacity, and go back to their free list when the bucket empties.
 * The heap order itself is BucketPlaces' (it owns the keys and the places' heap positions).
 */
export class BucketHeaps {
  /** Per bucket: region offset in the pool (0: none yet), heap length. */
  private buckets: Int32Array;
  /** The regions; offset 0 is never a region, so 0 can mean "none". */
  pool: Int32Array;
  private poolUsed = 1;
  /** Free region offsets by capacity class (capacity MIN_CAPACITY << class). */
  private readonly freeRegions: number[][] = [];
  private readonly freeSubsets: number[] = [];
  private subsetIds = 0;
  /** Buckets per subset: one per open-slot count 0..maxPlayers (0 stays empty). */
  readonly perSubset: number;

  constructor(maxPlayers: number) {
    this.perSubset = maxPlayers + 1;
    this.buckets = new Int32Array(INITIAL_SUBSETS * this.perSubset * 2);
    this.pool = new Int32Array(INITIAL_POOL);
  }

  /** A dense id for a new subset, with empty buckets. */
  newSubset(): number {
    const id = this.freeSubsets.pop() ?? this.subsetIds++;
    if ((id + 1) * this.perSubset * 2 > this.buckets.length) {
      const buckets = new Int32Array(this.buckets.length * 2);
      buckets.set(this.buckets);
      this.buckets = buckets;
    }
    return id;
  }

  /** Gives back the id of a subset whose buckets are all empty. */
  freeSubset(id: number): void {
    for (let slots = 0; slots < this.perSubset; slots++) {
      if (this.length(id * this.perSubset + slots) !== 0) throw new Error(`freed subset ${id} still has places in bucket ${slots}`);
    }
    this.freeSubsets.push(id);
  }

  length(bucket: number): number {
    return this.buckets[2 * bucket + 1] as number;
  }

  /** The pool offset of the bucket's first entry (only meaningful while its length is not 0). */
  base(bucket: number): number {
    return this.buckets[2 * bucket] as number;
  }

  /** Makes room for one more entry and counts it; the pool offset where it goes (pool may have grown). */
  append(bucket: number): number {
    const length = this.buckets[2 * bucket + 1] as number;
    let base = this.buckets[2 * bucket] as number;
    if (base === 0 || length === this.pool[base - 1]) base = this.move(bucket, length);
    this.buckets[2 * bucket + 1] = length + 1;
    return base + length;
  }

  /** Uncounts the last entry; frees the region when the bucket is empty. */
  shrink(bucket: number): void {
    const length = (this.buckets[2 * bucket + 1] as number) - 1;
    this.buckets[2 * bucket + 1] = length;
    if (length !== 0) return;
    const base = this.buckets[2 * bucket] as number;
    this.buckets[2 * bucket] = 0;
    this.freeRegions[classOf(this.pool[base - 1] as number)]!.push(base);
  }

  /** Moves the bucket's entries to a region twice as large (or a first one). */
  private move(bucket: number, length: number): number {
    const old = this.buckets[2 * bucket] as number;
    const capacityClass = old === 0 ? 0 : classOf(this.pool[old - 1] as number) + 1;
    const capacity = MIN_CAPACITY << capacityClass;
    let base = (this.freeRegions[capacityClass] ??= []).pop();
    if (base === undefined) {
      base = this.poolUsed + 1;
      this.poolUsed += capacity + 1;
      if (this.poolUsed > this.pool.length) {
        const pool = new Int32Array(Math.max(this.pool.length * 2, this.poolUsed));
        pool.set(this.pool);
        this.pool = pool;
      }
      this.pool[base - 1] = capacity;
    }
    if (old !== 0) {
      this.pool.copyWithin(base, old, old + length);
      this.freeRegions[capacityClass - 1]!.push(old);
    }
    this.buckets[2 * bucket] = base;
    return base;
  }
}

function classOf(capacity: number): number {
  return 31 - Math.clz32(capacity / MIN_CAPACITY);
}

const MIN_CAPACITY = 4;
const INITIAL_SUBSETS = 256;
const INITIAL_POOL = 4096;

/**
 * Where the open-slot buckets' heaps of place ids live: each subset's buckets are found by its
 * dense id in one Int32Array, a bucket of up to INLINE_ENTRIES places holds them right there,
 * and a bigger one in a region of a second Int32Array, the pool. A selective query (a few games)
 * then goes from its subset's id to its places in one cache line; when buckets were JS objects
 * (the subset's array of heaps, each heap an array with its own backing store) that was four
 * dependent cache misses per query at 100k open games (perf/PROFILE.md).
 *
 * Bucket b = subsetId · maxPlayers + open slots − 1 (so a subset's buckets for 4 seats are 64
 * bytes), four ints: pool offset (0: the entries
 * are inline), length, and two inline entries. A pool region is a capacity header followed by
 * the entries; regions come in power-of-two capacities from a free list per capacity, grow by
 * moving to the next capacity, and the entries move back inline when one is left (not at two,
 * so a bucket moving between two and three places does not move every time). The heap order
 * itself is BucketPlaces' (it owns the keys and the places' heap positions, which are relative
 * to the bucket's first entry, so moving entries keeps them).
 */
export class BucketHeaps {
  /** Per bucket: pool offset (0: inline), length, INLINE_ENTRIES entries. */
  private buckets: Int32Array;
  /** The regions; offset 0 is never a region, so 0 can mean "none". */
  private pool: Int32Array;
  private poolUsed = 1;
  /** Free region offsets by capacity class (capacity MIN_CAPACITY << class). */
  private readonly freeRegions: number[][] = [];
  private readonly freeSubsets: number[] = [];
  private subsetIds = 0;
  /** Buckets per subset: one per open-slot count 1..maxPlayers. */
  private readonly perSubset: number;

  constructor(maxPlayers: number) {
    this.perSubset = maxPlayers;
    this.buckets = new Int32Array(INITIAL_SUBSETS * this.perSubset * BUCKET);
    this.pool = new Int32Array(INITIAL_POOL);
  }

  /** A dense id for a new subset, with empty buckets. */
  newSubset(): number {
    const id = this.freeSubsets.pop() ?? this.subsetIds++;
    if ((id + 1) * this.perSubset * BUCKET > this.buckets.length) {
      const buckets = new Int32Array(this.buckets.length * 2);
      buckets.set(this.buckets);
      this.buckets = buckets;
    }
    return id;
  }

  /** Gives back the id of a subset whose buckets are all empty. */
  freeSubset(id: number): void {
    for (let slots = 1; slots <= this.perSubset; slots++) {
      if (this.length(this.bucket(id, slots)) !== 0) throw new Error(`freed subset ${id} still has places in bucket ${slots}`);
    }
    this.freeSubsets.push(id);
  }

  /** The bucket of subset `id` for games with `slots` (1..maxPlayers) open slots. */
  bucket(id: number, slots: number): number {
    return id * this.perSubset + slots - 1;
  }

  length(bucket: number): number {
    return this.buckets[bucket * BUCKET + LENGTH] as number;
  }

  /** The array holding the bucket's entries now (changes when append or shrink moves them). */
  storage(bucket: number): Int32Array {
    return this.buckets[bucket * BUCKET + OFFSET] === 0 ? this.buckets : this.pool;
  }

  /** The index in storage(bucket) of the bucket's first entry. */
  base(bucket: number): number {
    const offset = this.buckets[bucket * BUCKET + OFFSET] as number;
    return offset === 0 ? bucket * BUCKET + INLINE : offset;
  }

  /**
   * Makes room for one more entry at the end and counts it; its position (the old length).
   * Read storage() and base() after: the entries may have moved.
   */
  append(bucket: number): number {
    const length = this.buckets[bucket * BUCKET + LENGTH] as number;
    const offset = this.buckets[bucket * BUCKET + OFFSET] as number;
    if (offset === 0 ? length === INLINE_ENTRIES : length === this.pool[offset - 1]) this.move(bucket, offset, length);
    this.buckets[bucket * BUCKET + LENGTH] = length + 1;
    return length;
  }

  /** Uncounts the last entry; moves the rest back inline when one is left. */
  shrink(bucket: number): void {
    const length = (this.buckets[bucket * BUCKET + LENGTH] as number) - 1;
    this.buckets[bucket * BUCKET + LENGTH] = length;
    const offset = this.buckets[bucket * BUCKET + OFFSET] as number;
    if (offset === 0 || length > 1) return;
    this.buckets[bucket * BUCKET + INLINE] = this.pool[offset] as number;
    this.buckets[bucket * BUCKET + OFFSET] = 0;
    this.freeRegions[classOf(this.pool[offset - 1] as number)]!.push(offset);
  }

  /** Moves a full bucket's entries to a region twice as large (the first from inline). */
  private move(bucket: number, old: number, length: number): void {
    const capacityClass = old === 0 ? 0 : classOf(this.pool[old - 1] as number) + 1;
    const capacity = MIN_CAPACITY << capacityClass;
    let offset = (this.freeRegions[capacityClass] ??= []).pop();
    if (offset === undefined) {
      offset = this.poolUsed + 1;
      this.poolUsed += capacity + 1;
      if (this.poolUsed > this.pool.length) {
        const pool = new Int32Array(Math.max(this.pool.length * 2, this.poolUsed));
        pool.set(this.pool);
        this.pool = pool;
      }
      this.pool[offset - 1] = capacity;
    }
    if (old === 0) {
      this.pool.set(this.buckets.subarray(bucket * BUCKET + INLINE, bucket * BUCKET + INLINE + length), offset);
    } else {
      this.pool.copyWithin(offset, old, old + length);
      this.freeRegions[capacityClass - 1]!.push(old);
    }
    this.buckets[bucket * BUCKET + OFFSET] = offset;
  }
}

function classOf(capacity: number): number {
  return 31 - Math.clz32(capacity / MIN_CAPACITY);
}

/** Bucket record: pool offset, length, inline entries. */
const OFFSET = 0;
const LENGTH = 1;
const INLINE = 2;
const INLINE_ENTRIES = 2;
const BUCKET = INLINE + INLINE_ENTRIES;
const MIN_CAPACITY = 4;
const INITIAL_SUBSETS = 256;
const INITIAL_POOL = 4096;

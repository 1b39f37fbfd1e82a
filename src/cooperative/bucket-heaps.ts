import { SingleTable } from './single-table.js';

/**
 * Where the open-slot buckets' heaps of place ids live: each subset's buckets are found by its
 * dense id in one Int32Array, a bucket of up to INLINE_ENTRIES places holds them right there,
 * and a bigger one in a region of a second Int32Array, the pool. A selective query (a few games)
 * then goes from its subset's id to its places in one cache line; when buckets were JS objects
 * (the subset's array of heaps, each heap an array with its own backing store) that was four
 * dependent cache misses per query at 100k open games (perf/PROFILE.md).
 *
 * A one-attribute subset's records are in its slot of the single-attribute table instead (the
 * table and the slot of each subset id are BucketHeaps' `singles`), so a selective query reads
 * its subset and its places in one slot; locate() says where a bucket's record is.
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
  /** The one-attribute subsets, whose bucket records live in their table slots. */
  readonly singles: SingleTable;
  /** Where locate() found the last bucket's record. */
  private records: Int32Array;
  private at = 0;

  constructor(maxPlayers: number) {
    this.perSubset = maxPlayers;
    this.singles = new SingleTable(maxPlayers * BUCKET);
    this.buckets = new Int32Array(INITIAL_SUBSETS * this.perSubset * BUCKET);
    this.pool = new Int32Array(INITIAL_POOL);
    this.records = this.buckets;
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

  /**
   * Points `records` and `at` at the bucket's record: in the subset's row of `buckets`, or for a
   * one-attribute subset in its slot of the single-attribute table (so a selective query finds
   * its subset and its buckets in one cache line). Every method below locates first.
   */
  locate(bucket: number): void {
    const id = (bucket / this.perSubset) | 0;
    const slot = this.singles.slotOf(id);
    if (slot < 0) {
      this.records = this.buckets;
      this.at = bucket * BUCKET;
    } else {
      this.records = this.singles.slots;
      this.at = this.singles.bucketsAt(slot) + (bucket - id * this.perSubset) * BUCKET;
    }
  }

  /** locate() for a one-attribute subset's bucket, from its table slot (no id -> slot look-up). */
  locateInSlot(slot: number, slots: number): void {
    this.records = this.singles.slots;
    this.at = this.singles.bucketsAt(slot) + (slots - 1) * BUCKET;
  }

  /** The located bucket's length, entries' array and first entry's index in it. */
  locatedLength(): number {
    return this.records[this.at + LENGTH] as number;
  }

  locatedStorage(): Int32Array {
    return this.records[this.at + OFFSET] === 0 ? this.records : this.pool;
  }

  locatedBase(): number {
    const offset = this.records[this.at + OFFSET] as number;
    return offset === 0 ? this.at + INLINE : offset;
  }

  length(bucket: number): number {
    this.locate(bucket);
    return this.locatedLength();
  }

  /** The array holding the bucket's entries now (changes when append or shrink moves them). */
  storage(bucket: number): Int32Array {
    this.locate(bucket);
    return this.locatedStorage();
  }

  /** The index in storage(bucket) of the bucket's first entry. */
  base(bucket: number): number {
    this.locate(bucket);
    return this.locatedBase();
  }

  /**
   * Makes room for one more entry at the end and counts it; its position (the old length).
   * Read storage() and base() after: the entries may have moved.
   */
  append(bucket: number): number {
    this.locate(bucket);
    const records = this.records;
    const at = this.at;
    const length = records[at + LENGTH] as number;
    const offset = records[at + OFFSET] as number;
    if (offset === 0 ? length === INLINE_ENTRIES : length === this.pool[offset - 1]) this.move(records, at, offset, length);
    records[at + LENGTH] = length + 1;
    return length;
  }

  /** Uncounts the last entry; moves the rest back inline when one is left. */
  shrink(bucket: number): void {
    this.locate(bucket);
    const records = this.records;
    const at = this.at;
    const length = (records[at + LENGTH] as number) - 1;
    records[at + LENGTH] = length;
    const offset = records[at + OFFSET] as number;
    if (offset === 0 || length > 1) return;
    records[at + INLINE] = this.pool[offset] as number;
    records[at + OFFSET] = 0;
    this.freeRegions[classOf(this.pool[offset - 1] as number)]!.push(offset);
  }

  /** Moves a full bucket's entries to a region twice as large (the first from inline). */
  private move(records: Int32Array, at: number, old: number, length: number): void {
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
      this.pool.set(records.subarray(at + INLINE, at + INLINE + length), offset);
    } else {
      this.pool.copyWithin(offset, old, old + length);
      this.freeRegions[capacityClass - 1]!.push(old);
    }
    records[at + OFFSET] = offset;
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
/** Int32 entries per bucket record. */
export const BUCKET = INLINE + INLINE_ENTRIES;
const MIN_CAPACITY = 4;
const INITIAL_SUBSETS = 256;
const INITIAL_POOL = 4096;

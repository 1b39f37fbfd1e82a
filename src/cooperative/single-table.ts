/**
 * The one-attribute subsets by (matchable position, value): an open-addressing table in one
 * Int32Array, so a selective query (one attribute) finds its subset's id in one cache line. A
 * V8 Map of strings took three dependent misses at 100k open games (bucket, entry, then the
 * value object) before the query even reached its buckets (perf/PROFILE.md).
 *
 * Slots hold (hash, subset id + 1, position, value length) and a value of up to INLINE_UNITS
 * UTF-16 units itself, then the subset's bucket records (BucketHeaps keeps them here for these
 * subsets, so the query's next read is in the same slot). Linear probing, deletion by backward
 * shift (no tombstones, so a game toggling an attribute never lengthens probes). A short value
 * is compared in the slot; a longer one with the string kept by subset id (one more miss).
 * Slots move (resize, backward shift), so the slot of each subset id is kept in `slotOfId`.
 */
export class SingleTable {
  /** The slots; BucketHeaps reads and writes the bucket records in them. */
  slots: Int32Array;
  private mask = INITIAL_SLOTS - 1;
  private count = 0;
  /** Int32 entries per slot: the header, then `bucketInts` of bucket records. */
  private readonly stride: number;
  /** The value of each subset id in the table (ids not in it hold stale or no values). */
  private readonly values: string[] = [];
  /** Subset id -> its slot + 1 (0: not a one-attribute subset in the table). */
  private slotOfId = new Int32Array(256);

  /** `bucketInts`: the Int32 entries of one subset's bucket records, kept in its slot. */
  constructor(bucketInts: number) {
    this.stride = HEADER + bucketInts;
    this.slots = new Int32Array(INITIAL_SLOTS * this.stride);
  }

  /** The slot of the one-attribute subset (position, value), or -1. */
  get(position: number, value: string): number {
    const hash = hashOf(position, value);
    const slots = this.slots;
    const stride = this.stride;
    for (let i = hash & this.mask; ; i = (i + 1) & this.mask) {
      const id = (slots[i * stride + ID] as number) - 1;
      if (id < 0) return -1;
      if (slots[i * stride + HASH] === hash && slots[i * stride + POSITION] === position && this.holds(i, id, value)) return i;
    }
  }

  /** The subset id in a slot that get() returned. */
  idAt(slot: number): number {
    return (this.slots[slot * this.stride + ID] as number) - 1;
  }

  /** The slot of subset `id`, or -1 when it is not a one-attribute subset. */
  slotOf(id: number): number {
    return id < this.slotOfId.length ? (this.slotOfId[id] as number) - 1 : -1;
  }

  /** Index in `slots` of the first bucket record of the subset in `slot`. */
  bucketsAt(slot: number): number {
    return slot * this.stride + HEADER;
  }

  /** True when slot i (of subset `id`) has this value. */
  private holds(i: number, id: number, value: string): boolean {
    const length = value.length;
    if (length > INLINE_UNITS) return this.values[id] === value;
    const slots = this.slots;
    if (slots[i * this.stride + LENGTH] !== length) return false;
    const units = i * this.stride + UNITS;
    for (let u = 0; u < length; u += 2) {
      if (slots[units + (u >> 1)] !== unitPair(value, u)) return false;
    }
    return true;
  }

  /** Adds a subset that is not in the table, with empty buckets. */
  add(position: number, value: string, id: number): void {
    if (2 * (this.count + 1) > this.mask + 1) this.resize(2 * (this.mask + 1));
    this.values[id] = value;
    const i = this.insert(hashOf(position, value), id, position);
    const stride = this.stride;
    this.slots.fill(0, i * stride + LENGTH, (i + 1) * stride);
    this.slots[i * stride + LENGTH] = value.length;
    if (value.length <= INLINE_UNITS) {
      for (let u = 0; u < value.length; u += 2) this.slots[i * stride + UNITS + (u >> 1)] = unitPair(value, u);
    }
    this.count++;
  }

  /** Removes a subset that is in the table (its buckets empty). */
  delete(position: number, value: string): void {
    const slots = this.slots;
    const mask = this.mask;
    const stride = this.stride;
    let i = hashOf(position, value) & mask;
    while (this.values[(slots[i * stride + ID] as number) - 1] !== value || slots[i * stride + POSITION] !== position) {
      if (slots[i * stride + ID] === 0) throw new Error(`single-attribute subset ${position}=${value} is not in the table`);
      i = (i + 1) & mask;
    }
    this.slotOfId[(slots[i * stride + ID] as number) - 1] = 0;
    // Backward shift: move later entries of the probe run into the hole when their home allows.
    for (let j = (i + 1) & mask; slots[j * stride + ID] !== 0; j = (j + 1) & mask) {
      const home = (slots[j * stride + HASH] as number) & mask;
      const between = i <= j ? i < home && home <= j : i < home || home <= j;
      if (between) continue;
      slots.copyWithin(i * stride, j * stride, (j + 1) * stride);
      this.slotOfId[(slots[i * stride + ID] as number) - 1] = i + 1;
      i = j;
    }
    slots.fill(0, i * stride, (i + 1) * stride);
    this.count--;
  }

  /** Claims a free slot for the hash's probe run, with its hash, id and position; its index. */
  private insert(hash: number, id: number, position: number): number {
    const slots = this.slots;
    const stride = this.stride;
    let i = hash & this.mask;
    while (slots[i * stride + ID] !== 0) i = (i + 1) & this.mask;
    slots[i * stride + HASH] = hash;
    slots[i * stride + ID] = id + 1;
    slots[i * stride + POSITION] = position;
    if (id >= this.slotOfId.length) {
      const slotOfId = new Int32Array(Math.max(2 * this.slotOfId.length, id + 1));
      slotOfId.set(this.slotOfId);
      this.slotOfId = slotOfId;
    }
    this.slotOfId[id] = i + 1;
    return i;
  }

  private resize(capacity: number): void {
    const old = this.slots;
    const stride = this.stride;
    this.slots = new Int32Array(capacity * stride);
    this.mask = capacity - 1;
    for (let o = 0; o < old.length; o += stride) {
      if (old[o + ID] === 0) continue;
      const i = this.insert(old[o + HASH] as number, (old[o + ID] as number) - 1, old[o + POSITION] as number);
      this.slots.set(old.subarray(o + LENGTH, o + stride), i * stride + LENGTH);
    }
  }
}

/** FNV-1a over the value's UTF-16 units, seeded by the position, then mixed so the low bits spread. */
export function hashOf(position: number, value: string): number {
  let hash = 0x811c9dc5 ^ position;
  for (let i = 0; i < value.length; i++) hash = Math.imul(hash ^ value.charCodeAt(i), 0x01000193);
  hash ^= hash >>> 15;
  hash = Math.imul(hash, 0x2c1b3c6d);
  return (hash ^ (hash >>> 12)) | 0;
}

/** Two UTF-16 units of the value from u on as one int (the second 0 past the end). */
function unitPair(value: string, u: number): number {
  return value.charCodeAt(u) | (u + 1 < value.length ? value.charCodeAt(u + 1) << 16 : 0);
}

const HASH = 0;
const ID = 1;
const POSITION = 2;
const LENGTH = 3;
/** The value's units, two per int, when it has at most INLINE_UNITS of them. */
const UNITS = 4;
const INLINE_UNITS = 8;
/** Int32 entries before a slot's bucket records. */
const HEADER = 8;
const INITIAL_SLOTS = 64;

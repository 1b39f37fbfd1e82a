/**
 * The one-attribute subsets by (matchable position, value): an open-addressing table in one
 * Int32Array, so a selective query (one attribute) finds its subset's id in one cache line. A
 * V8 Map of strings took three dependent misses at 100k open games (bucket, entry, then the
 * value object) before the query even reached its buckets (perf/PROFILE.md).
 *
 * Slots hold (hash, subset id + 1, position), linear probing, deletion by backward shift (no
 * tombstones, so a game toggling an attribute never lengthens probes). The value itself is
 * compared with the one kept by subset id; the CPU fetches it alongside the buckets that follow.
 */
export class SingleTable {
  private slots = new Int32Array(INITIAL_SLOTS * STRIDE);
  private mask = INITIAL_SLOTS - 1;
  private count = 0;
  /** The value of each subset id in the table (ids not in it hold stale or no values). */
  private readonly values: string[] = [];

  /** The subset id of the one-attribute subset (position, value), or -1. */
  get(position: number, value: string): number {
    const hash = hashOf(position, value);
    const slots = this.slots;
    for (let i = hash & this.mask; ; i = (i + 1) & this.mask) {
      const id = (slots[i * STRIDE + ID] as number) - 1;
      if (id < 0) return -1;
      if (slots[i * STRIDE + HASH] === hash && slots[i * STRIDE + POSITION] === position && this.values[id] === value) return id;
    }
  }

  /** Adds a subset that is not in the table. */
  add(position: number, value: string, id: number): void {
    if (2 * (this.count + 1) > this.mask + 1) this.resize(2 * (this.mask + 1));
    this.values[id] = value;
    this.insert(hashOf(position, value), id, position);
    this.count++;
  }

  /** Removes a subset that is in the table. */
  delete(position: number, value: string): void {
    const slots = this.slots;
    const mask = this.mask;
    let i = hashOf(position, value) & mask;
    while (this.values[(slots[i * STRIDE + ID] as number) - 1] !== value || slots[i * STRIDE + POSITION] !== position) {
      if (slots[i * STRIDE + ID] === 0) throw new Error(`single-attribute subset ${position}=${value} is not in the table`);
      i = (i + 1) & mask;
    }
    // Backward shift: move later entries of the probe run into the hole when their home allows.
    for (let j = (i + 1) & mask; slots[j * STRIDE + ID] !== 0; j = (j + 1) & mask) {
      const home = (slots[j * STRIDE + HASH] as number) & mask;
      const between = i <= j ? i < home && home <= j : i < home || home <= j;
      if (between) continue;
      slots.copyWithin(i * STRIDE, j * STRIDE, (j + 1) * STRIDE);
      i = j;
    }
    slots.fill(0, i * STRIDE, (i + 1) * STRIDE);
    this.count--;
  }

  private insert(hash: number, id: number, position: number): void {
    const slots = this.slots;
    let i = hash & this.mask;
    while (slots[i * STRIDE + ID] !== 0) i = (i + 1) & this.mask;
    slots[i * STRIDE + HASH] = hash;
    slots[i * STRIDE + ID] = id + 1;
    slots[i * STRIDE + POSITION] = position;
  }

  private resize(capacity: number): void {
    const old = this.slots;
    this.slots = new Int32Array(capacity * STRIDE);
    this.mask = capacity - 1;
    for (let i = 0; i < old.length; i += STRIDE) {
      if (old[i + ID] !== 0) this.insert(old[i + HASH] as number, (old[i + ID] as number) - 1, old[i + POSITION] as number);
    }
  }
}

/** FNV-1a over the value's UTF-16 units, seeded by the position, then mixed so the low bits spread. */
function hashOf(position: number, value: string): number {
  let hash = 0x811c9dc5 ^ position;
  for (let i = 0; i < value.length; i++) hash = Math.imul(hash ^ value.charCodeAt(i), 0x01000193);
  hash ^= hash >>> 15;
  hash = Math.imul(hash, 0x2c1b3c6d);
  return (hash ^ (hash >>> 12)) | 0;
}

const HASH = 0;
const ID = 1;
const POSITION = 2;
/** Int32 entries per slot (the fourth keeps slots aligned, four to a cache line). */
const STRIDE = 4;
const INITIAL_SLOTS = 64;

import { BucketHeaps } from './bucket-heaps.js';
import type { GameRecord } from './game-record.js';

/**
 * Every place of every game in the open-slot buckets, and the games by a dense index, in typed
 * arrays. The buckets' heaps hold place ids (small integers in packed arrays), so ordering a heap
 * and checking whether a place is stale read these arrays only, never a game or an item object.
 * At 100k open games heaps of item objects (item → game → fields) were a chain of dependent cache
 * misses per query and ~2M objects for the GC to mark (perf/PROFILE.md).
 *
 * A game with dense index g owns the place ids g·P … g·P + P − 1, PLACES_PER_SUBSET of them per
 * subset position, so a place names its game and subset by arithmetic: telling a stale place
 * from a live one reads the game's block only (its bucket), one cache miss per place scanned
 * instead of two (the place's record, then the game's bucket). A game's block holds its start
 * time (the heap key), its bucket now, and per subset the bitmask of the buckets where it has a
 * place and the subset's id in BucketHeaps (so moving a game reads no subset object); a place's
 * record, its heap position and its bucket (0: free). The heaps themselves are in BucketHeaps.
 */
export class BucketPlaces {
  /** Dense game index -> game; a freed index holds undefined until reused. */
  readonly games: (GameRecord | undefined)[] = [];
  /** Place ids a game owns: PLACES_PER_SUBSET per subset position. */
  readonly perGame: number;
  /** The buckets' heaps of place ids. */
  readonly heaps: BucketHeaps;
  /**
   * Int32 entries per game block: start time (two), bucket, one bitmask per subset, one subset id
   * per subset; even, for the start's alignment.
   */
  private readonly stride: number;
  private gameInts: Int32Array;
  private gameF64: Float64Array;
  /** Per place id: heap position, bucket (0: the place is free). */
  private placeInts: Int32Array;
  private readonly freeGames: number[] = [];

  constructor(
    private readonly subsetsPerGame: number,
    maxPlayers: number,
  ) {
    this.heaps = new BucketHeaps(maxPlayers);
    this.perGame = subsetsPerGame * PLACES_PER_SUBSET;
    this.stride = 2 * Math.ceil((3 + 2 * subsetsPerGame) / 2);
    this.gameInts = new Int32Array(INITIAL * this.stride);
    this.gameF64 = new Float64Array(this.gameInts.buffer);
    this.placeInts = new Int32Array(INITIAL * this.perGame * 2);
  }

  /** The bucket game `index` belongs in now (0: closed or full). */
  slotsOf(index: number): number {
    return this.gameInts[index * this.stride + SLOTS] as number;
  }

  setSlots(game: GameRecord, slots: number): void {
    this.gameInts[game.denseIndex * this.stride + SLOTS] = slots;
  }

  /** Bitmask of the buckets where the game has a place under subset position `subset`. */
  present(game: GameRecord, subset: number): number {
    return this.gameInts[game.denseIndex * this.stride + PRESENT + subset] as number;
  }

  /** The BucketHeaps bucket of the game's subset position `subset` for `slots` open slots. */
  bucketOf(game: GameRecord, subset: number, slots: number): number {
    const id = this.gameInts[game.denseIndex * this.stride + PRESENT + this.subsetsPerGame + subset] as number;
    return this.heaps.bucket(id, slots);
  }

  private setPresent(game: GameRecord, subset: number, mask: number): void {
    this.gameInts[game.denseIndex * this.stride + PRESENT + subset] = mask;
  }

  gameOf(place: number): number {
    return Math.floor(place / this.perGame);
  }

  subsetOf(place: number): number {
    return Math.floor((place % this.perGame) / PLACES_PER_SUBSET);
  }

  /** The bucket a place is in (0: a free place id). */
  slotsOfPlace(place: number): number {
    return this.placeInts[2 * place + BUCKET] as number;
  }

  /** The first of the place ids of `game` under subset position `subset`. */
  firstPlace(game: GameRecord, subset: number): number {
    return game.denseIndex * this.perGame + subset * PLACES_PER_SUBSET;
  }

  /** Gives the game a dense index (it had none), with no places, under subsets of these BucketHeaps ids. */
  enter(game: GameRecord, subsetIds: readonly number[]): void {
    let index = this.freeGames.pop();
    if (index === undefined) {
      index = this.games.length;
      this.games.push(game);
      if ((index + 1) * this.stride > this.gameInts.length) this.grow();
    } else {
      this.games[index] = game;
    }
    game.denseIndex = index;
    const base = index * this.stride;
    this.gameInts.fill(0, base, base + this.stride);
    this.gameF64[base / 2] = game.startedAt;
    const ids = base + PRESENT + this.subsetsPerGame;
    for (let s = 0; s < subsetIds.length; s++) this.gameInts[ids + s] = subsetIds[s] as number;
    this.placeInts.fill(0, 2 * index * this.perGame, 2 * (index + 1) * this.perGame);
  }

  /** Frees the game's dense index; it holds no places any more. */
  leave(game: GameRecord): void {
    this.games[game.denseIndex] = undefined;
    this.freeGames.push(game.denseIndex);
    game.denseIndex = -1;
  }

  /**
   * A free place id of `game` under `subset` for the bucket `slots`, marked present there; -1 when
   * all PLACES_PER_SUBSET are taken (the caller drops a stale one first).
   */
  newPlace(game: GameRecord, subset: number, slots: number): number {
    const first = this.firstPlace(game, subset);
    for (let place = first; place < first + PLACES_PER_SUBSET; place++) {
      if (this.placeInts[2 * place + BUCKET] !== 0) continue;
      this.placeInts[2 * place + BUCKET] = slots;
      this.placeInts[2 * place + POSITION] = -1;
      this.setPresent(game, subset, this.present(game, subset) | (1 << slots));
      return place;
    }
    return -1;
  }

  /** Frees a place (the caller took it out of its heap) and clears its bucket's present bit. */
  free(game: GameRecord, place: number): void {
    const subset = this.subsetOf(place);
    this.setPresent(game, subset, this.present(game, subset) & ~(1 << this.slotsOfPlace(place)));
    this.placeInts[2 * place + BUCKET] = 0;
  }

  /** True when place a must come out of its heap before b: newer game first, then smaller game id. */
  before(a: number, b: number): boolean {
    const ga = this.gameOf(a);
    const gb = this.gameOf(b);
    const sa = this.gameF64[(ga * this.stride) / 2] as number;
    const sb = this.gameF64[(gb * this.stride) / 2] as number;
    if (sa !== sb) return sa > sb;
    return (this.games[ga] as GameRecord).gameId < (this.games[gb] as GameRecord).gameId;
  }

  /** Puts a place into the heap of `bucket` (BucketHeaps numbering). */
  push(bucket: number, place: number): void {
    const at = this.heaps.append(bucket);
    this.siftUp(this.heaps.storage(bucket), this.heaps.base(bucket), at, place);
  }

  /** Takes a place out of the heap of `bucket`. */
  remove(bucket: number, place: number): void {
    const heaps = this.heaps;
    const storage = heaps.storage(bucket);
    const base = heaps.base(bucket);
    const at = this.placeInts[2 * place + POSITION] as number;
    const length = heaps.length(bucket);
    if (at < 0 || at >= length || storage[base + at] !== place) throw new Error('bucket place is not in this heap');
    const last = storage[base + length - 1] as number;
    this.placeInts[2 * place + POSITION] = -1;
    if (last !== place) {
      storage[base + at] = last;
      this.siftUp(storage, base, at, last);
      this.siftDown(storage, base, length - 1, this.placeInts[2 * last + POSITION] as number, last);
    }
    // Last: the entries left may move back inline.
    heaps.shrink(bucket);
  }

  /** The places in the heap of `bucket`, in heap order (tests and invariant checks). */
  heapOf(bucket: number): number[] {
    const storage = this.heaps.storage(bucket);
    const base = this.heaps.base(bucket);
    return Array.from({ length: this.heaps.length(bucket) }, (_, i) => storage[base + i] as number);
  }

  /** True when every place's heap position and the heap order agree (tests). */
  isValidHeap(heap: readonly number[]): boolean {
    return heap.every(
      (place, i) => this.placeInts[2 * place + POSITION] === i && (i === 0 || !this.before(place, heap[(i - 1) >> 1] as number)),
    );
  }

  private siftUp(pool: Int32Array, base: number, from: number, place: number): void {
    let at = from;
    while (at > 0) {
      const parentAt = (at - 1) >> 1;
      const parent = pool[base + parentAt] as number;
      if (!this.before(place, parent)) break;
      pool[base + at] = parent;
      this.placeInts[2 * parent + POSITION] = at;
      at = parentAt;
    }
    pool[base + at] = place;
    this.placeInts[2 * place + POSITION] = at;
  }

  private siftDown(pool: Int32Array, base: number, length: number, from: number, place: number): void {
    let at = from;
    for (;;) {
      const left = 2 * at + 1;
      if (left >= length) break;
      let child = left;
      if (left + 1 < length && this.before(pool[base + left + 1] as number, pool[base + left] as number)) child = left + 1;
      const childPlace = pool[base + child] as number;
      if (!this.before(childPlace, place)) break;
      pool[base + at] = childPlace;
      this.placeInts[2 * childPlace + POSITION] = at;
      at = child;
    }
    pool[base + at] = place;
    this.placeInts[2 * place + POSITION] = at;
  }

  private grow(): void {
    const games = this.gameInts.length / this.stride;
    const gameInts = new Int32Array(2 * games * this.stride);
    gameInts.set(this.gameInts);
    this.gameInts = gameInts;
    this.gameF64 = new Float64Array(gameInts.buffer);
    const placeInts = new Int32Array(2 * this.placeInts.length);
    placeInts.set(this.placeInts);
    this.placeInts = placeInts;
  }
}

/**
 * Places a game may hold under one subset (live and stale). A game has at most one live place per
 * subset, so when a subset's are all taken they are all stale and are dropped for the new one.
 */
export const PLACES_PER_SUBSET = 3;
const INITIAL = 1024;
/** Game block: start time at f64 0 (int32 0 and 1), then these int32 entries. */
const SLOTS = 2;
const PRESENT = 3;
/** Place record. */
const POSITION = 0;
const BUCKET = 1;

import type { GameRecord } from './game-record.js';

/**
 * Every place of every game in the open-slot buckets, as 32-byte records in one buffer by place
 * id, and the games by a dense index with their bucket (open slots) in a typed array. The
 * buckets' heaps hold place ids (small integers in packed arrays), so ordering a heap and
 * checking whether its top is stale read these arrays only, never a game or an item object, and
 * one place is one cache line, not one per field. At 100k open games the old heaps of item
 * objects (item → game → fields) were a chain of dependent cache misses per query and ~2M
 * objects for the GC to mark (perf/PROFILE.md).
 *
 * Record of place p: f64[4p] start time of its game (the heap key); i32[8p + 2..] dense index of
 * its game, heap position, position of its subset in the game's `subsets`, bucket (open slots),
 * position in the game's `places`.
 */
export class BucketPlaces {
  /** Dense game index -> game; a freed index holds undefined until reused. */
  readonly games: (GameRecord | undefined)[] = [];
  /** Dense game index -> the bucket the game belongs in now (0: closed or full). */
  slotsOf = new Int32Array(INITIAL);
  private f64 = new Float64Array(INITIAL * 4);
  private i32 = new Int32Array(this.f64.buffer);
  /**
   * Dense game index × subset position -> bitmask of the open-slot buckets where the game has a
   * place under that subset (see OpenGameIndex.place); `subsetsPerGame` entries per game.
   */
  present: Int32Array;
  private readonly freeGames: number[] = [];
  private readonly freePlaces: number[] = [];
  private placeCount = 0;

  constructor(private readonly subsetsPerGame: number) {
    this.present = new Int32Array(INITIAL * subsetsPerGame);
  }

  /** Where the game's bitmasks start in `present`. */
  presentBase(game: GameRecord): number {
    return game.denseIndex * this.subsetsPerGame;
  }

  clearPresent(game: GameRecord): void {
    const base = this.presentBase(game);
    this.present.fill(0, base, base + this.subsetsPerGame);
  }

  gameOf(place: number): number {
    return this.i32[8 * place + GAME] as number;
  }

  subsetOf(place: number): number {
    return this.i32[8 * place + SUBSET] as number;
  }

  slotsOfPlace(place: number): number {
    return this.i32[8 * place + SLOTS] as number;
  }

  /** Gives the game a dense index (it had none). */
  enter(game: GameRecord): void {
    let index = this.freeGames.pop();
    if (index === undefined) {
      index = this.games.length;
      this.games.push(game);
      if (index === this.slotsOf.length) {
        this.slotsOf = grown(this.slotsOf);
        this.present = grown(this.present);
      }
    } else {
      this.games[index] = game;
    }
    game.denseIndex = index;
    this.slotsOf[index] = 0;
    this.clearPresent(game);
  }

  /** Frees the game's dense index; it holds no places any more. */
  leave(game: GameRecord): void {
    this.games[game.denseIndex] = undefined;
    this.freeGames.push(game.denseIndex);
    game.denseIndex = -1;
  }

  /** A new place of `game` under its subset `subset` in the bucket for `slots`, appended to the game's places. */
  newPlace(game: GameRecord, subset: number, slots: number): number {
    let place = this.freePlaces.pop();
    if (place === undefined) {
      place = this.placeCount++;
      if (8 * place === this.i32.length) this.grow();
    }
    const i32 = this.i32;
    this.f64[4 * place] = game.startedAt;
    i32[8 * place + GAME] = game.denseIndex;
    i32[8 * place + POSITION] = -1;
    i32[8 * place + SUBSET] = subset;
    i32[8 * place + SLOTS] = slots;
    i32[8 * place + LIST] = game.places.length;
    game.places.push(place);
    return place;
  }

  /** Takes a place off its game's list and frees its id (the caller took it out of its heap). */
  dropPlace(game: GameRecord, place: number): void {
    const places = game.places;
    const last = places.pop() as number;
    if (last !== place) {
      const at = this.i32[8 * place + LIST] as number;
      places[at] = last;
      this.i32[8 * last + LIST] = at;
    }
    this.freePlaces.push(place);
  }

  /** Frees a place id whose game is dropping all its places at once (the caller clears its list). */
  free(place: number): void {
    this.freePlaces.push(place);
  }

  /** True when place a must come out of its heap before b: newer game first, then smaller game id. */
  before(a: number, b: number): boolean {
    const sa = this.f64[4 * a] as number;
    const sb = this.f64[4 * b] as number;
    if (sa !== sb) return sa > sb;
    return (this.games[this.gameOf(a)] as GameRecord).gameId < (this.games[this.gameOf(b)] as GameRecord).gameId;
  }

  push(heap: number[], place: number): void {
    heap.push(place);
    this.siftUp(heap, heap.length - 1, place);
  }

  remove(heap: number[], place: number): void {
    const at = this.i32[8 * place + POSITION] as number;
    if (heap[at] !== place) throw new Error('bucket place is not in this heap');
    const last = heap.pop() as number;
    this.i32[8 * place + POSITION] = -1;
    if (last === place) return;
    heap[at] = last;
    this.siftUp(heap, at, last);
    this.siftDown(heap, this.i32[8 * last + POSITION] as number, last);
  }

  /** True when every place's heap position and the heap order agree (tests). */
  isValidHeap(heap: readonly number[]): boolean {
    return heap.every((place, i) => this.i32[8 * place + POSITION] === i && (i === 0 || !this.before(place, heap[(i - 1) >> 1] as number)));
  }

  private siftUp(heap: number[], from: number, place: number): void {
    let at = from;
    while (at > 0) {
      const parentAt = (at - 1) >> 1;
      const parent = heap[parentAt] as number;
      if (!this.before(place, parent)) break;
      heap[at] = parent;
      this.i32[8 * parent + POSITION] = at;
      at = parentAt;
    }
    heap[at] = place;
    this.i32[8 * place + POSITION] = at;
  }

  private siftDown(heap: number[], from: number, place: number): void {
    const length = heap.length;
    let at = from;
    for (;;) {
      const left = 2 * at + 1;
      if (left >= length) break;
      let child = left;
      if (left + 1 < length && this.before(heap[left + 1] as number, heap[left] as number)) child = left + 1;
      const childPlace = heap[child] as number;
      if (!this.before(childPlace, place)) break;
      heap[at] = childPlace;
      this.i32[8 * childPlace + POSITION] = at;
      at = child;
    }
    heap[at] = place;
    this.i32[8 * place + POSITION] = at;
  }

  private grow(): void {
    this.f64 = grown(this.f64);
    this.i32 = new Int32Array(this.f64.buffer);
  }
}

const INITIAL = 1024;
const GAME = 2;
const POSITION = 3;
const SUBSET = 4;
const SLOTS = 5;
const LIST = 6;

function grown<T extends Int32Array | Float64Array>(array: T): T {
  const bigger = new (array.constructor as new (length: number) => T)(array.length * 2);
  bigger.set(array);
  return bigger;
}

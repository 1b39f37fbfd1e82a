import type { GameRecord } from './game-record.js';

/**
 * Every place of every game in the open-slot buckets, as a struct of typed arrays by place id,
 * and the games by a dense index with their bucket (open slots) in a typed array. The buckets'
 * heaps hold place ids (small integers in packed arrays), so ordering a heap and checking whether
 * its top is stale read these arrays only, never a game or an item object. At 100k open games
 * the old heaps of item objects (item → game → fields) were a chain of dependent cache misses
 * per query and ~2M objects for the GC to mark (issue 15, perf/PROFILE.md).
 */
export class BucketPlaces {
  /** Dense game index -> game; a freed index holds undefined until reused. */
  readonly games: (GameRecord | undefined)[] = [];
  /** Dense game index -> the bucket the game belongs in now (0: closed or full). */
  slotsOf = new Int32Array(INITIAL);
  /** Place id -> dense index of its game, its start time (the heap key), heap position, etc. */
  game = new Int32Array(INITIAL);
  start = new Float64Array(INITIAL);
  position = new Int32Array(INITIAL);
  /** Position of the subset in its game's `subsets`, the bucket, and the place's position in the game's `places`. */
  subset = new Int32Array(INITIAL);
  slots = new Int32Array(INITIAL);
  listIndex = new Int32Array(INITIAL);
  private readonly freeGames: number[] = [];
  private readonly freePlaces: number[] = [];
  private placeCount = 0;

  /** Gives the game a dense index (it had none). */
  enter(game: GameRecord): void {
    let index = this.freeGames.pop();
    if (index === undefined) {
      index = this.games.length;
      this.games.push(game);
      if (index === this.slotsOf.length) this.slotsOf = grown(this.slotsOf);
    } else {
      this.games[index] = game;
    }
    game.denseIndex = index;
    this.slotsOf[index] = 0;
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
      if (place === this.game.length) this.grow();
    }
    this.game[place] = game.denseIndex;
    this.start[place] = game.startedAt;
    this.subset[place] = subset;
    this.slots[place] = slots;
    this.position[place] = -1;
    this.listIndex[place] = game.places.length;
    game.places.push(place);
    return place;
  }

  /** Takes a place off its game's list and frees its id (the caller took it out of its heap). */
  dropPlace(game: GameRecord, place: number): void {
    const places = game.places;
    const last = places.pop() as number;
    if (last !== place) {
      const at = this.listIndex[place] as number;
      places[at] = last;
      this.listIndex[last] = at;
    }
    this.freePlaces.push(place);
  }

  /** Frees a place id whose game is dropping all its places at once (the caller clears its list). */
  free(place: number): void {
    this.freePlaces.push(place);
  }

  /** True when place a must come out of its heap before b: newer game first, then smaller game id. */
  before(a: number, b: number): boolean {
    const start = this.start;
    const sa = start[a] as number;
    const sb = start[b] as number;
    if (sa !== sb) return sa > sb;
    return (this.games[this.game[a] as number] as GameRecord).gameId < (this.games[this.game[b] as number] as GameRecord).gameId;
  }

  push(heap: number[], place: number): void {
    heap.push(place);
    this.siftUp(heap, heap.length - 1, place);
  }

  remove(heap: number[], place: number): void {
    const at = this.position[place] as number;
    if (heap[at] !== place) throw new Error('bucket place is not in this heap');
    const last = heap.pop() as number;
    this.position[place] = -1;
    if (last === place) return;
    heap[at] = last;
    this.siftUp(heap, at, last);
    this.siftDown(heap, this.position[last] as number, last);
  }

  /** True when every place's heap position and the heap order agree (tests). */
  isValidHeap(heap: readonly number[]): boolean {
    return heap.every((place, i) => this.position[place] === i && (i === 0 || !this.before(place, heap[(i - 1) >> 1] as number)));
  }

  private siftUp(heap: number[], from: number, place: number): void {
    let at = from;
    while (at > 0) {
      const parentAt = (at - 1) >> 1;
      const parent = heap[parentAt] as number;
      if (!this.before(place, parent)) break;
      heap[at] = parent;
      this.position[parent] = at;
      at = parentAt;
    }
    heap[at] = place;
    this.position[place] = at;
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
      this.position[childPlace] = at;
      at = child;
    }
    heap[at] = place;
    this.position[place] = at;
  }

  private grow(): void {
    this.game = grown(this.game);
    this.start = grown(this.start);
    this.position = grown(this.position);
    this.subset = grown(this.subset);
    this.slots = grown(this.slots);
    this.listIndex = grown(this.listIndex);
  }
}

const INITIAL = 1024;

function grown<T extends Int32Array | Float64Array>(array: T): T {
  const bigger = new (array.constructor as new (length: number) => T)(array.length * 2);
  bigger.set(array);
  return bigger;
}

import { BucketPlaces, PLACES_PER_SUBSET } from './bucket-places.js';
import { newerGameFirst, type GameRecord } from './game-record.js';
import type { SingleTable } from './single-table.js';

/**
 * Open games with room, by (subset of matchable attributes, number of open slots), each bucket
 * newest game first (Battle.net talk: "Factories partition the open game list by number of open
 * slots"). A query names one subset, so finding the best game is one hash look-up plus at most
 * maxPlayers bucket peeks, whatever the number of games; moving a game between buckets costs
 * O(2^a log n) for a game with a matchable attributes.
 *
 * A game leaving a bucket for another with room (a seat promised, a player joining) stays in the
 * old bucket's heap, stale (its `indexedSlots` differ), until it surfaces at the top of that
 * heap (dropped by `best`) or comes back (a promise released: nothing to do). Every stale place
 * was pushed once and is popped at most once, so the amortised cost is the same, but a reserve
 * and its release touch only the queried subset's small heap instead of all 2^a heaps, whose big
 * ones (the empty subset holds every game) missed the cache at every level at 100k games (429k/s
 * at 1k open games, 90k/s at 100k). A game that closes or fills leaves every heap at once, and a
 * game holds at most PLACES_PER_SUBSET places per subset (when they are all taken they are all
 * stale, and are dropped), so stale places stay bounded by open games. Places are integers in
 * BucketPlaces' typed arrays, and games have a dense index there while they are entered; each
 * subset has a dense id, and its buckets' heaps are regions of one typed array (BucketHeaps).
 */
export class OpenGameIndex {
  private readonly subsets = new Map<string, OpenSlotBuckets>();
  /**
   * The one-attribute subsets again, by (matchable position, value), with their buckets: a
   * selective query (one attribute) finds its subset in a typed hash table instead of building a
   * subset key and hashing it in the map of every subset (165k keys at 100k games).
   */
  private readonly singles: SingleTable;
  /** Subsets no game has any more, kept until they outnumber the rest (see leave). */
  private unusedSubsets = 0;
  /** Stale places are kept only where the bitmask can say which buckets a game sits in. */
  private readonly lazy: boolean;

  private readonly places: BucketPlaces;

  /** `subsetsPerGame`: 2^(number of matchable keys), the most subsets a game can have. */
  constructor(
    private readonly maxPlayers: number,
    private readonly order: 'fill' | 'spread',
    subsetsPerGame: number,
  ) {
    this.lazy = maxPlayers < PRESENT_BITS;
    this.places = new BucketPlaces(subsetsPerGame, maxPlayers);
    this.singles = this.places.heaps.singles;
  }

  /** Number of distinct attribute subsets among the factory's games. */
  get subsetCount(): number {
    return this.subsets.size;
  }

  /**
   * Gives a game the buckets of every subset of its attributes (keys from
   * SubsetKeys.ofEverySubset), not yet in any bucket. The game holds its subsets' buckets
   * directly, so later moves need no hash look-up and games sharing a subset share one key string.
   */
  enter(game: GameRecord, subsetKeys: readonly string[], pairs: readonly (readonly [number, string])[]): void {
    // map() allocates the array at its final length (push would leave room for 17).
    const subsets = subsetKeys.map((subsetKey, mask) => {
      let subset = this.subsets.get(subsetKey);
      if (subset === undefined) {
        subset = new OpenSlotBuckets(subsetKey, this.places.heaps.newSubset());
        this.subsets.set(subsetKey, subset);
        if (mask !== 0 && (mask & (mask - 1)) === 0) {
          const [position, value] = pairs[31 - Math.clz32(mask)] as readonly [number, string];
          subset.single = position;
          this.singles.add(position, value, subset.id);
          subset.singleValue = value;
        }
      } else if (subset.members === 0) {
        this.unusedSubsets--;
      }
      subset.members++;
      return subset;
    });
    this.places.enter(
      game,
      subsets.map((subset) => subset.id),
    );
    game.subsets = subsets;
    game.subsetCount = subsets.length;
    game.indexedSlots = 0;
  }

  /** Takes a game out entirely (it ended, or its attributes are about to change). */
  leave(game: GameRecord): void {
    this.place(game, 0);
    for (const subset of game.subsets) {
      if (--(subset as OpenSlotBuckets).members === 0) this.unusedSubsets++;
    }
    game.subsets = [];
    game.subsetCount = 0;
    this.places.leave(game);
    // Unused subsets are dropped in sweeps, amortised O(1), not one by one: V8 keeps a deleted
    // Map key's entry in its hash chain until the next rehash, so deleting and re-adding the
    // same key (one game toggling a quest) makes every look-up of it walk a growing chain.
    if (this.unusedSubsets > 64 && this.unusedSubsets * 2 > this.subsets.size) {
      for (const [subsetKey, subset] of this.subsets) {
        if (subset.members !== 0) continue;
        this.subsets.delete(subsetKey);
        if (subset.single >= 0) this.singles.delete(subset.single, subset.singleValue);
        this.places.heaps.freeSubset(subset.id);
      }
      this.unusedSubsets = 0;
    }
  }

  /**
   * Puts the game, under every subset of its attributes, into the bucket for `slots` open
   * slots, or takes it out of every bucket when `slots` is 0 (closed or full games are never
   * matched).
   */
  place(game: GameRecord, slots: number): void {
    if (game.indexedSlots === slots) return;
    const places = this.places;
    game.indexedSlots = slots;
    places.setSlots(game, slots);
    if (slots === 0 || !this.lazy) {
      this.dropPlaces(game, true);
      if (slots === 0) return;
    }
    // Only the bitmasks are read when the game already has its places (a promise released, or a
    // seat promised again): the subsets' objects and heaps are left alone.
    const bit = 1 << slots;
    for (let s = 0; s < game.subsetCount; s++) {
      if (this.lazy && (places.present(game, s) & bit) !== 0) continue;
      let place = places.newPlace(game, s, slots);
      if (place < 0) {
        // Every place of the game under this subset is taken, and none is in this bucket: all
        // are stale.
        this.dropPlaces(game, false);
        place = places.newPlace(game, s, slots);
      }
      places.push(places.bucketOf(game, s, slots), place);
    }
  }

  /** The best open game under a query's subset key with room for a party of `partySize`. */
  best(subsetKey: string, partySize: number): GameRecord | undefined {
    return this.bestIn(this.subsets.get(subsetKey)?.id ?? -1, -1, partySize);
  }

  /** best() for a query of one attribute, the one at `position` of matchableKeys. */
  bestOfOne(position: number, value: string, partySize: number): GameRecord | undefined {
    const slot = this.singles.get(position, value);
    return slot < 0 ? undefined : this.bestIn(this.singles.idAt(slot), slot, partySize);
  }

  /**
   * The best game of subset `id` (-1: no such subset) for a party; `slot` is its slot in the
   * single-attribute table when the caller has it (-1 otherwise).
   */
  private bestIn(id: number, slot: number, partySize: number): GameRecord | undefined {
    if (id < 0 || partySize > this.maxPlayers) return undefined;
    if (this.order === 'fill') {
      for (let slots = partySize; slots <= this.maxPlayers; slots++) {
        const top = this.top(this.places.heaps.bucket(id, slots), slot, slots);
        if (top !== undefined) return top;
      }
    } else {
      for (let slots = this.maxPlayers; slots >= partySize; slots--) {
        const top = this.top(this.places.heaps.bucket(id, slots), slot, slots);
        if (top !== undefined) return top;
      }
    }
    return undefined;
  }

  /** Plain contents for invariant checks: subset key -> open slots -> game ids, best first. */
  contents(): Map<string, Map<number, string[]>> {
    const result = new Map<string, Map<number, string[]>>();
    const places = this.places;
    for (const [subsetKey, subset] of this.subsets) {
      const bySlots = new Map<number, string[]>();
      for (let slots = 1; slots <= this.maxPlayers; slots++) {
        const heap = places.heapOf(places.heaps.bucket(subset.id, slots));
        if (heap.length === 0) continue;
        if (!places.isValidHeap(heap)) throw new Error(`bucket ${subsetKey}/${slots} violates heap order`);
        const live = heap.map((place) => places.games[places.gameOf(place)] as GameRecord).filter((game) => game.indexedSlots === slots);
        if (live.length === 0) continue;
        bySlots.set(slots, live.sort((a, b) => (newerGameFirst(a, b) ? -1 : 1)).map((game) => game.gameId));
      }
      if (bySlots.size > 0) result.set(subsetKey, bySlots);
    }
    return result;
  }

  /** The best game that belongs in a bucket now, dropping stale places above it. */
  private top(bucket: number, slot: number, slots: number): GameRecord | undefined {
    const places = this.places;
    const heaps = places.heaps;
    if (slot < 0) heaps.locate(bucket);
    else heaps.locateInSlot(slot, slots);
    let length = heaps.locatedLength();
    if (length <= SCAN_LIMIT) return length === 0 ? undefined : this.scan(heaps.locatedStorage(), heaps.locatedBase(), length, slots);
    while (length !== 0) {
      const place = heaps.storage(bucket)[heaps.base(bucket)] as number;
      const index = places.gameOf(place);
      if (places.slotsOf(index) === slots) return places.games[index];
      this.dropPlace(places.games[index] as GameRecord, place, bucket);
      length = heaps.length(bucket);
    }
    return undefined;
  }

  /**
   * top() of a small heap without dropping its stale places: the best live place by the heap's
   * own order, so the same game as dropping stale tops until a live one surfaces. A reserve and
   * its release then leave the bucket as it was: the reserved game's place in the next bucket
   * down stays for its next reserve instead of being dropped by every query and pushed back by
   * every reserve. Stale places stay bounded by PLACES_PER_SUBSET per subset per game.
   */
  private scan(pool: Int32Array, base: number, length: number, slots: number): GameRecord | undefined {
    const places = this.places;
    let best = -1;
    for (let i = 0; i < length; i++) {
      const place = pool[base + i] as number;
      if (places.slotsOf(places.gameOf(place)) !== slots) continue;
      if (i === 0) return places.games[places.gameOf(place)];
      if (best < 0 || places.before(place, best)) best = place;
    }
    return best < 0 ? undefined : places.games[places.gameOf(best)];
  }

  /** Takes the game's places out of their heaps: every one, or the stale ones only. */
  private dropPlaces(game: GameRecord, all: boolean): void {
    const places = this.places;
    for (let s = 0; s < game.subsetCount; s++) {
      const first = places.firstPlace(game, s);
      for (let place = first; place < first + PLACES_PER_SUBSET; place++) {
        const slots = places.slotsOfPlace(place);
        if (slots === 0 || (!all && slots === game.indexedSlots)) continue;
        this.dropPlace(game, place, places.bucketOf(game, s, slots));
      }
    }
  }

  /** Takes a place out of its heap and frees it. */
  private dropPlace(game: GameRecord, place: number, bucket: number): void {
    this.places.remove(bucket, place);
    this.places.free(game, place);
  }
}

/** One attribute subset of the open-game index; its buckets are BucketHeaps' under `id`. */
class OpenSlotBuckets {
  /** Games that have this subset, in a bucket or not (closed, full). */
  members = 0;
  /** For a one-attribute subset, its matchable position and value (see OpenGameIndex.singles); else -1. */
  single = -1;
  singleValue = '';

  constructor(
    readonly subsetKey: string,
    readonly id: number,
  ) {}
}

/** Heaps up to this size are scanned by top() rather than cleaned of stale places. */
const SCAN_LIMIT = 8;
/** Open-slot counts the per-subset bitmask can hold; bigger games move eagerly. */
const PRESENT_BITS = 31;

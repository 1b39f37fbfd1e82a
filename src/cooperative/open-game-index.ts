import { IndexedHeap } from '../collections/indexed-heap.js';
import { newerGameFirst, type GameRecord, type SubsetEntry } from './game-record.js';

/**
 * Open games with room, by (subset of matchable attributes, number of open slots), each bucket
 * newest game first (Battle.net talk: "Factories partition the open game list by number of open
 * slots"; issue 3). A query names one subset, so finding the best game is one hash look-up plus
 * at most maxPlayers bucket peeks, whatever the number of games; moving a game between buckets
 * costs O(2^a log n) for a game with a matchable attributes.
 */
export class OpenGameIndex {
  private readonly subsets = new Map<string, OpenSlotBuckets>();
  /** Subsets no game has any more, kept until they outnumber the rest (see leave). */
  private unusedSubsets = 0;

  constructor(
    private readonly maxPlayers: number,
    private readonly order: 'fill' | 'spread',
  ) {}

  /** Number of distinct attribute subsets among the factory's games. */
  get subsetCount(): number {
    return this.subsets.size;
  }

  /**
   * Gives a game one entry per subset of its attributes (keys from SubsetKeys.ofEverySubset),
   * not yet in any bucket. Entries hold their subset's buckets directly, so later moves need
   * no hash look-up and games sharing a subset share one key string.
   */
  enter(game: GameRecord, subsetKeys: readonly string[]): void {
    game.subsetEntries = subsetKeys.map((subsetKey) => {
      let subset = this.subsets.get(subsetKey);
      if (subset === undefined) {
        subset = new OpenSlotBuckets(subsetKey, this.maxPlayers);
        this.subsets.set(subsetKey, subset);
      } else if (subset.members === 0) {
        this.unusedSubsets--;
      }
      subset.members++;
      return { game, subset, slots: 0, heapIndex: -1 };
    });
  }

  /** Takes a game out entirely (it ended, or its attributes are about to change). */
  leave(game: GameRecord): void {
    this.place(game, 0);
    for (const entry of game.subsetEntries) {
      if (--(entry.subset as OpenSlotBuckets).members === 0) this.unusedSubsets++;
    }
    game.subsetEntries = [];
    // Unused subsets are dropped in sweeps, amortised O(1), not one by one: V8 keeps a deleted
    // Map key's entry in its hash chain until the next rehash, so deleting and re-adding the
    // same key (one game toggling a quest) makes every look-up of it walk a growing chain.
    if (this.unusedSubsets > 64 && this.unusedSubsets * 2 > this.subsets.size) {
      for (const [subsetKey, subset] of this.subsets) if (subset.members === 0) this.subsets.delete(subsetKey);
      this.unusedSubsets = 0;
    }
  }

  /**
   * Puts every subset entry of the game into the bucket for `slots` open slots, or takes them
   * out when `slots` is 0 (closed or full games are never matched).
   */
  place(game: GameRecord, slots: number): void {
    for (const entry of game.subsetEntries) {
      if (entry.slots === slots) continue;
      const subset = entry.subset as OpenSlotBuckets;
      if (entry.slots > 0) subset.delete(entry);
      if (slots > 0) subset.add(entry, slots);
    }
  }

  /** The best open game under a query's subset key with room for a party of `partySize`. */
  best(subsetKey: string, partySize: number): GameRecord | undefined {
    const buckets = this.subsets.get(subsetKey);
    if (buckets === undefined || partySize > this.maxPlayers) return undefined;
    const { bySlots } = buckets;
    if (this.order === 'fill') {
      for (let slots = partySize; slots <= this.maxPlayers; slots++) {
        const top = bySlots[slots]?.peek();
        if (top !== undefined) return top.game;
      }
    } else {
      for (let slots = this.maxPlayers; slots >= partySize; slots--) {
        const top = bySlots[slots]?.peek();
        if (top !== undefined) return top.game;
      }
    }
    return undefined;
  }

  /** Plain contents for invariant checks: subset key -> open slots -> game ids, best first. */
  contents(): Map<string, Map<number, string[]>> {
    const result = new Map<string, Map<number, string[]>>();
    for (const [subsetKey, buckets] of this.subsets) {
      const bySlots = new Map<number, string[]>();
      buckets.bySlots.forEach((heap, slots) => {
        if (heap === undefined || heap.size === 0) return;
        if (!heap.isValid()) throw new Error(`bucket ${subsetKey}/${slots} violates heap order`);
        const ids = [...heap].sort((a, b) => (newerGameFirst(a.game, b.game) ? -1 : 1)).map((e) => e.game.gameId);
        bySlots.set(slots, ids);
      });
      if (bySlots.size > 0) result.set(subsetKey, bySlots);
    }
    return result;
  }
}

/** The open games of one attribute subset, one newest-first heap per number of open slots. */
class OpenSlotBuckets {
  /** Index = open slots (1..maxPlayers); created on first use. */
  readonly bySlots: (IndexedHeap<SubsetEntry> | undefined)[];
  /** Games that have this subset, in a bucket or not (closed, full). */
  members = 0;

  constructor(
    readonly subsetKey: string,
    maxPlayers: number,
  ) {
    this.bySlots = new Array<IndexedHeap<SubsetEntry> | undefined>(maxPlayers + 1);
  }

  add(entry: SubsetEntry, slots: number): void {
    let heap = this.bySlots[slots];
    if (heap === undefined) {
      heap = new IndexedHeap<SubsetEntry>(newerEntryFirst);
      this.bySlots[slots] = heap;
    }
    heap.push(entry);
    entry.slots = slots;
  }

  delete(entry: SubsetEntry): void {
    const heap = this.bySlots[entry.slots];
    if (heap === undefined) throw new Error(`open-game bucket ${entry.slots} is missing`);
    heap.remove(entry);
    entry.slots = 0;
  }
}

function newerEntryFirst(a: SubsetEntry, b: SubsetEntry): boolean {
  return newerGameFirst(a.game, b.game);
}

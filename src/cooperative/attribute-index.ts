import type { ValueKey } from '../attributes/attribute-value.js';
import type { GameRecord } from './game-record.js';

/**
 * Every game of the factory (open or closed) by each matchable attribute's value (Battle.net
 * talk, "Dynamic matching": "Index the games list by each attribute"). Stats combine these
 * sets by intersection, union or complement. O(a) per game update.
 */
export class AttributeIndex {
  private readonly byKey = new Map<string, Map<ValueKey, Set<GameRecord>>>();
  /** Values no game has any more, and all values; empty sets are swept, not deleted one by one. */
  private emptySets = 0;
  private sets = 0;

  add(game: GameRecord): void {
    for (const [key, value] of game.attributes) {
      let byValue = this.byKey.get(key);
      if (byValue === undefined) {
        byValue = new Map();
        this.byKey.set(key, byValue);
      }
      let games = byValue.get(value);
      if (games === undefined) {
        games = new Set();
        byValue.set(value, games);
        this.sets++;
      } else if (games.size === 0) {
        this.emptySets--;
      }
      games.add(game);
    }
  }

  delete(game: GameRecord): void {
    for (const [key, value] of game.attributes) {
      const byValue = this.byKey.get(key);
      const games = byValue?.get(value);
      if (byValue === undefined || games === undefined) throw new Error(`attribute index lost ${key}=${value}`);
      games.delete(game);
      if (games.size === 0) this.emptySets++;
    }
    // Same reason as in OpenGameIndex.leave: V8 Maps degrade under delete/re-add of one key.
    if (this.emptySets > 64 && this.emptySets * 2 > this.sets) this.sweep();
  }

  private sweep(): void {
    for (const byValue of this.byKey.values()) {
      for (const [value, games] of byValue) if (games.size === 0) byValue.delete(value);
    }
    this.sets -= this.emptySets;
    this.emptySets = 0;
  }

  /** The games whose attribute `key` has `value` (empty when none). */
  games(key: string, value: ValueKey): ReadonlySet<GameRecord> {
    return this.byKey.get(key)?.get(value) ?? EMPTY;
  }

  /** Plain contents for invariant checks: key -> value -> sorted game ids. */
  contents(): Map<string, Map<ValueKey, string[]>> {
    const result = new Map<string, Map<ValueKey, string[]>>();
    for (const [key, byValue] of this.byKey) {
      const values = new Map<ValueKey, string[]>();
      for (const [value, games] of byValue) if (games.size > 0) values.set(value, [...games].map((g) => g.gameId).sort());
      if (values.size > 0) result.set(key, values);
    }
    return result;
  }
}

const EMPTY: ReadonlySet<GameRecord> = new Set();

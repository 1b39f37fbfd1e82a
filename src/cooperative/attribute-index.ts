import type { ValueKey } from '../attributes/attribute-value.js';
import type { GameRecord } from './game-record.js';

/**
 * Every game of the factory (open or closed) by each matchable attribute's value (Battle.net
 * talk, "Dynamic matching": "Index the games list by each attribute"). Stats combine these
 * sets by intersection, union or complement. O(a) per game update.
 */
export class AttributeIndex {
  private readonly byKey = new Map<string, Map<ValueKey, Set<GameRecord>>>();

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
      if (games.size > 0) continue;
      byValue.delete(value);
      if (byValue.size === 0) this.byKey.delete(key);
    }
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
      for (const [value, games] of byValue) values.set(value, [...games].map((g) => g.gameId).sort());
      result.set(key, values);
    }
    return result;
  }
}

const EMPTY: ReadonlySet<GameRecord> = new Set();

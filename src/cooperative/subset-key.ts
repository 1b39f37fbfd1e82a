import type { AttributeSet, ValueKey } from '../attributes/attribute-value.js';

/**
 * Names a set of (matchable key, value) pairs as one hash key, so that a whole query is one
 * look-up: a game is indexed under the key of every subset of its attributes, and a query,
 * whose missing keys are wildcards, looks up the key of exactly the pairs it gives.
 *
 * Pairs are ordered by the key's position in `matchableKeys` and length-prefixed, because
 * values are opaque strings that may contain any separator.
 */
export class SubsetKeys {
  private readonly positions: ReadonlyMap<string, number>;

  constructor(readonly matchableKeys: readonly string[]) {
    this.positions = new Map(matchableKeys.map((key, i) => [key, i]));
  }

  /** Throws a caller error naming the first key that is not matchable in this factory. */
  validate(attributes: AttributeSet | readonly (readonly [string, ValueKey])[], what: string): void {
    // A Map's keys() iterates without an entry array per key (67 bytes of garbage per query).
    const keys = attributes instanceof Map ? attributes.keys() : (attributes as readonly (readonly [string, ValueKey])[]).map(([key]) => key);
    for (const key of keys) {
      if (!this.positions.has(key)) {
        throw new Error(
          `${what} uses attribute '${key}', which is not a matchable key of this factory ` +
            `(matchable: ${this.matchableKeys.join(', ') || 'none'})`,
        );
      }
    }
  }

  /**
   * The position in matchableKeys of a one-attribute query's key (which it validates), so the
   * open-game index can look the value up directly; undefined for any other query.
   */
  singlePosition(query: AttributeSet): number | undefined {
    if (query.size !== 1) return undefined;
    for (const key of query.keys()) return this.position(key);
    return undefined;
  }

  /**
   * The (position, value) of each of a game's attributes, in matchable order: bit b of a subset
   * index in ofEverySubset is pair b.
   */
  pairsOf(attributes: AttributeSet): [number, ValueKey][] {
    const pairs: [number, ValueKey][] = [];
    for (const [key, value] of attributes) pairs.push([this.position(key), value]);
    return pairs.sort((a, b) => a[0] - b[0]);
  }

  /** The key a query looks up. The empty query (all wildcards) is ''. */
  ofQuery(query: AttributeSet): string {
    if (query.size === 0) return '';
    // One attribute (the common selective query) needs no sort and no scratch arrays.
    if (query.size === 1) for (const [key, value] of query) return part(this.position(key), value);
    const parts: [number, string][] = [];
    for (const [key, value] of query) parts.push([this.position(key), part(this.position(key), value)]);
    parts.sort((a, b) => a[0] - b[0]);
    let subsetKey = '';
    for (const [, p] of parts) subsetKey += p;
    return subsetKey;
  }

  /**
   * The keys of every subset of a game's attributes, indexed by bitmask over its present
   * attributes in matchable order (2^a keys for a present attributes; index 0 is '').
   */
  ofEverySubset(attributes: AttributeSet): string[] {
    const parts: [number, string][] = [];
    for (const [key, value] of attributes) parts.push([this.position(key), part(this.position(key), value)]);
    parts.sort((a, b) => a[0] - b[0]);
    const keys = new Array<string>(1 << parts.length);
    const chosen: string[] = [];
    for (let mask = 0; mask < keys.length; mask++) {
      chosen.length = 0;
      for (let bit = 0; bit < parts.length; bit++) if (mask & (1 << bit)) chosen.push((parts[bit] as [number, string])[1]);
      // join() yields one flat string; concatenation would keep a rope alive as the map key.
      keys[mask] = chosen.join('');
    }
    return keys;
  }

  private position(key: string): number {
    const position = this.positions.get(key);
    if (position === undefined) throw new Error(`attribute '${key}' is not a matchable key of this factory`);
    return position;
  }
}

function part(position: number, value: ValueKey): string {
  return `${position}:${value.length}:${value};`;
}

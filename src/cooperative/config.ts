/** How one cooperative factory matches (Battle.net talk, "Spread players vs Fill up games"). */
export interface CooperativeConfig {
  /** Seats per game, e.g. 4. */
  readonly maxPlayers: number;
  /**
   * fill (default): fewest sufficient open slots first, so games fill up and a player who leaves
   * and re-finds lands back in the same game; spread: most open slots first. D3 started with
   * spread and found most games nearly empty, hence fill as the default.
   */
  readonly order?: 'fill' | 'spread';
  /** The soft attributes queries and games may use; at most MAX_MATCHABLE_KEYS. */
  readonly matchableKeys: readonly string[];
  /** How long seats promised by reserve() are held for players who have not joined yet. */
  readonly reservationMs: number;
}

/**
 * Each game is indexed under every subset of its matchable attributes (2^m entries), so m is
 * kept small enough that an update stays a bounded, cheap amount of work.
 */
export const MAX_MATCHABLE_KEYS = 6;

export interface NormalizedCooperativeConfig {
  readonly maxPlayers: number;
  readonly order: 'fill' | 'spread';
  readonly matchableKeys: readonly string[];
  readonly reservationMs: number;
}

export function normalizeCooperativeConfig(config: CooperativeConfig): NormalizedCooperativeConfig {
  const { maxPlayers, matchableKeys, reservationMs } = config;
  const order = config.order ?? 'fill';
  if (!Number.isInteger(maxPlayers) || maxPlayers < 1) {
    throw new Error(`cooperative config: maxPlayers must be a positive integer, got ${maxPlayers}`);
  }
  if (order !== 'fill' && order !== 'spread') {
    throw new Error(`cooperative config: order must be 'fill' or 'spread', got ${String(order)}`);
  }
  if (matchableKeys.length > MAX_MATCHABLE_KEYS) {
    throw new Error(
      `cooperative config: at most ${MAX_MATCHABLE_KEYS} matchable keys, got ${matchableKeys.length}`,
    );
  }
  if (new Set(matchableKeys).size !== matchableKeys.length) {
    throw new Error(`cooperative config: matchable keys must be distinct: ${matchableKeys.join(', ')}`);
  }
  if (!Number.isFinite(reservationMs) || reservationMs < 0) {
    throw new Error(`cooperative config: reservationMs must be a non-negative number, got ${reservationMs}`);
  }
  return { maxPlayers, order, matchableKeys: [...matchableKeys], reservationMs };
}

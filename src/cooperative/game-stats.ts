import type { AttributeIndex } from './attribute-index.js';
import type { GameRecord } from './game-record.js';
import { accumulate, emptyAggregate, type GameAggregate, type GameTotals } from './game-totals.js';
import type { CooperativeStats, StatsPredicate } from './types.js';

/**
 * Stats under match-all, match-any and match-none (Battle.net talk, "Indexed stats too").
 * Costs: 'all' O(smallest predicate set), 'any' O(union), 'none' O(union) for the sums (totals
 * minus the union) plus a best-first walk of the start-time heaps past the union's members for
 * min/max duration. No predicates means no filter: every game, from the maintained totals.
 */
export function gameStats(
  predicates: readonly StatsPredicate[],
  mode: 'all' | 'any' | 'none',
  now: number,
  index: AttributeIndex,
  totals: GameTotals,
  maxPlayers: number,
): CooperativeStats {
  if (predicates.length === 0) {
    return toStats(totals.aggregate, now, totals.epoch, totals.newestFirst.peek()?.game, totals.oldestFirst.peek()?.game);
  }
  const sets = predicates.map(([key, value]) => index.games(key, value));
  const aggregate = emptyAggregate(maxPlayers);
  let newest: GameRecord | undefined;
  let oldest: GameRecord | undefined;
  const add = (game: GameRecord): void => {
    accumulate(aggregate, game, 1, maxPlayers, totals.epoch);
    if (newest === undefined || game.startedAt > newest.startedAt) newest = game;
    if (oldest === undefined || game.startedAt < oldest.startedAt) oldest = game;
  };

  if (mode === 'all') {
    const [smallest, ...others] = [...sets].sort((a, b) => a.size - b.size);
    for (const game of smallest ?? []) if (others.every((set) => set.has(game))) add(game);
    return toStats(aggregate, now, totals.epoch, newest, oldest);
  }

  const union = unionOf(sets);
  for (const game of union) add(game);
  if (mode === 'any') return toStats(aggregate, now, totals.epoch, newest, oldest);

  const complement = emptyAggregate(maxPlayers);
  const all = totals.aggregate;
  complement.games = all.games - aggregate.games;
  complement.openGames = all.openGames - aggregate.openGames;
  complement.players = all.players - aggregate.players;
  complement.openSlots = all.openSlots - aggregate.openSlots;
  complement.startSinceEpochSum = all.startSinceEpochSum - aggregate.startSinceEpochSum;
  all.openGamesByOpenSlots.forEach((count, i) => {
    complement.openGamesByOpenSlots[i] = count - (aggregate.openGamesByOpenSlots[i] ?? 0);
  });
  const outside = (entry: { game: GameRecord }): boolean => !union.has(entry.game);
  return toStats(
    complement,
    now,
    totals.epoch,
    totals.newestFirst.findFirst(outside)?.game,
    totals.oldestFirst.findFirst(outside)?.game,
  );
}

function unionOf(sets: readonly ReadonlySet<GameRecord>[]): ReadonlySet<GameRecord> {
  const nonEmpty = sets.filter((set) => set.size > 0);
  if (nonEmpty.length === 1) return nonEmpty[0] as ReadonlySet<GameRecord>;
  const union = new Set<GameRecord>();
  for (const set of nonEmpty) for (const game of set) union.add(game);
  return union;
}

function toStats(
  aggregate: GameAggregate,
  now: number,
  epoch: number,
  newest: GameRecord | undefined,
  oldest: GameRecord | undefined,
): CooperativeStats {
  const { games, openGames, players, openSlots } = aggregate;
  const openGamesByOpenSlots = [...aggregate.openGamesByOpenSlots];
  if (games === 0 || newest === undefined || oldest === undefined) {
    return { games, openGames, players, openSlots, minDurationMs: 0, maxDurationMs: 0, averageDurationMs: 0, openGamesByOpenSlots };
  }
  return {
    games,
    openGames,
    players,
    openSlots,
    minDurationMs: now - newest.startedAt,
    maxDurationMs: now - oldest.startedAt,
    averageDurationMs: now - epoch - aggregate.startSinceEpochSum / games,
    openGamesByOpenSlots,
  };
}

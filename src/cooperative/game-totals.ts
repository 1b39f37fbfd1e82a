import { IndexedHeap } from '../collections/indexed-heap.js';
import { newerGameFirst, openSlotsOf, type GameRecord, type StartEntry } from './game-record.js';

/**
 * Sums over a set of games, from which CooperativeStats are derived. Start times are summed
 * relative to an epoch (the first start time the matcher saw) so that 10^5 games of epoch-ms
 * timestamps stay well inside exact double precision.
 */
export interface GameAggregate {
  games: number;
  openGames: number;
  players: number;
  openSlots: number;
  startSinceEpochSum: number;
  /** Index i = open games with i + 1 open slots. */
  readonly openGamesByOpenSlots: number[];
}

export function emptyAggregate(maxPlayers: number): GameAggregate {
  return {
    games: 0,
    openGames: 0,
    players: 0,
    openSlots: 0,
    startSinceEpochSum: 0,
    openGamesByOpenSlots: new Array<number>(maxPlayers).fill(0),
  };
}

/** Adds (sign 1) or subtracts (sign −1) one game's contribution, as it is now. */
export function accumulate(
  aggregate: GameAggregate,
  game: GameRecord,
  sign: 1 | -1,
  maxPlayers: number,
  epoch: number,
): void {
  aggregate.games += sign;
  aggregate.players += sign * game.playerCount;
  aggregate.startSinceEpochSum += sign * (game.startedAt - epoch);
  if (!game.open) return;
  const slots = openSlotsOf(game, maxPlayers);
  aggregate.openGames += sign;
  aggregate.openSlots += sign * slots;
  if (slots > 0) aggregate.openGamesByOpenSlots[slots - 1]! += sign;
}

/**
 * Aggregates over every game of the factory, maintained on each update so that unfiltered
 * stats are O(1) and match-none stats are "totals minus the union". Start times are also kept
 * in two heaps (newest first, oldest first) for min/max duration: O(log n) per game added,
 * removed or re-announced with another start time.
 */
export class GameTotals {
  readonly aggregate: GameAggregate;
  readonly newestFirst = new IndexedHeap<StartEntry>((a, b) => newerGameFirst(a.game, b.game));
  readonly oldestFirst = new IndexedHeap<StartEntry>((a, b) => newerGameFirst(b.game, a.game));
  private epochValue: number | undefined;

  constructor(private readonly maxPlayers: number) {
    this.aggregate = emptyAggregate(maxPlayers);
  }

  get epoch(): number {
    return this.epochValue ?? 0;
  }

  /** Counts a game in (sign 1) or out (sign −1), as it is now; call around every change. */
  count(game: GameRecord, sign: 1 | -1): void {
    this.epochValue ??= game.startedAt;
    accumulate(this.aggregate, game, sign, this.maxPlayers, this.epoch);
  }

  /** Enters or leaves the start-time orders; needed only when a game appears, ends or restarts. */
  track(game: GameRecord, tracked: boolean): void {
    if (tracked) {
      this.newestFirst.push(game.newestFirst);
      this.oldestFirst.push(game.oldestFirst);
    } else {
      this.newestFirst.remove(game.newestFirst);
      this.oldestFirst.remove(game.oldestFirst);
    }
  }
}

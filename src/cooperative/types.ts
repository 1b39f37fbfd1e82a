import type { AttributeSet, ValueKey } from '../attributes/attribute-value.js';

/** A game as a server announces it: on creation, and again on reconnect (servers are authoritative). */
export interface GameSnapshot {
  readonly gameId: string;
  readonly attributes: AttributeSet;
  readonly playerIds: readonly string[];
  readonly open: boolean;
  /** Clock value (ms) when the game started; newer games have more time left to play. */
  readonly startedAt: number;
}

/** What the coordinator can read about one game. */
export interface GameView {
  readonly gameId: string;
  readonly attributes: AttributeSet;
  readonly playerIds: readonly string[];
  /** Players holding a promised seat who have not joined yet. */
  readonly reservedPlayerIds: readonly string[];
  readonly open: boolean;
  /** maxPlayers − players − reserved seats, never below 0. Counted whether or not the game is open. */
  readonly openSlots: number;
  readonly startedAt: number;
}

export interface ReservationView {
  readonly token: string;
  readonly gameId: string;
  /** Players of the party who have not joined yet (each holds one seat). */
  readonly playerIds: readonly string[];
  readonly expiresAt: number;
}

/** A game that ended or whose server is gone, so the caller can tell its players and clients. */
export interface RemovedGame {
  readonly gameId: string;
  readonly playerIds: readonly string[];
  /** Reservations that were still holding seats in it; their clients hold tokens now void. */
  readonly reservations: readonly ReservationView[];
}

export type ExpiredReservation = ReservationView;

export type StatsPredicate = readonly [key: string, value: ValueKey];

/** Battle.net talk, "Indexed stats too": the same indexes answer popularity questions. */
export interface CooperativeStats {
  readonly games: number;
  readonly openGames: number;
  readonly players: number;
  /** Open slots summed over open games. */
  readonly openSlots: number;
  /** Durations are `now − startedAt`; all 0 when no game matches. */
  readonly minDurationMs: number;
  readonly maxDurationMs: number;
  readonly averageDurationMs: number;
  /** Index i = open games with i + 1 open slots (length maxPlayers). */
  readonly openGamesByOpenSlots: readonly number[];
}

import type { FindOutcome } from '../coordinator/edges/events.js';

/**
 * What the operator page reads from the coordinator: a snapshot of factories and
 * servers, pulled once a tick, and a stream of events for what snapshots cannot show (waits,
 * rates, match quality). Narrow on purpose: one adapter (coordinator-adapter.ts) builds it from
 * whatever the coordinator exposes. Nothing private crosses it: no tickets, tokens or player ids.
 */

export interface FactorySnapshot {
  readonly name: string;
  readonly template: string;
  readonly strategy: 'cooperative' | 'competitive';
  /** Tickets waiting: in the matcher, or in a creation that waits for a slot. */
  readonly waitingTickets: number;
  /** Game creations waiting for a slot (gamefactory_queue_depth). */
  readonly queueLength: number;
  readonly openGames: number;
  readonly openSlots: number;
  /** Servers hosting the factory. */
  readonly servers: number;
  /** Competitive factories: the quality of every game formed so far. */
  readonly gap?: { readonly gamesFormed: number; readonly meanSigma: number; readonly p99Sigma: number };
  /** Competitive factories: open backfill requests, the seats they ask for, requests filled since the start. */
  readonly backfill?: { readonly requests: number; readonly seats: number; readonly filled: number };
}

export type ServerHealth = 'ok' | 'full' | 'backed-off';

export interface ServerSnapshot {
  readonly serverId: string;
  readonly factories: number;
  readonly maxGames: number;
  /** 0: unlimited. */
  readonly maxStartsPerSecond: number;
  readonly running: number;
  /** Creations sent, not yet confirmed. */
  readonly starting: number;
  readonly health: ServerHealth;
}

export interface OperatorSnapshot {
  readonly factories: readonly FactorySnapshot[];
  readonly servers: readonly ServerSnapshot[];
}

export type OperatorEvent =
  | { readonly kind: 'find-finished'; readonly factory: string; readonly outcome: FindOutcome; readonly elapsedMs: number }
  /** A CreateGame order went to a server. */
  | { readonly kind: 'placed'; readonly factory: string }
  /** A server confirmed a game it was asked to create. */
  | { readonly kind: 'game-started'; readonly serverId: string }
  | {
      readonly kind: 'game-formed';
      readonly factory: string;
      readonly gapInSigma: number;
      /** The chance the side predicted to win does (0.5 to 1). */
      readonly favouriteWinProbability?: number;
    };

export interface OperatorSource {
  snapshot(now: number): OperatorSnapshot;
  /** Returns a function that unsubscribes. */
  subscribe(listener: (event: OperatorEvent) => void): () => void;
}

import type { CompetitiveStats } from '../../competitive/index.js';
import type { ServerCapacity } from '../../placement/index.js';
import type { StatsAnswer, StatsQuery } from '../stats-query.js';

/** Gauges at one instant (metrics read them at scrape time). */
export interface CoordinatorSnapshot {
  readonly servers: number;
  readonly factories: number;
  readonly games: number;
  /** Tickets held: waiting, or assigned and kept for retries. */
  readonly tickets: number;
  /** Tickets by state (see TicketBook). */
  /** `proposed`: in a ready check (absent where no core counts it). */
  readonly ticketsByState: Readonly<Record<'parked' | 'pooled' | 'placing' | 'assigned', number>> & { readonly proposed?: number };
  /** Creations waiting for a slot. */
  readonly queued: number;
  readonly openGames: number;
  /** Open backfill requests (absent where backfill is not kept, e.g. a cluster node's view). */
  readonly backfillRequests?: number;
}

export interface ServerSummary {
  readonly serverId: string;
  readonly endpoint: string;
  readonly factories: readonly string[];
  readonly games: number;
  /** Creations ordered on it and not yet confirmed. */
  readonly starting: number;
  /** What the server advertised. */
  readonly capacity: ServerCapacity;
  /** Resting after repeated failed creations (circuit breaker open). */
  readonly backedOff: boolean;
}

export interface FactorySummary {
  readonly name: string;
  readonly template: string;
  readonly strategy: 'cooperative' | 'competitive';
  readonly servers: number;
  /** Tickets waiting in the matcher (competitive pool) or for servers to reconnect. */
  readonly pooled: number;
  /** Creations waiting for a slot. */
  readonly queued: number;
  /** Tickets in those creations (a creation carries a game's worth of parties). */
  readonly queuedTickets: number;
  readonly openGames: number;
  /** Open seats over its open games (cooperative; 0 for competitive factories). */
  readonly openSlots: number;
  readonly competitive: CompetitiveStats | undefined;
  /** Competitive factories: open backfill requests, the seats they ask for, requests filled since the start. */
  readonly backfill?: BackfillCounts;
}

export interface BackfillCounts {
  readonly requests: number;
  readonly seats: number;
  readonly filled: number;
}

export interface TicketSummary {
  readonly ticketId: string;
  readonly factory: string;
  readonly state: 'parked' | 'pooled' | 'proposed' | 'placing' | 'assigned';
  /** The players it holds: none once assigned (its players are free again). */
  readonly playerIds: readonly string[];
  readonly createdAt: number;
  readonly arrival: number;
}

/**
 * The read-only face of the core, for the gRPC services, metrics, stats and the operator page.
 * Nothing here changes state; nothing outside src/coordinator needs the Coordinator class.
 */
export interface CoordinatorView {
  snapshot(): CoordinatorSnapshot;
  factoryNames(): string[];
  /** Creations of this factory waiting for a slot. */
  queuedIn(factory: string): number;
  /** Free game slots advertised by the servers. */
  freeSlots(): number;
  servers(): ServerSummary[];
  /** Every live factory; `now` dates the open-slot statistics. */
  factories(now: number): FactorySummary[];
  ticket(ticketId: string): TicketSummary | undefined;
  /** The server running this game, if it runs. */
  gameServer(gameId: string): string | undefined;
  /** QueryStats; throws MatchmakingError (NOT_FOUND, INVALID_ARGUMENT) for a bad query. */
  queryStats(query: StatsQuery, now: number): StatsAnswer;
}

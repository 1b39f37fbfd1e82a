import type { AttributeSet } from '../attributes/attribute-value.js';
import type { ErrorCode, MatchmakingError } from '../errors/index.js';
import type { ReportedResult } from '../ratings/result-rules.js';
import type { Principal } from '../security/tokens/principal.js';

/** The coordinator's side of the wire, in domain terms. The transport translates to and from gRPC. */

export interface ServerCapacity {
  readonly maxGames: number;
  /** 0 means unlimited. */
  readonly maxStartsPerSecond: number;
}

export interface ServerHello {
  readonly serverId: string;
  readonly endpoint: string;
  readonly attributes: AttributeSet;
  readonly templates: readonly string[];
  readonly capacity: ServerCapacity;
  readonly runningGames: readonly RunningGame[];
  /**
   * CreateGame orders the server was sent and has not answered yet, by request id: listed by a
   * server reconnecting in the middle of a creation (hello.pending_creations), and by a node that
   * still holds the server when it announces it to a shard's new owner. The tickets of those orders
   * wait for the late answer instead of being ordered a second game.
   */
  readonly pendingCreations?: readonly string[];
  /**
   * Set by a sharded node's seat, never from the wire: the server's stream is on the node that runs
   * this core, so its orders and events need no relay. Placement prefers such servers (policy order
   * within each group), which also spreads servers' traffic over the nodes with their shards.
   */
  readonly sameNode?: boolean;
}

export interface RunningGame {
  readonly gameId: string;
  readonly factory: string;
  /** The CreateGame that made it, when the coordinator ordered it (see GameCreations' stored placements). */
  readonly requestId?: string;
  readonly matchable: AttributeSet;
  readonly playerIds: readonly string[];
  readonly open: boolean;
  readonly startedAt: number;
}

/** What a game server reports after its hello. */
export type ServerEvent =
  | { readonly kind: 'gameCreated'; readonly requestId: string; readonly gameId: string }
  | {
      readonly kind: 'gameCreationFailed';
      readonly requestId: string;
      readonly reason: string;
      /**
       * The server had no free slot: in a cluster each shard's owner sees the server's free slots
       * and two may order the last one at once. The creation goes back in line at its priority and
       * the server is not counted as failing.
       */
      readonly noFreeSlot?: boolean;
    }
  | { readonly kind: 'playerJoined'; readonly gameId: string; readonly playerId: string }
  | { readonly kind: 'playerLeft'; readonly gameId: string; readonly playerId: string }
  | { readonly kind: 'gameAttributesChanged'; readonly gameId: string; readonly matchable: AttributeSet }
  | { readonly kind: 'gameOpened'; readonly gameId: string }
  | { readonly kind: 'gameClosed'; readonly gameId: string }
  | { readonly kind: 'gameEnded'; readonly gameId: string }
  | { readonly kind: 'capacityChanged'; readonly capacity: ServerCapacity }
  /** A finished game's result for its factory's ladder; `result.serverId` is the reporter. */
  | { readonly kind: 'gameResult'; readonly result: ReportedResult }
  /** Competitive backfill: fill the open seats of a running game this server hosts. */
  | { readonly kind: 'requestBackfill'; readonly gameId: string; readonly request: BackfillRequest }
  | { readonly kind: 'cancelBackfill'; readonly gameId: string; readonly backfillId: string };

/** A RequestBackfill after the transport's shape and size checks. */
export interface BackfillRequest {
  readonly backfillId: string;
  readonly players: readonly { readonly playerId: string; readonly team: number; readonly score: number | undefined; readonly softAttributes?: ReadonlyMap<string, string> }[];
  /** 0: the placement's ticket time to live. */
  readonly ttlMs: number;
  /** '' when the server leaves it to the coordinator's record. */
  readonly map: string;
  readonly region: string;
}

/** How a backfill request ended. */
export type BackfillOutcome = 'filled' | 'cancelled' | 'expired' | 'gameEnded' | 'refused';

/** A competitive game's predicted balance, as its matcher computed it when it formed the game. */
export interface MatchQualityFigures {
  /** The chance the side predicted to win does win (0.5: a coin toss). */
  readonly favouriteWinProbability: number;
  /** TrueSkill's match quality (1: as even as a game can be). */
  readonly matchQuality: number;
  /** Best minus worst player score, in standard deviations of the factory's scores. */
  readonly gapSigma: number;
}

/** Orders the coordinator sends a game server. */
export type ServerOrder =
  | {
      readonly kind: 'createGame';
      readonly requestId: string;
      readonly factory: string;
      readonly partition: AttributeSet;
      readonly matchable: AttributeSet;
      readonly playerIds: readonly string[];
      /** Team of each seat, for competitive games; empty for cooperative ones. */
      readonly seatTeams: readonly number[];
      readonly reservationToken: string;
      readonly confirmWithinMs: number;
      readonly map: string;
      readonly region: string;
      /** Competitive games: the game's predicted balance. */
      readonly quality?: MatchQualityFigures;
    }
  | {
      readonly kind: 'reserveSeats';
      readonly gameId: string;
      readonly playerIds: readonly string[];
      readonly reservationToken: string;
      readonly expiresInMs: number;
      /** Competitive backfill: the request these seats fill, and each seat's team. */
      readonly backfill?: { readonly backfillId: string; readonly seatTeams: readonly number[] };
    }
  | { readonly kind: 'rejected'; readonly reason: string }
  /** Where a backfill request stands (see BackfillState in the .proto). */
  | { readonly kind: 'backfillStatus'; readonly backfillId: string; readonly gameId: string; readonly state: BackfillOutcome | 'queued'; readonly code: ErrorCode | 'OK'; readonly reason: string }
  /** Answers a gameResult: applied = false for a repeat or a game that did not count (`reason`). */
  | { readonly kind: 'gameResultAck'; readonly gameId: string; readonly applied: boolean; readonly reason: string };

/** The coordinator's handle on one connected game server's stream. */
export interface ServerChannel {
  send(order: ServerOrder): void;
  /** Ends the stream, e.g. when a newer connection with the same server id replaces it. */
  close(error: MatchmakingError): void;
}

export interface Player {
  readonly playerId: string;
  readonly score: number | undefined;
}

/** A FindGame request after the transport's shape and size checks. */
export interface FindRequest {
  readonly ticketId: string;
  readonly template: string;
  readonly party: readonly Player[];
  readonly partition: AttributeSet;
  readonly matchable: AttributeSet;
  readonly latenciesMs: ReadonlyMap<string, number>;
  readonly preferredMaps: readonly string[];
  readonly vetoedMaps: readonly string[];
  /** Competitive: the party's own wait budget and latency ceiling, ms (within the template's playerLimits). */
  readonly waitBudgetMs?: number;
  readonly maxLatencyMs?: number;
  /** Competitive: where the party plays from (degrees), a latency prior when it measured none. */
  readonly location?: { readonly latitude: number; readonly longitude: number };
  /** Competitive: soft attributes (e.g. language) the factory's softPreferences weigh. */
  readonly softAttributes?: ReadonlyMap<string, string>;
  /** Who asks: the ticket's owner when it opens, checked when it is resumed. Absent: trusted in-process caller. */
  readonly caller?: Principal;
}

export interface Assignment {
  readonly gameId: string;
  readonly serverId: string;
  readonly serverEndpoint: string;
  readonly factory: string;
  readonly reservationToken: string;
  readonly created: boolean;
  readonly map: string;
  readonly region: string;
  readonly team: number;
  /** Competitive games: the game's predicted balance. */
  readonly quality?: MatchQualityFigures;
  /**
   * The ticket's players, set when a ticket is told: the edge gives each its seat's token, made
   * from `reservationToken`, the game's (src/security/seat-tokens.ts).
   */
  readonly party?: readonly string[];
}

export type TicketUpdate =
  /** `estimatedWaitMs` undefined: no estimate exists yet (told as such, not as 0). */
  | { readonly kind: 'queued'; readonly factory: string; readonly position: number; readonly estimatedWaitMs: number | undefined }
  | { readonly kind: 'proposed'; readonly proposal: MatchProposal }
  | { readonly kind: 'assigned'; readonly assignment: Assignment };

/** A game its players must accept before it is created (a ready check). */
export interface MatchProposal {
  readonly matchId: string;
  readonly factory: string;
  /** How long is left to accept, from when this update was sent. */
  readonly expiresInMs: number;
  /** Players in the proposed game, and how many have accepted so far. */
  readonly players: number;
  readonly acceptedPlayers: number;
}

/** Where a ticket's progress goes: one FindGame stream, or one ticket on a FindGames stream. */
export interface TicketListener {
  /**
   * `ticketId` lets one listener serve many tickets (a FindGames stream): one object per stream
   * instead of a closure pair per waiting ticket. `ownerAddress`: a sharded node's route hint,
   * on the first update of a ticket it relayed to another node's shard (that owner's advertised
   * address); never set by a core, so a find served in process carries none.
   */
  update(update: TicketUpdate, ticketId: string, ownerAddress?: string): void;
  /** The ticket ended without an assignment (cancelled, expired, its factory gone...). */
  fail(error: MatchmakingError, ticketId: string): void;
}

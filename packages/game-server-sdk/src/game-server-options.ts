import type { ChannelCredentials, ChannelOptions, ServiceError, status } from '@grpc/grpc-js';
import type { BackoffOptions, PlainValue } from '@gamefactory/protocol';
import type { CoordinatorMessage } from '@gamefactory/protocol/v1/game_server_link';
import type { GameOrder } from './game-order.js';

export interface Capacity {
  /** Most games at once. */
  readonly maxGames: number;
  /** Most game starts per second; 0 or left out: no limit. */
  readonly maxStartsPerSecond?: number;
}

export interface GameServerOptions {
  /** Coordinator nodes, host:port; after a failure the next one is tried. */
  readonly addresses: string | readonly string[];
  /** Default plaintext (development mode); `credentials.createSsl(ca, key, cert)` for mTLS. */
  readonly credentials?: ChannelCredentials;
  readonly channelOptions?: ChannelOptions;
  /** Unique per server process; with mTLS it must match the certificate's identity. */
  readonly serverId: string;
  /** The address players connect to, handed to them in their assignments. */
  readonly endpoint: string;
  /** e.g. `{ version: 'v201', region: 'eu' }`: which factories this server can host. */
  readonly attributes?: Record<string, PlainValue>;
  /** factories.yaml template names this server hosts; left out: all. */
  readonly templates?: readonly string[];
  readonly capacity: Capacity;
  /**
   * Games this process already runs when the SDK starts (a server that rebuilt its link): they are
   * announced in the hello like the games of a reconnect.
   */
  readonly runningGames?: readonly RunningGameInfo[];
  /**
   * Makes a game for an order and returns its id (or nothing: the SDK names it). Throwing (or
   * rejecting) refuses the order and its players are placed elsewhere. Answer within
   * `order.confirmWithinMs`.
   */
  readonly createGame: (order: GameOrder) => string | void | Promise<string | void>;
  /** Coalesce reports and orders of one tick into one message each way (default true). */
  readonly batch?: boolean;
  /** Backoff between reconnects, or false to stay down after the first failure (default: reconnect). */
  readonly reconnect?: BackoffOptions | false;
  /** How long `admit` waits for a seat that has not arrived yet (default 5000 ms). */
  readonly tokenGraceMs?: number;
  /** How long a new game's seats are held for players who have not come (default 60000 ms). */
  readonly seatHoldMs?: number;
  /** How long `reportResult` waits for the coordinator's answer once sent (default 10000 ms). */
  readonly resultTimeoutMs?: number;
  /** Answer keepalives (default true). False only to test how a coordinator drops a silent server. */
  readonly answerKeepalives?: boolean;
}

export interface RunningGameInfo {
  readonly gameId: string;
  readonly factory: string;
  /** The CreateGame order's request id, if the coordinator ordered this game: re-announced with it. */
  readonly requestId?: string;
  readonly playerIds: readonly string[];
  readonly matchable?: Record<string, PlainValue>;
  /** Takes drop-in players (default true). */
  readonly open?: boolean;
  /** Unix ms (default: now). */
  readonly startedAt?: number;
}

export interface Connected {
  readonly address: string;
  /** The factories this server now serves. */
  readonly factories: readonly string[];
  readonly keepaliveIntervalMs: number;
}

export interface Disconnected {
  readonly address: string;
  /** The stream's status code, or undefined when it ended without one. */
  readonly code: status | undefined;
  readonly details: string;
  /** When the next attempt is made; undefined when there is none. */
  readonly retryInMs: number | undefined;
}

export interface SeatsReserved {
  readonly gameId: string;
  readonly playerIds: readonly string[];
  /** Each player and the token it alone will present (a player's token does not open another's seat). */
  readonly seats: readonly { readonly playerId: string; readonly token: string }[];
  readonly expiresInMs: number;
}

export interface GameServerEvents {
  connected: [Connected];
  disconnected: [Disconnected];
  /** Players are on their way to a game, each with its own token (new games and drop-in alike). */
  seatsReserved: [SeatsReserved];
  /** The coordinator refused a report; the reason names it. */
  rejected: [string];
  /** For good: closed, drained, replaced by another process with this id, or refused at hello. */
  closed: [ServiceError | undefined];
  /** Every message as received, for logs. */
  message: [CoordinatorMessage];
}

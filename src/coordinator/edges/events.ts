import type { Log } from '../log.js';
import type { BackfillOutcome } from '../messages.js';

export type FindOutcome = 'assigned' | 'cancelled' | 'expired' | 'failed' | 'declined' | 'acceptance-timed-out';
/** `full`: the server refused for want of a free slot (another shard's owner took it first): not a failure of the server. */
export type RequeueCause = 'timeout' | 'failed' | 'full' | 'disconnected';

/**
 * What the core tells the world, pushed as it happens (metrics, the operator page, logs).
 * Gauges are pulled from CoordinatorView instead, so the hot path pays nothing for them.
 */
export interface CoordinatorEventMap {
  /** A ticket ended: assigned, cancelled, expired or failed, `elapsedMs` after it was made. */
  findFinished: { readonly ticketId: string; readonly factory: string; readonly outcome: FindOutcome; readonly elapsedMs: number };
  /** A CreateGame order went to a server, for the seats of these tickets (a list never changed once sent). */
  placed: { readonly factory: string; readonly serverId: string; readonly requestId: string; readonly ticketIds: readonly string[] };
  /** A creation was taken back from its server and re-placed at its original priority. */
  requeued: { readonly factory: string; readonly requestId: string; readonly cause: RequeueCause };
  /** A game server message was refused (answered with `rejected`). */
  serverMessageRejected: { readonly kind: string; readonly serverId: string; readonly reason: string };
  /** A creation left the queue for a server after waiting `waitedMs`. */
  dequeued: { readonly factory: string; readonly waitedMs: number };
  /** A competitive batch formed a game of this quality (gap in sigma, each ticket's wait). */
  competitiveGameFormed: {
    readonly factory: string;
    readonly gapInSigma: number;
    readonly waitsMs: readonly number[];
    /** The game's predicted balance (src/competitive/match-quality.ts). */
    readonly favouriteWinProbability: number;
    readonly matchQuality: number;
    /** Its tickets, every team's in order. */
    readonly ticketIds: readonly string[];
  };
  /** A game was proposed to its players (a ready check); `outcome` once it is settled. */
  matchProposed: { readonly factory: string; readonly matchId: string; readonly ticketIds: readonly string[] };
  matchSettled: { readonly factory: string; readonly matchId: string; readonly outcome: 'accepted' | 'declined' | 'timed-out' | 'left' };
  /** A match function's batch was formed by the built-in matcher instead (`reason`: timeout, failed, refused). */
  matchFunctionFallback: { readonly factory: string; readonly reason: 'timeout' | 'failed' | 'refused'; readonly detail: string };
  /** A server kept failing creations and gets no new ones for `backoffMs`. */
  serverBackedOff: { readonly serverId: string; readonly backoffMs: number };
  serverConnected: { readonly serverId: string; readonly endpoint: string; readonly factories: readonly string[] };
  serverDisconnected: { readonly serverId: string };
  /** A game began running (created on our order, or announced in a hello). */
  gameStarted: { readonly gameId: string; readonly serverId: string; readonly factory: string };
  gameEnded: { readonly gameId: string; readonly serverId: string; readonly factory: string };
  /** A server asked for backfill of a running game (a new request, or one sent again). */
  backfillRequested: { readonly factory: string; readonly backfillId: string; readonly serverId: string; readonly gameId: string; readonly seats: number };
  /**
   * A backfill request ended `elapsedMs` after it was made: filled (with `seats` newcomers, the
   * game then `gapInSigma` wide), cancelled, expired, its game ended, or refused.
   */
  backfillEnded: { readonly factory: string; readonly outcome: BackfillOutcome; readonly elapsedMs: number; readonly seats: number; readonly gapInSigma?: number };
}

export type CoordinatorEventType = keyof CoordinatorEventMap;
export type CoordinatorEventListener<K extends CoordinatorEventType> = (event: CoordinatorEventMap[K]) => void;

/** Subscribing side: any number of listeners per event type. */
export interface CoordinatorEvents {
  /** Returns a function that unsubscribes. */
  on<K extends CoordinatorEventType>(type: K, listener: CoordinatorEventListener<K>): () => void;
}

/**
 * The core's event hub. Listeners run synchronously, in subscription order; one that throws is
 * logged and the others still run: an observer must never break matchmaking.
 */
export class EventHub implements CoordinatorEvents {
  private readonly listeners = new Map<CoordinatorEventType, Set<(event: never) => void>>();

  constructor(private readonly log?: Log) {}

  on<K extends CoordinatorEventType>(type: K, listener: CoordinatorEventListener<K>): () => void {
    let set = this.listeners.get(type);
    if (!set) this.listeners.set(type, (set = new Set()));
    const fn = listener as (event: never) => void;
    set.add(fn);
    return () => set.delete(fn);
  }

  emit<K extends CoordinatorEventType>(type: K, event: CoordinatorEventMap[K]): void {
    const set = this.listeners.get(type);
    if (!set) return;
    for (const fn of set) {
      try {
        (fn as CoordinatorEventListener<K>)(event);
      } catch (error) {
        this.log?.warn({ err: error, event: type }, 'a coordinator event listener failed');
      }
    }
  }
}

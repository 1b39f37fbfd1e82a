import { BackfillState, type BackfillStatus, type RequestBackfill, type ReserveSeats } from '@gamefactory/protocol/v1/game_server_link';

/** A player who remains in a game asking for backfill. */
export interface RemainingPlayer {
  readonly playerId: string;
  /** 0-based team. */
  readonly team: number;
  /** Required unless the template has a ladder (as in FindGame). */
  readonly score?: number;
  /** Soft attributes (e.g. `{ language: 'fr' }`) the template's softPreferences weigh. */
  readonly softAttributes?: Readonly<Record<string, string>>;
}

export interface BackfillOptions {
  /** Chosen by you, or `<serverId>-bf<n>`; the same id again replaces the players (a second leaver) and keeps the wait. */
  readonly backfillId?: string;
  readonly players: readonly RemainingPlayer[];
  /** How long it may wait, ms (default and upper bound: the coordinator's ticket time to live). */
  readonly ttlMs?: number;
  /** The game's map and region, as its CreateGame named them (default: as the coordinator recorded them). */
  readonly map?: string;
  readonly region?: string;
}

/** A backfill filled: the newcomers, each with its team and the token of its own seat; their seats are reserved already. */
export interface BackfillFilled {
  readonly backfillId: string;
  readonly gameId: string;
  readonly players: readonly { readonly playerId: string; readonly team: number; readonly token: string }[];
  readonly expiresInMs: number;
}

export type BackfillEnd = 'cancelled' | 'expired' | 'game-ended' | 'refused' | 'closed';

/** A backfill request that ended without a fill; `code` is the gRPC status code the coordinator gave (0 if none). */
export class BackfillEndedError extends Error {
  override readonly name = 'BackfillEndedError';
  constructor(
    readonly end: BackfillEnd,
    readonly backfillId: string,
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

export interface BackfillHandle {
  readonly backfillId: string;
  /** Resolves once the coordinator has stored the request (BACKFILL_STATE_QUEUED). */
  readonly queued: Promise<void>;
  /** Resolves with the newcomers; rejects with a BackfillEndedError. */
  readonly filled: Promise<BackfillFilled>;
}

interface Pending {
  readonly gameId: string;
  readonly resolveQueued: () => void;
  readonly resolve: (filled: BackfillFilled) => void;
  readonly reject: (error: BackfillEndedError) => void;
  seats?: ReserveSeats;
}

const ENDS: Partial<Record<BackfillState, BackfillEnd>> = {
  [BackfillState.BACKFILL_STATE_CANCELLED]: 'cancelled',
  [BackfillState.BACKFILL_STATE_EXPIRED]: 'expired',
  [BackfillState.BACKFILL_STATE_GAME_ENDED]: 'game-ended',
  [BackfillState.BACKFILL_STATE_REFUSED]: 'refused',
};

/**
 * Backfill requests this server made and that are still open. The coordinator keeps a request
 * across this server's reconnects and its own restarts, and answers on whichever stream is up, so
 * a pending request outlives the link it was sent on.
 */
export class BackfillRequests {
  private readonly pending = new Map<string, Pending>();
  private next = 1;

  constructor(
    private readonly serverId: string,
    private readonly send: (request: RequestBackfill) => boolean,
  ) {}

  request(gameId: string, options: BackfillOptions): BackfillHandle {
    const backfillId = options.backfillId ?? `${this.serverId}-bf${this.next++}`;
    let resolveQueued!: () => void;
    const queued = new Promise<void>((resolve) => (resolveQueued = resolve));
    const filled = new Promise<BackfillFilled>((resolve, reject) => {
      const previous = this.pending.get(backfillId);
      this.pending.set(backfillId, { gameId, resolveQueued, resolve, reject });
      previous?.reject(new BackfillEndedError('cancelled', backfillId, 0, `backfill ${backfillId} was sent again`));
    });
    filled.catch(() => {});
    const sent = this.send({
      backfillId,
      gameId,
      players: options.players.map((p) => ({ playerId: p.playerId, team: p.team, score: p.score, softAttributes: { ...(p.softAttributes ?? {}) } })),
      ttlMs: options.ttlMs ?? 0,
      map: options.map ?? '',
      region: options.region ?? '',
    });
    if (!sent) this.end(backfillId, new BackfillEndedError('closed', backfillId, 0, 'not connected to a coordinator'));
    return { backfillId, queued, filled };
  }

  /** The seats of a fill (they come before its FILLED status). */
  seatsReserved(order: ReserveSeats): void {
    const entry = this.pending.get(order.backfillId);
    if (entry) entry.seats = order;
  }

  status(status: BackfillStatus): void {
    const entry = this.pending.get(status.backfillId);
    if (!entry) return;
    if (status.state === BackfillState.BACKFILL_STATE_QUEUED) return entry.resolveQueued();
    if (status.state === BackfillState.BACKFILL_STATE_FILLED) {
      this.pending.delete(status.backfillId);
      const seats = entry.seats;
      return entry.resolve({
        backfillId: status.backfillId,
        gameId: entry.gameId,
        players: (seats?.seats ?? []).map((s, i) => ({ playerId: s.playerId, team: seats?.seatTeams[i] ?? 0, token: s.reservationToken })),
        expiresInMs: seats?.expiresInMs ?? 0,
      });
    }
    const end = ENDS[status.state];
    if (end) this.end(status.backfillId, new BackfillEndedError(end, status.backfillId, status.code, status.reason || `backfill ${status.backfillId}: ${end}`));
  }

  /** The game ended here: its request ends with it (the coordinator ends it too). */
  gameEnded(gameId: string): void {
    for (const [id, entry] of this.pending) if (entry.gameId === gameId) this.end(id, new BackfillEndedError('game-ended', id, 0, `game ${gameId} ended`));
  }

  rejectAll(reason: string): void {
    for (const id of [...this.pending.keys()]) this.end(id, new BackfillEndedError('closed', id, 0, reason));
  }

  private end(backfillId: string, error: BackfillEndedError): void {
    const entry = this.pending.get(backfillId);
    this.pending.delete(backfillId);
    entry?.reject(error);
  }
}

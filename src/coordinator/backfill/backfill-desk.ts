import type { GameFill } from '../../competitive/index.js';
import { MatchmakingError, type ErrorCode } from '../../errors/index.js';
import type { FactoryRegistry } from '../../factories/factory-registry.js';
import { CompetitiveRuntime } from '../competitive-runtime.js';
import type { CoreContext } from '../core-context.js';
import { DeadlineKind } from '../deadlines.js';
import type { FactoryRuntime } from '../factory-runtime.js';
import type { BackfillOutcome, ServerEvent } from '../messages.js';
import type { RunningGames } from '../servers/running-games.js';
import type { ServerRoster } from '../servers/server-roster.js';
import type { TicketBook } from '../tickets/ticket-book.js';
import type { TicketDesk } from '../tickets/ticket-desk.js';
import type { Ticket } from '../tickets/ticket.js';
import { partialGameOf, seatsAsked, type BackfillRecord } from './backfill-record.js';

/** How long a backfill's newcomers have to join before their seats lapse. */
export const BACKFILL_SEAT_HOLD_MS = 30_000;

interface OpenRequest {
  record: BackfillRecord;
  /** In its factory's matcher; false while its server is away (or after a restart, until the server re-announces the game). */
  active: boolean;
}

/**
 * The one owner of backfill requests (competitive backfill: a game server asks for the open seats
 * of a running game to be filled). A request is addressed by its id and owned by the server that
 * hosts its game; only that server may open, change or cancel it. While its server is connected
 * and its game runs, the request is a partial game in its factory's matcher; when the server's
 * stream drops it is parked, and it is taken up again when the server re-announces the game, or
 * ends (GAME_ENDED) when the server comes back without it. Every open request is stored, so a
 * restarted coordinator parks it until then too. A fill reserves the newcomers' seats as a
 * drop-in does (a ReserveSeats with a reservation token, naming the request and each seat's team)
 * and assigns their tickets to the running game.
 */
export class BackfillDesk {
  private readonly requests = new Map<string, OpenRequest>();
  /** Game id -> its open request: at most one a game. */
  private readonly byGame = new Map<string, string>();
  /** Requests filled, by factory, since the start: QueryStats reports them. */
  private readonly filledIn = new Map<string, number>();

  constructor(
    private readonly ctx: CoreContext,
    private readonly registry: FactoryRegistry<FactoryRuntime>,
    private readonly roster: ServerRoster,
    private readonly games: RunningGames,
    private readonly book: TicketBook,
    private readonly desk: TicketDesk,
    restored: readonly BackfillRecord[],
  ) {
    for (const record of restored) {
      this.requests.set(record.backfillId, { record, active: false });
      this.byGame.set(record.gameId, record.backfillId);
      this.ctx.deadlines.set(DeadlineKind.BackfillExpiry, record.backfillId, record.expiresAt);
    }
  }

  /** RequestBackfill from `serverId`: refused with a status naming the field, or stored, matched and answered QUEUED. */
  request(serverId: string, event: Extract<ServerEvent, { kind: 'requestBackfill' }>): void {
    const { gameId, request } = event;
    const id = request.backfillId;
    const refuse = (code: ErrorCode, reason: string, factory = ''): void => {
      this.tell(serverId, id, gameId, 'refused', code, reason);
      this.ctx.out.event('backfillEnded', { factory, outcome: 'refused', elapsedMs: 0, seats: 0 });
    };
    const game = this.games.get(gameId);
    if (!game) return refuse('NOT_FOUND', `game_id: no game "${gameId}" runs on this server`);
    if (game.serverId !== serverId) return refuse('PERMISSION_DENIED', `game_id: game "${gameId}" is hosted by another server; only its host may ask for its backfill`);
    const runtime = this.registry.get(game.factory);
    if (!(runtime instanceof CompetitiveRuntime)) {
      return refuse('FAILED_PRECONDITION', `game_id: game "${gameId}" is in cooperative factory "${game.factory}"; backfill is for competitive games (a cooperative game takes drop-ins while open)`, game.factory);
    }
    const existing = this.requests.get(id);
    if (existing && existing.record.gameId !== gameId) return refuse('ALREADY_EXISTS', `backfill_id: "${id}" is already open for another game`, game.factory);
    const other = this.byGame.get(gameId);
    if (other !== undefined && other !== id) return refuse('ALREADY_EXISTS', `game_id: game "${gameId}" already has open backfill request "${other}"; send that id again to change it, or cancel it`, game.factory);
    const maxTtl = this.ctx.config.placement.ticketTtlMs;
    if (request.ttlMs > maxTtl) return refuse('INVALID_ARGUMENT', `ttl_ms: ${request.ttlMs}; at most ${maxTtl} (placement.ticketTtlSeconds)`, game.factory);
    let checked: Pick<BackfillRecord, 'players' | 'map' | 'region'>;
    try {
      checked = runtime.checkBackfill(gameId, request);
    } catch (error) {
      if (!(error instanceof MatchmakingError)) throw error;
      return refuse(error.code, error.message, game.factory);
    }
    const now = this.ctx.now();
    const createdAt = existing?.record.createdAt ?? now;
    const record: BackfillRecord = {
      backfillId: id,
      serverId,
      gameId,
      factory: runtime.identity.name,
      ...checked,
      createdAt,
      expiresAt: createdAt + (request.ttlMs === 0 ? maxTtl : request.ttlMs),
    };
    this.requests.set(id, { record, active: true });
    this.byGame.set(gameId, id);
    this.ctx.deadlines.set(DeadlineKind.BackfillExpiry, id, record.expiresAt);
    this.ctx.out.push({ kind: 'storeBackfill', record });
    runtime.openBackfill(partialGameOf(record));
    const { teams, teamSize } = runtime.identity.template.strategy.kind === 'competitive' ? runtime.identity.template.strategy.settings : { teams: 0, teamSize: 0 };
    this.ctx.out.event('backfillRequested', { factory: record.factory, backfillId: id, serverId, gameId, seats: seatsAsked(record, teams, teamSize) });
    this.tell(serverId, id, gameId, 'queued', 'OK', '');
  }

  /** CancelBackfill from `serverId`: NOT_FOUND unless it owns an open request with that id. */
  cancel(serverId: string, gameId: string, backfillId: string): void {
    const open = this.requests.get(backfillId);
    if (!open || open.record.serverId !== serverId) {
      return this.tell(serverId, backfillId, gameId, 'refused', 'NOT_FOUND', `backfill_id: no open backfill request "${backfillId}" of this server`);
    }
    this.end(open, 'cancelled', 'CANCELLED', `backfill request "${backfillId}" was cancelled`);
  }

  /** Its time to live is over. */
  expire(backfillId: string): void {
    const open = this.requests.get(backfillId);
    if (open) this.end(open, 'expired', 'DEADLINE_EXCEEDED', `backfill request "${backfillId}" was not filled within its ttl_ms`);
  }

  /** The server ended the game: its request ends with it. */
  gameEnded(gameId: string): void {
    const id = this.byGame.get(gameId);
    const open = id === undefined ? undefined : this.requests.get(id);
    if (open) this.end(open, 'gameEnded', 'OK', `game "${gameId}" ended`);
  }

  /** The server's stream is gone: its requests leave the matchers and wait for it (or their time to live). */
  serverGone(serverId: string): void {
    for (const open of this.requests.values()) {
      if (open.record.serverId !== serverId || !open.active) continue;
      open.active = false;
      this.runtimeOf(open.record)?.closeBackfill(open.record.backfillId);
    }
  }

  /** The server said hello again: requests of games it re-announced are matched again, the others end. */
  serverBack(serverId: string): void {
    for (const open of [...this.requests.values()]) {
      const { record } = open;
      if (record.serverId !== serverId || open.active) continue;
      const runtime = this.runtimeOf(record);
      if (!runtime || this.games.get(record.gameId)?.serverId !== serverId) {
        this.end(open, 'gameEnded', 'OK', `the server re-announced itself without game "${record.gameId}"`);
        continue;
      }
      open.active = true;
      runtime.openBackfill(partialGameOf(record));
      this.tell(serverId, record.backfillId, record.gameId, 'queued', 'OK', '');
    }
  }

  /**
   * A batch filled requests: each fill's tickets get seats in its game (one ReserveSeats naming
   * the request and each seat's team, then the assignments), and the request ends FILLED. A fill
   * whose request or tickets changed meanwhile is given back: tickets to the pool, the request to
   * the matcher.
   */
  filled(runtime: CompetitiveRuntime, fills: readonly GameFill[]): void {
    for (const fill of fills) {
      const open = this.requests.get(fill.backfillId);
      const tickets = fill.seats.map((seat) => this.book.get(seat.ticketId));
      const game = open && this.games.get(open.record.gameId);
      if (!open || !open.active || game?.serverId !== open.record.serverId || tickets.some((t) => t?.state.kind !== 'pooled')) {
        for (const ticket of tickets) if (ticket?.state.kind === 'pooled') runtime.repool(ticket);
        if (open?.active) runtime.openBackfill(partialGameOf(open.record));
        continue;
      }
      this.seat(runtime, open.record, fill, tickets as Ticket[]);
      this.filledIn.set(open.record.factory, (this.filledIn.get(open.record.factory) ?? 0) + 1);
      this.end(open, 'filled', 'OK', '', fill);
    }
  }

  private seat(runtime: CompetitiveRuntime, record: BackfillRecord, fill: GameFill, tickets: readonly Ticket[]): void {
    const token = this.ctx.newId();
    const playerIds: string[] = [];
    const seatTeams: number[] = [];
    tickets.forEach((ticket, i) => {
      for (const playerId of ticket.playerIds) {
        playerIds.push(playerId);
        seatTeams.push(fill.seats[i]!.team);
      }
    });
    const { serverId, gameId } = record;
    this.games.reserveBackfill(runtime, gameId, playerIds, this.ctx.now() + BACKFILL_SEAT_HOLD_MS);
    this.roster.send(serverId, { kind: 'reserveSeats', gameId, playerIds, reservationToken: token, expiresInMs: BACKFILL_SEAT_HOLD_MS, backfill: { backfillId: record.backfillId, seatTeams } }, token);
    const quality = { favouriteWinProbability: fill.favouriteWinProbability, matchQuality: fill.matchQuality, gapSigma: fill.gapInSigma };
    tickets.forEach((ticket, i) => {
      this.desk.assign(ticket.id, {
        gameId,
        serverId,
        serverEndpoint: this.roster.endpoint(serverId) ?? '',
        factory: ticket.factory,
        reservationToken: token,
        created: false,
        map: record.map,
        region: record.region,
        team: fill.seats[i]!.team,
        quality,
      });
    });
  }

  private end(open: OpenRequest, outcome: BackfillOutcome, code: ErrorCode | 'OK', reason: string, fill?: GameFill): void {
    const { record } = open;
    this.requests.delete(record.backfillId);
    if (this.byGame.get(record.gameId) === record.backfillId) this.byGame.delete(record.gameId);
    this.ctx.deadlines.delete(DeadlineKind.BackfillExpiry, record.backfillId);
    if (open.active) this.runtimeOf(record)?.closeBackfill(record.backfillId);
    this.ctx.out.push({ kind: 'unstoreBackfill', backfillId: record.backfillId });
    this.ctx.out.event('backfillEnded', {
      factory: record.factory,
      outcome,
      elapsedMs: this.ctx.now() - record.createdAt,
      seats: fill?.seats.length ?? 0,
      ...(fill && { gapInSigma: fill.gapInSigma }),
    });
    if (this.roster.get(record.serverId)) this.tell(record.serverId, record.backfillId, record.gameId, outcome, code, reason);
  }

  private tell(serverId: string, backfillId: string, gameId: string, state: BackfillOutcome | 'queued', code: ErrorCode | 'OK', reason: string): void {
    this.roster.send(serverId, { kind: 'backfillStatus', backfillId, gameId, state, code, reason });
  }

  private runtimeOf(record: BackfillRecord): CompetitiveRuntime | undefined {
    const runtime = this.registry.get(record.factory);
    return runtime instanceof CompetitiveRuntime ? runtime : undefined;
  }

  // ---------------------------------------------------------------- reads

  /** Open requests of a factory (waiting, or parked for their server) and the seats they ask for. */
  openIn(factory: string): { requests: number; seats: number; filled: number } {
    let requests = 0;
    let seats = 0;
    const runtime = this.registry.get(factory);
    const strategy = runtime?.identity.template.strategy;
    for (const { record } of this.requests.values()) {
      if (record.factory !== factory) continue;
      requests += 1;
      if (strategy?.kind === 'competitive') seats += seatsAsked(record, strategy.settings.teams, strategy.settings.teamSize);
    }
    return { requests, seats, filled: this.filledIn.get(factory) ?? 0 };
  }

  get size(): number {
    return this.requests.size;
  }
}

import { playersPerGame } from '../../config/config.js';
import type { FactoryRegistry } from '../../factories/factory-registry.js';
import type { CoreContext } from '../core-context.js';
import type { FactoryRuntime } from '../factory-runtime.js';
import type { GameCreations } from '../game-creations.js';
import type { Assignment, FindRequest, RunningGame } from '../messages.js';
import type { RestoredTicket, RestoredTickets } from '../tickets/restored-tickets.js';
import type { PlacedRecord } from '../tickets/ticket-record.js';
import type { TicketDesk } from '../tickets/ticket-desk.js';
import type { RunningGames } from './running-games.js';
import type { ServerRoster } from './server-roster.js';

/** A stored ticket whose game was ordered on a server by an earlier process or owner. */
interface Rider {
  readonly ticketId: string;
  readonly request: FindRequest;
  readonly players: readonly string[];
  readonly placed: PlacedRecord;
  /** Not retried yet: its retry gets the game. Otherwise it waits in TicketDesk for it. */
  readonly restored: RestoredTicket | undefined;
}

/**
 * Games the coordinator ordered before a restart, or before a shard's owner changed, coming back:
 * in a server's hello (it created the game meanwhile) or as a late confirmation of the order (the
 * server answers after the order's sender died). The tickets stored with the order's request id
 * get their seats in it and its assignment, instead of starting over and being seated twice.
 */
export class OrderedGames {
  constructor(
    private readonly ctx: CoreContext,
    private readonly registry: FactoryRegistry<FactoryRuntime>,
    private readonly roster: ServerRoster,
    private readonly games: RunningGames,
    private readonly creations: GameCreations,
    private readonly desk: TicketDesk,
    private readonly restored: RestoredTickets,
  ) {}

  /**
   * A re-announced game ordered with a stored ticket's request id: their players get their seats in
   * it, and the tickets its assignment (into `assignments` for those retried and waiting for this
   * server; kept for the retry of the others). A party whose player is seated elsewhere since, or
   * that no longer fits, is left to find another game. False when the game is not one of those.
   */
  announced(serverId: string, endpoint: string, game: RunningGame, assignments: Map<string, Assignment>): boolean {
    if (game.requestId === undefined) return false;
    const riders = this.seat(serverId, endpoint, game, this.ridersOf(game.requestId, serverId), assignments);
    if (riders === 0) return false;
    this.ctx.out.info({ serverId, gameId: game.gameId, tickets: riders }, 'a game ordered before the restart is back: its tickets get it');
    return true;
  }

  /**
   * The server confirms an order this core did not send (its sender died or restarted before the
   * answer came): when stored tickets were placed with that request id, the game is theirs, as
   * if announced. False when no such ticket is left to take it.
   */
  confirmedLate(serverId: string, requestId: string, gameId: string): boolean {
    const server = this.roster.get(serverId);
    if (!server || gameId === '' || this.games.get(gameId) !== undefined) return false;
    const riders = this.ridersOf(requestId, serverId).filter((r) => r.restored?.assignment === undefined);
    const first = riders[0];
    if (!first) return false;
    const runtime = this.registry.get(this.registry.resolve(first.request.template, first.request.partition));
    if (!runtime) return false;
    const game: RunningGame = {
      gameId,
      factory: runtime.identity.name,
      requestId,
      // What the order was made with: a creation's attributes are its first ticket's.
      matchable: first.request.matchable,
      playerIds: [],
      open: runtime.strategy === 'cooperative',
      startedAt: this.ctx.now(),
    };
    const assignments = new Map<string, Assignment>();
    const seated = this.seat(serverId, server.hello.endpoint, game, riders, assignments);
    if (seated === 0) return false;
    this.creations.gameAdopted(serverId);
    this.desk.orderedGameBack(assignments);
    this.desk.offerSeats(game.factory);
    this.ctx.out.info({ serverId, gameId, tickets: seated }, 'a game ordered before the matcher moved is confirmed late: its tickets get it');
    return true;
  }

  /** The server failed an order this core did not send: its waiting tickets go on as new at once. */
  failedLate(serverId: string, requestId: string): boolean {
    const waiting = this.desk.awaitingOn(serverId).filter((w) => w.placed.requestId === requestId);
    for (const { ticket } of waiting) this.desk.stopAwaiting(ticket.id);
    return waiting.length > 0;
  }

  private ridersOf(requestId: string, serverId: string): Rider[] {
    return [
      ...this.restored.placedIn(requestId, serverId).map((t) => ({
        ticketId: t.record.request.ticketId,
        request: t.record.request,
        players: t.record.request.party.map((p) => p.playerId),
        placed: t.record.placed!,
        restored: t,
      })),
      ...this.desk
        .awaitingOn(serverId)
        .filter((w) => w.placed.requestId === requestId)
        .map((w) => ({ ticketId: w.ticket.id, request: w.ticket.request, players: w.ticket.playerIds, placed: w.placed, restored: undefined })),
    ];
  }

  /** Seats the riders that still fit in `game`, adopted as the coordinator's; how many got it. */
  private seat(serverId: string, endpoint: string, game: RunningGame, candidates: readonly Rider[], assignments: Map<string, Assignment>): number {
    if (candidates.length === 0) return 0;
    const runtime = this.registry.get(game.factory)!;
    const size = playersPerGame(runtime.identity.template.strategy);
    const seated = new Set(game.playerIds);
    const riders = candidates.filter(({ players }) => {
      const fresh = players.filter((p) => !seated.has(p));
      if (fresh.some((p) => this.games.seatHeld(p) !== undefined) || seated.size + fresh.length > size) return false;
      for (const p of fresh) seated.add(p);
      return true;
    });
    if (riders.length === 0) return 0;
    const players = riders.flatMap((r) => r.players);
    this.games.adoptOrdered(serverId, game, players, riders[0]!.placed.token, Math.min(...riders.map((r) => r.placed.at)));
    for (const rider of riders) {
      const p = rider.placed;
      const assignment: Assignment = {
        gameId: game.gameId,
        serverId,
        serverEndpoint: endpoint,
        factory: runtime.identity.name,
        reservationToken: p.token,
        created: true,
        map: p.map,
        region: p.region,
        team: p.team,
      };
      if (rider.restored) rider.restored.assignment = assignment;
      else assignments.set(rider.ticketId, assignment);
    }
    return riders.length;
  }
}

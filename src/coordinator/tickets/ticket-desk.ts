import { MatchmakingError } from '../../errors/index.js';
import type { FactoryRegistry } from '../../factories/factory-registry.js';
import { TicketOwnership } from '../../security/roles/ticket-ownership.js';
import type { Principal } from '../../security/tokens/principal.js';
import { ticketAssignment } from '../seat-tokens.js';
import type { CoreContext } from '../core-context.js';
import { DeadlineKind } from '../deadlines.js';
import type { FindOutcome } from '../edges/events.js';
import type { AdmitDecision, FactoryRuntime, SeatMatch } from '../factory-runtime.js';
import type { GameCreations } from '../game-creations.js';
import type { Assignment, FindRequest, TicketListener } from '../messages.js';
import type { RunningGames } from '../servers/running-games.js';
import type { ServerRoster } from '../servers/server-roster.js';
import type { Proposal, ReadyChecks } from '../acceptance/ready-checks.js';
import { AwaitingServers } from './awaiting-servers.js';
import type { ParkedTickets, RestoredTicket, RestoredTickets } from './restored-tickets.js';
import { checkOwner, resumedElsewhere, ticketIdReused } from './restored-tickets.js';
import { fingerprint, fingerprintHash, type AnsweredTicket, type Ticket } from './ticket.js';
import type { TicketBook } from './ticket-book.js';
import type { PlacedRecord, TicketRecord } from './ticket-record.js';

/** Competitive tickets one factory's pool holds when the config does not say (placement.maxPooledPerFactory). */
const DEFAULT_MAX_POOLED = 100_000;

/** How long an assigned ticket is kept so a retry with its id gets the same assignment. */
const ASSIGNED_RETENTION_MS = 30_000;

/**
 * The ticket side of the core: FindGame, CancelFind and a stream going away come in here; the
 * factory's decision for each ticket is applied to the TicketBook, GameCreations and RunningGames;
 * updates leave as effects for the ticket's listener, orders through the roster. The edge has
 * claimed the ticket's players before a find comes in; it gives the arrival order too, unless the
 * ticket was restored (then it keeps its own).
 */
export class TicketDesk {
  private stopping = false;
  private readonly awaiting = new AwaitingServers();
  /** The last arrival number given: a new ticket's priority for a slot is the next one. */
  private lastArrival: number;

  constructor(
    private readonly ctx: CoreContext,
    private readonly registry: FactoryRegistry<FactoryRuntime>,
    private readonly book: TicketBook,
    private readonly roster: ServerRoster,
    private readonly games: RunningGames,
    private readonly creations: GameCreations,
    private readonly restored: RestoredTickets,
    private readonly parked: ParkedTickets,
    restoredRecords: readonly TicketRecord[],
    /**
     * Until then, a find for a factory no server serves yet waits for one instead of being
     * refused: servers re-announce themselves right after a restart or a change of owner.
     */
    private readonly awaitServersUntil: number,
    private readonly readyChecks: ReadyChecks,
  ) {
    // Arrivals go on after the restored ones, so a retried ticket keeps its place ahead of new ones.
    this.lastArrival = restoredRecords.reduce((last, r) => Math.max(last, r.arrival), 0);
  }

  beginShutdown(): void {
    this.stopping = true;
  }

  /**
   * FindGame: resumes the ticket with this id, or starts a new one. Throws MatchmakingError for a
   * request that can never succeed as asked; everything after that goes to `listener`.
   */
  find(request: FindRequest, listener: TicketListener): void {
    const existing = this.book.get(request.ticketId);
    if (existing) return this.resume(existing, request, listener);
    const answered = this.book.answered(request.ticketId);
    if (answered) return this.resumeAnswered(answered, request, listener);
    const restored = this.restored.take(request);
    const ordered = restored?.assignment;
    if (restored && ordered && this.games.get(ordered.gameId)?.serverId === ordered.serverId) return this.reopenAssigned(restored, ordered, listener);
    const placed = restored?.record.placed;
    if (restored && placed && !ordered && !this.stopping && (!this.roster.get(placed.serverId) || this.mayStillBeConfirmed(placed))) return this.awaitServer(restored, placed, listener);
    // A restored ticket may come back before the servers do, and so may any find while they
    // reconnect after a start: it waits for its factory.
    const name =
      restored || this.ctx.now() < this.awaitServersUntil
        ? this.registry.resolve(request.template, request.partition)
        : this.registry.select(request.template, request.partition).name;
    const runtime = this.registry.get(name);
    try {
      runtime?.validate(request);
      for (const player of request.party) {
        const gameId = this.games.seatHeld(player.playerId);
        if (gameId !== undefined) {
          throw new MatchmakingError('FAILED_PRECONDITION', `party: player "${player.playerId}" is in game "${gameId}"; leave it before finding another`);
        }
      }
      const waiting = this.creations.waiting(name);
      if (!restored && waiting >= this.ctx.config.placement.maxQueuedPerFactory) {
        throw new MatchmakingError('RESOURCE_EXHAUSTED', `${name}: ${waiting} requests already wait for a game server slot; retry later`, this.creations.estimatedWaitMs(name) ?? 1000);
      }
      const maxPooled = this.ctx.config.placement.maxPooledPerFactory ?? DEFAULT_MAX_POOLED;
      if (!restored && runtime?.strategy === 'competitive' && runtime.waiting() >= maxPooled) {
        throw new MatchmakingError('RESOURCE_EXHAUSTED', `${name}: ${runtime.waiting()} tickets already wait in its pool, the limit (placement.maxPooledPerFactory = ${maxPooled}); retry later`, 1000);
      }
    } catch (error) {
      if (restored) this.restored.putBack(restored);
      throw error;
    }
    const now = this.ctx.now();
    this.creations.recordDemand(name);
    const createdAt = restored?.record.createdAt ?? now;
    const ticket = this.book.open(
      {
        id: request.ticketId,
        request,
        // The factory's own copy of its name: one string for all its tickets, not one each.
        factory: runtime?.identity.name ?? name,
        createdAt,
        arrival: restored ? restored.record.arrival : ++this.lastArrival,
        owner: restored ? restored.record.owner : request.caller && TicketOwnership.ownerOf(request.caller, request.party.map((p) => p.playerId)),
      },
      runtime ? 'pooled' : 'parked',
      listener,
      restored !== undefined,
    );
    this.expireAt(ticket.id, createdAt + this.ctx.config.placement.ticketTtlMs);
    if (runtime) {
      this.admit(ticket, runtime);
    } else {
      this.parked.add(ticket);
      this.queuedAt(ticket, 0);
    }
    // Pooled or parked: it waits, so it must survive a restart (queued ones are stored on enqueue).
    const state = this.book.get(ticket.id)?.state.kind;
    if (state === 'pooled' || state === 'parked') this.book.persist(ticket.id);
  }

  /**
   * A ticket from before a restart whose game was ordered then and re-announced since by its
   * server: the retry gets that game (its seats are held), not a new one.
   */
  private reopenAssigned(restored: RestoredTicket, assignment: Assignment, listener: TicketListener): void {
    const { record } = restored;
    const ticket = this.book.open(
      {
        id: record.request.ticketId,
        request: record.request,
        factory: this.registry.get(assignment.factory)?.identity.name ?? assignment.factory,
        createdAt: record.createdAt,
        arrival: record.arrival,
        owner: record.owner,
      },
      'pooled',
      listener,
      true,
    );
    this.assign(ticket.id, assignment);
  }

  /**
   * A ticket from before a restart (or a change of matcher owner) whose game was ordered on a
   * server: it waits for that server's answer rather than start over at once and be seated twice.
   * A server that has not reconnected may come back with the game (up to createTimeoutMs, a
   * CreateGame's own time to answer); a connected one announced with the order unanswered (by a
   * node that holds it, to a shard's new owner) may still confirm it late, until the order's window
   * ends (OrderedGames).
   */
  private awaitServer(restored: RestoredTicket, placed: PlacedRecord, listener: TicketListener): void {
    const { record } = restored;
    const name = this.registry.resolve(record.request.template, record.request.partition);
    const ticket = this.book.open(
      {
        id: record.request.ticketId,
        request: record.request,
        factory: this.registry.get(name)?.identity.name ?? name,
        createdAt: record.createdAt,
        arrival: record.arrival,
        owner: record.owner,
      },
      'parked',
      listener,
      true,
    );
    this.expireAt(ticket.id, record.createdAt + this.ctx.config.placement.ticketTtlMs);
    this.awaiting.add(ticket, placed);
    const until = this.roster.get(placed.serverId) ? this.orderWindowEnd(placed) : this.ctx.now() + this.ctx.config.placement.createTimeoutMs;
    this.ctx.deadlines.set(DeadlineKind.AwaitServer, ticket.id, until);
    this.queuedAt(ticket, 0);
  }

  /** When an order sent at `placed.at` can no longer be answered: its confirm window, capped on this clock (another node's may run ahead). */
  private orderWindowEnd(placed: PlacedRecord): number {
    const window = this.ctx.config.placement.createTimeoutMs;
    return Math.min(placed.at + window, this.ctx.now() + window);
  }

  /** The order's server is connected and was announced with the order still unanswered, inside its window. */
  private mayStillBeConfirmed(placed: PlacedRecord): boolean {
    const pending = this.roster.get(placed.serverId)?.hello.pendingCreations;
    return pending !== undefined && pending.includes(placed.requestId) && this.orderWindowEnd(placed) > this.ctx.now();
  }

  /** Tickets waiting for `serverId` to come back, with where their game was ordered. */
  awaitingOn(serverId: string): readonly { readonly ticket: Ticket; readonly placed: PlacedRecord }[] {
    return this.awaiting.on(serverId);
  }

  /**
   * The server tickets waited for is back: those whose game it re-announced get it; the others
   * wait on while their order may still be confirmed, then go on as new, by arrival (their creation
   * was in flight: ahead of those still in line).
   */
  serverBack(serverId: string, assignments: ReadonlyMap<string, Assignment>): void {
    for (const { ticket, placed } of this.awaiting.on(serverId).sort((a, b) => a.ticket.arrival - b.ticket.arrival)) {
      const assignment = assignments.get(ticket.id);
      if (assignment) {
        this.gotOrderedGame(ticket.id, assignment);
      } else if (this.mayStillBeConfirmed(placed)) {
        this.ctx.deadlines.set(DeadlineKind.AwaitServer, ticket.id, this.orderWindowEnd(placed));
      } else {
        this.awaiting.remove(ticket.id);
        this.ctx.deadlines.delete(DeadlineKind.AwaitServer, ticket.id);
        this.admitWaiting(ticket);
      }
    }
  }

  /** A game ordered before the restart was confirmed late: the tickets waiting for it get it. */
  orderedGameBack(assignments: ReadonlyMap<string, Assignment>): void {
    for (const [ticketId, assignment] of assignments) this.gotOrderedGame(ticketId, assignment);
  }

  private gotOrderedGame(ticketId: string, assignment: Assignment): void {
    if (!this.awaiting.remove(ticketId)) return;
    this.ctx.deadlines.delete(DeadlineKind.AwaitServer, ticketId);
    this.book.pool(ticketId);
    this.assign(ticketId, assignment);
  }

  /** The server a ticket waited for did not come back in time: it goes on as a new ticket would. */
  stopAwaiting(ticketId: string): void {
    if (!this.awaiting.remove(ticketId)) return;
    const ticket = this.book.get(ticketId);
    if (ticket?.state.kind === 'parked') this.admitWaiting(ticket);
  }

  private admitWaiting(ticket: Ticket): void {
    const runtime = this.registry.get(ticket.factory);
    if (!runtime) return this.parked.add(ticket);
    try {
      runtime.validate(ticket.request);
    } catch (error) {
      return this.finish(ticket, 'failed', error as MatchmakingError);
    }
    this.admit(this.book.pool(ticket.id), runtime);
  }

  /** A new or returning ticket: seats in an open game if one fits, else what its factory decides. */
  private admit(ticket: Ticket, runtime: FactoryRuntime): void {
    const seats = this.games.reserve(runtime, ticket);
    if (seats) this.seat(ticket, seats);
    else this.apply(ticket, runtime.admit(ticket));
  }

  /** Applies a factory's answer to a ticket no open game could take. */
  private apply(ticket: Ticket, decision: AdmitDecision): void {
    switch (decision.kind) {
      case 'pooled':
        return this.queuedAt(ticket, 0, decision.estimatedWaitMs);
      case 'create':
        if (decision.plan.rideKey !== undefined && this.creations.rideAlong(ticket, decision.plan.rideKey)) return;
        this.creations.create(decision.plan);
    }
  }

  /** Seats reserved in an open game: the server hears of them and the ticket is assigned. */
  private seat(ticket: Ticket, seats: SeatMatch): void {
    const game = this.games.get(seats.gameId)!; // the matcher only knows running games
    this.roster.send(game.serverId, {
      kind: 'reserveSeats',
      gameId: seats.gameId,
      playerIds: ticket.playerIds,
      reservationToken: seats.reservationToken,
      expiresInMs: seats.expiresInMs,
    }, seats.reservationToken);
    this.assign(ticket.id, {
      gameId: seats.gameId,
      serverId: game.serverId,
      serverEndpoint: this.roster.endpoint(game.serverId) ?? '',
      factory: ticket.factory,
      reservationToken: seats.reservationToken,
      created: false,
      map: '',
      region: '',
      team: 0,
    });
  }

  /** Seats may have opened in a cooperative factory: queued parties at the head of its line may take them. */
  offerSeats(factory: string): void {
    const runtime = this.registry.get(factory);
    if (runtime?.strategy !== 'cooperative' || this.creations.waiting(factory) === 0) return;
    for (const queued of this.creations.queuedHead(factory)) {
      const ticket = this.book.get(queued.id);
      if (ticket?.state.kind !== 'placing') continue;
      const seats = this.games.reserve(runtime, ticket);
      if (!seats) continue;
      this.creations.leave(ticket);
      this.seat(ticket, seats);
    }
  }

  private queuedAt(ticket: Ticket, position: number, estimatedWaitMs?: number): void {
    this.ctx.out.update(ticket.listener, ticket.id, { kind: 'queued', factory: ticket.factory, position, estimatedWaitMs });
  }

  /** Restored tickets waiting for their factory's servers to reconnect join it, oldest first. */
  admitParked(name: string): void {
    const runtime = this.registry.get(name);
    if (!runtime) return;
    for (const ticket of this.parked.takeAll(name)) {
      try {
        runtime.validate(ticket.request);
      } catch (error) {
        this.finish(ticket, 'failed', error as MatchmakingError);
        continue;
      }
      this.admit(this.book.pool(ticket.id), runtime);
    }
  }

  private resume(ticket: Ticket, request: FindRequest, listener: TicketListener): void {
    // Computed on a retry only: a fingerprint kept per ticket was a few hundred bytes each.
    if (fingerprint(ticket.request) !== fingerprint(request)) throw ticketIdReused(ticket.id);
    checkOwner(request.caller, ticket.owner, ticket.id, 'resume');
    const previous = this.book.listen(ticket.id, listener);
    if (previous && previous !== listener) {
      this.ctx.out.fail(previous, ticket.id, resumedElsewhere(ticket.id));
    }
    if (ticket.state.kind === 'placing') this.creations.reportPosition(ticket);
    else if (ticket.state.kind === 'proposed') this.readyChecks.remind(ticket);
    else this.queuedAt(ticket, 0);
  }

  /**
   * A retry of a ticket that has its game: the same assignment, if it is the same request from its
   * owner. The call is answered at once, so no listener is kept; the players the edge claimed for
   * the retry are given back (the assigned ticket holds none).
   */
  private resumeAnswered(answered: AnsweredTicket, request: FindRequest, listener: TicketListener): void {
    const [high, low] = fingerprintHash(request);
    if (high !== answered.hashHigh || low !== answered.hashLow) throw ticketIdReused(answered.id);
    checkOwner(request.caller, answered.owner, answered.id, 'resume');
    this.ctx.out.push({ kind: 'release', ticketId: answered.id, playerIds: request.party.map((p) => p.playerId) });
    this.ctx.out.update(listener, answered.id, { kind: 'assigned', assignment: answered.assignment });
  }

  /** CancelFind. False when no ticket with that id is waiting. */
  cancel(ticketId: string, caller?: Principal): boolean {
    const ticket = this.book.get(ticketId);
    if (!ticket) return false;
    checkOwner(caller, ticket.owner, ticketId, 'cancel');
    this.finish(ticket, 'cancelled', new MatchmakingError('CANCELLED', `ticket "${ticketId}" was cancelled`));
    return true;
  }

  /** The client's stream went away: its waiting ticket is cancelled, unless another call resumed it. */
  abandon(ticketId: string, listener: TicketListener): void {
    const ticket = this.book.get(ticketId);
    if (!ticket || ticket.listener !== listener) return;
    this.book.listen(ticketId, undefined);
    // Streams cut by our own shutdown are not clients giving up: their tickets stay stored.
    if (this.stopping) return;
    this.finish(ticket, 'cancelled', undefined);
  }

  private expireAt(ticketId: string, at: number): void {
    this.ctx.deadlines.set(DeadlineKind.TicketExpiry, ticketId, at);
  }

  /** An assigned ticket's retention is over: a retry with its id is a new ticket from now on. */
  retentionOver(ticketId: string): void {
    if (this.book.answered(ticketId)) this.book.forget(ticketId);
  }

  /** The ticket's time to live is over. */
  expire(ticketId: string): void {
    if (this.book.answered(ticketId)) {
      this.book.forget(ticketId);
      return;
    }
    const ticket = this.book.get(ticketId);
    if (!ticket) return;
    const ttlSeconds = this.ctx.config.placement.ticketTtlMs / 1000;
    const waitedSeconds = ((this.ctx.now() - ticket.createdAt) / 1000).toFixed(1);
    this.finish(
      ticket,
      'expired',
      new MatchmakingError('DEADLINE_EXCEEDED', `ticket "${ticketId}" was not assigned within its time to live (placement.ticketTtlSeconds: ${ttlSeconds}; waited ${waitedSeconds} s): ${whyStillWaiting(ticket)}`),
    );
  }

  /** Ends a waiting ticket without an assignment and frees its players. */
  private finish(ticket: Ticket, outcome: Exclude<FindOutcome, 'assigned'>, error: MatchmakingError | undefined): void {
    this.ctx.deadlines.delete(DeadlineKind.TicketExpiry, ticket.id);
    const state = ticket.state;
    this.parked.remove(ticket);
    if (this.awaiting.remove(ticket.id)) this.ctx.deadlines.delete(DeadlineKind.AwaitServer, ticket.id);
    if (state.kind === 'placing') {
      const repool = this.creations.leave(ticket);
      const runtime = this.registry.get(ticket.factory);
      for (const id of repool) {
        if (this.book.get(id) && runtime) this.admit(this.book.pool(id), runtime);
      }
    } else if (state.kind === 'proposed') {
      // Its match breaks; the others go back once this one has left the book.
      const proposal = this.readyChecks.left(state.matchId);
      this.book.end(ticket.id, outcome);
      this.ended(ticket, outcome, error);
      if (proposal) this.returnToPool(proposal, new Set([ticket.id]));
      return;
    } else {
      this.registry.get(ticket.factory)?.withdraw(ticket.id);
    }
    this.book.end(ticket.id, outcome);
    this.ended(ticket, outcome, error);
  }

  private ended(ticket: Ticket, outcome: Exclude<FindOutcome, 'assigned'>, error: MatchmakingError | undefined): void {
    this.ctx.out.event('findFinished', { ticketId: ticket.id, factory: ticket.factory, outcome, elapsedMs: this.ctx.now() - ticket.createdAt });
    if (error) this.ctx.out.fail(ticket.listener, ticket.id, error);
    this.ctx.maybeIdle.add(ticket.factory);
  }

  /**
   * A ready check broke (a decline, or its time ran out): the tickets in `ending` end with
   * `outcome`; the others go back to their factory's pool at their original arrival and creation
   * time, so their windows stay as wide as they were and they keep their priority for a slot.
   */
  breakMatch(proposal: Proposal, ending: ReadonlySet<string>, outcome: 'declined' | 'acceptance-timed-out'): void {
    for (const id of ending) {
      const ticket = this.book.get(id);
      if (ticket?.state.kind !== 'proposed') continue;
      this.ctx.deadlines.delete(DeadlineKind.TicketExpiry, id);
      this.book.end(id, outcome);
      const error =
        outcome === 'declined'
          ? new MatchmakingError('CANCELLED', `ticket "${id}" declined match "${proposal.matchId}"`)
          : new MatchmakingError('DEADLINE_EXCEEDED', `ticket "${id}" did not accept match "${proposal.matchId}" in time (acceptance timed out)`);
      this.ended(ticket, outcome, error);
    }
    this.returnToPool(proposal, ending);
  }

  /** The tickets of a broken match, but `except`, wait again in their pool as they were. */
  private returnToPool(proposal: Proposal, except: ReadonlySet<string>): void {
    // A factory with a proposal out is never drained (CoordinatorCore.settleIdle), so it is here.
    const runtime = this.registry.get(proposal.factory);
    if (!runtime) return;
    for (const team of proposal.teams) {
      for (const id of team) {
        if (except.has(id) || this.book.get(id)?.state.kind !== 'proposed') continue;
        const ticket = this.book.pool(id);
        // A reload while it was proposed may have changed what its factory takes.
        try {
          runtime.validate(ticket.request);
        } catch (error) {
          this.finish(ticket, 'failed', error as MatchmakingError);
          continue;
        }
        this.admit(ticket, runtime);
      }
    }
  }

  /** A ticket got its game: tell the client, and keep the ticket for retries a while. */
  assign(ticketId: string, gameAssignment: Assignment): void {
    const waiting = this.book.get(ticketId);
    // The ticket's own copy names its players, whose seat tokens the edge gives them; kept for a retry.
    const assignment = waiting && !gameAssignment.party ? ticketAssignment(gameAssignment, waiting.playerIds) : gameAssignment;
    const ticket = this.book.assign(ticketId, assignment);
    // Kept only as long as a client plausibly retries, not for the whole TTL: at thousands of
    // finds a second, a 5-minute tail of finished tickets is what the heap would be made of. The
    // waiting ticket's expiry goes; the retention is appended (in time order, never replaced).
    this.ctx.deadlines.delete(DeadlineKind.TicketExpiry, ticketId);
    this.ctx.deadlines.append(DeadlineKind.Retention, ticketId, Math.min(this.ctx.now() + ASSIGNED_RETENTION_MS, ticket.createdAt + this.ctx.config.placement.ticketTtlMs));
    this.ctx.out.event('findFinished', { ticketId, factory: ticket.factory, outcome: 'assigned', elapsedMs: this.ctx.now() - ticket.createdAt });
    // The call is answered: what is kept for a retry holds no listener (a retry brings its own).
    this.ctx.out.update(ticket.listener, ticketId, { kind: 'assigned', assignment });
  }
}

/** Why a ticket that runs out of time was still waiting, from where it stood. */
function whyStillWaiting(ticket: Ticket): string {
  switch (ticket.state.kind) {
    case 'parked':
      return `no game server that hosts ${ticket.factory} connected`;
    case 'pooled':
      return `no match was found for it in ${ticket.factory}`;
    case 'placing':
      return ticket.state.position === undefined
        ? `its game in ${ticket.factory} was ordered from a game server but not confirmed`
        : `its game in ${ticket.factory} was still in line (position ${ticket.state.position}) for a free slot on a game server`;
    default:
      return 'it was not waiting';
  }
}

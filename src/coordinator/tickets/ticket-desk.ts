import type { Eventually } from '../../cluster/ports.js';
import { whenReady } from '../../cluster/ports.js';
import type { CoordinatorConfig } from '../../config/config.js';
import { MatchmakingError } from '../../errors/index.js';
import type { FactoryRegistry } from '../../factories/factory-registry.js';
import type { PlacementPort } from '../../placement/index.js';
import type { FindOutcome } from '../edges/events.js';
import type { AdmitDecision, FactoryRuntime, SeatMatch } from '../factory-runtime.js';
import type { GameCreations } from '../game-creations.js';
import type { Assignment, FindRequest, TicketListener } from '../messages.js';
import type { CoreDeps, TicketRecord } from '../ports.js';
import type { Principal } from '../../security/tokens/principal.js';
import type { ServerRoster } from '../servers/server-roster.js';
import type { ParkedTickets, RestoredTickets } from './restored-tickets.js';
import { checkOwner, ticketIdReused } from './restored-tickets.js';
import { ExpiryHeap } from './expiry-heap.js';
import { TicketOwnership } from '../../security/roles/ticket-ownership.js';
import { fingerprint, type EndReason, type Ticket } from './ticket.js';
import type { TicketBook } from './ticket-book.js';

/** How long an assigned ticket is kept so a retry with its id gets the same assignment. */
const ASSIGNED_RETENTION_MS = 30_000;

/**
 * The ticket side of the core: FindGame, CancelFind and a stream going away come in here; the
 * factory's decision for each ticket is applied to the TicketBook, GameCreations and the
 * ServerRoster; updates go out through the ticket's listener and orders through the roster.
 */
export class TicketDesk {
  /** Each ticket's pending expiry (time to live while waiting, retention once assigned). */
  private readonly expiries: ExpiryHeap;
  private stopping = false;

  constructor(
    private readonly config: CoordinatorConfig,
    private readonly deps: CoreDeps,
    private readonly registry: FactoryRegistry<FactoryRuntime>,
    private readonly book: TicketBook,
    private readonly roster: ServerRoster,
    private readonly creations: GameCreations,
    private readonly restored: RestoredTickets,
    private readonly parked: ParkedTickets,
    private readonly placement: PlacementPort,
    /** A ticket ended: its factory may have nothing left waiting in it. */
    private readonly factoryMayBeIdle: (factory: string) => void,
  ) {
    this.expiries = new ExpiryHeap(deps.timers, deps.now, (ticketId) => this.expire(ticketId));
  }

  beginShutdown(): void {
    this.stopping = true;
  }


  /**
   * FindGame: resumes the ticket with this id, or starts a new one. Throws MatchmakingError for a
   * request that can never succeed as asked; everything after that is reported to `listener`.
   */
  find(request: FindRequest, listener: TicketListener): void {
    const existing = this.book.get(request.ticketId);
    if (existing) return this.resume(existing, request, listener);
    const restored = this.restored.take(request);
    // A restored ticket may come back before the servers do: it waits for its factory.
    const name = restored
      ? this.registry.resolve(request.template, request.partition)
      : this.registry.select(request.template, request.partition).name;
    const runtime = this.registry.get(name);
    try {
      runtime?.validate(request);
      for (const player of request.party) {
        const gameId = this.roster.gameOf(player.playerId);
        if (gameId !== undefined) {
          throw new MatchmakingError('FAILED_PRECONDITION', `party: player "${player.playerId}" is in game "${gameId}"; leave it before finding another`);
        }
      }
      const waiting = this.creations.waiting(name);
      if (!restored && waiting >= this.config.placement.maxQueuedPerFactory) {
        throw new MatchmakingError('RESOURCE_EXHAUSTED', `${name}: ${waiting} requests already wait for a game server slot; retry later`, this.creations.estimatedWaitMs(name) || 1000);
      }
    } catch (error) {
      if (restored) this.restored.putBack(restored);
      throw error;
    }
    const playerIds = request.party.map((p) => p.playerId);
    // Cluster-wide: one live ticket per player, and the arrival that orders the queue. The
    // in-process adapters answer at once; a shared store's answer arrives later, and then an
    // error reaches the client through its listener instead of being thrown.
    const opened = whenReady(this.deps.cluster.players.claim(request.ticketId, playerIds), (conflict) => {
      if (conflict) {
        if (restored) this.restored.putBack(restored);
        throw new MatchmakingError('ALREADY_EXISTS', `party: player "${conflict.playerId}" is already finding a game in ticket "${conflict.ticketId}"`);
      }
      return whenReady(restored ? restored.record.arrival : this.deps.cluster.arrivals.next(), (arrival) =>
        this.open(request, listener, name, restored?.record, arrival),
      );
    });
    if (opened instanceof Promise) {
      opened.catch((error: unknown) =>
        listener.fail(error instanceof MatchmakingError ? error : new MatchmakingError('UNAVAILABLE', 'the cluster could not be reached; retry')),
      );
    }
  }

  private open(request: FindRequest, listener: TicketListener, name: string, restored: TicketRecord | undefined, arrival: number): void {
    const runtime = this.registry.get(name);
    const now = this.deps.now();
    this.background(this.placement.recordDemand(name));
    const createdAt = restored?.createdAt ?? now;
    const ticket = this.book.open(
      {
        id: request.ticketId,
        request,
        // The factory's own copy of its name: one string for all its tickets, not one each.
        factory: runtime?.identity.name ?? name,
        playerIds: request.party.map((p) => p.playerId),
        createdAt,
        arrival,
        owner: restored ? restored.owner : request.caller && TicketOwnership.ownerOf(request.caller, request.party.map((p) => p.playerId)),
      },
      runtime ? 'pooled' : 'parked',
      listener,
      restored !== undefined,
    );
    this.expireAfter(ticket.id, createdAt + this.config.placement.ticketTtlMs - now);
    if (runtime) {
      this.apply(ticket, runtime.admit(ticket));
    } else {
      this.parked.add(ticket);
      this.queuedAt(ticket, 0);
    }
    // Pooled or parked: it waits, so it must survive a restart (queued ones are stored on enqueue).
    const state = this.book.get(ticket.id)?.state.kind;
    if (state === 'pooled' || state === 'parked') this.book.persist(ticket.id);
  }

  /** Applies a factory's answer to a ticket. */
  private apply(ticket: Ticket, decision: AdmitDecision): void {
    switch (decision.kind) {
      case 'matched':
        return this.seat(ticket, decision.seats);
      case 'pooled':
        return this.queuedAt(ticket, 0);
      case 'create':
        if (decision.plan.rideKey !== undefined && this.creations.rideAlong(ticket, decision.plan.rideKey)) return;
        this.creations.create(decision.plan);
    }
  }

  /** Applies what a factory decided on its own clock. */
  private seat(ticket: Ticket, seats: SeatMatch): void {
    const game = this.roster.game(seats.gameId)!; // the matcher only knows running games
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
    this.creations.queuedHead(factory).then(
      (tickets) => {
        for (const queued of tickets) {
          const ticket = this.book.get(queued.id);
          if (ticket?.state.kind !== 'placing') continue;
          const seats = runtime.match(ticket);
          if (!seats) continue;
          this.creations.leave(ticket);
          this.seat(ticket, seats);
        }
      },
      (error: unknown) => this.deps.log.warn({ err: error, factory }, 'offering seats to the queue failed'),
    );
  }

  private queuedAt(ticket: Ticket, position: number): void {
    ticket.listener?.update({ kind: 'queued', factory: ticket.factory, position, estimatedWaitMs: 0 });
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
      this.apply(this.book.pool(ticket.id), runtime.admit(ticket));
    }
  }

  private resume(ticket: Ticket, request: FindRequest, listener: TicketListener): void {
    // Computed on a retry only: a fingerprint kept per ticket was a few hundred bytes each.
    if (fingerprint(ticket.request) !== fingerprint(request)) throw ticketIdReused(ticket.id);
    checkOwner(request.caller, ticket.owner, ticket.id, 'resume');
    const previous = this.book.listen(ticket.id, listener);
    if (previous && previous !== listener) {
      previous.fail(new MatchmakingError('CANCELLED', `ticket "${ticket.id}" was resumed by another call`));
    }
    const state = ticket.state;
    if (state.kind === 'assigned') listener.update({ kind: 'assigned', assignment: state.assignment });
    else if (state.kind === 'placing') this.creations.reportPosition(ticket);
    else this.queuedAt(ticket, 0);
  }

  /** CancelFind. False when no ticket with that id is waiting. */
  cancel(ticketId: string, caller?: Principal): boolean {
    const ticket = this.book.get(ticketId);
    if (!ticket || ticket.state.kind === 'assigned') return false;
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
    if (ticket.state.kind !== 'assigned') this.finish(ticket, 'cancelled', undefined);
  }

  private expireAfter(ticketId: string, ms: number): void {
    this.expiries.set(ticketId, ms);
  }

  private expire(ticketId: string): void {
    this.expiries.delete(ticketId);
    const ticket = this.book.get(ticketId);
    if (!ticket) return;
    if (ticket.state.kind === 'assigned') {
      this.book.end(ticketId, 'retention-over');
      return;
    }
    this.finish(ticket, 'expired', new MatchmakingError('DEADLINE_EXCEEDED', `ticket "${ticketId}" was not assigned within its time to live`));
  }

  /** Ends a waiting ticket without an assignment and frees its players. */
  private finish(ticket: Ticket, outcome: Exclude<FindOutcome, 'assigned'>, error: MatchmakingError | undefined): void {
    this.expiries.delete(ticket.id);
    const state = ticket.state;
    this.parked.remove(ticket);
    if (state.kind === 'placing') {
      const repool = this.creations.leave(ticket);
      const runtime = this.registry.get(ticket.factory);
      for (const id of repool) {
        const other = this.book.get(id);
        if (other && runtime) this.apply(this.book.pool(id), runtime.admit(other));
      }
    } else {
      this.registry.get(ticket.factory)?.withdraw(ticket.id);
    }
    this.book.end(ticket.id, outcome as EndReason);
    this.deps.events.emit('findFinished', { factory: ticket.factory, outcome, elapsedMs: this.deps.now() - ticket.createdAt });
    if (error) ticket.listener?.fail(error);
    this.factoryMayBeIdle(ticket.factory);
  }

  /** A ticket got its game: tell the client, and keep the ticket for retries a while. */
  assign(ticketId: string, assignment: Assignment): void {
    const ticket = this.book.assign(ticketId, assignment);
    // Kept only as long as a client plausibly retries, not for the whole TTL: at thousands of
    // finds a second, a 5-minute tail of finished tickets is what the heap would be made of.
    this.expireAfter(ticketId, Math.min(ASSIGNED_RETENTION_MS, ticket.createdAt + this.config.placement.ticketTtlMs - this.deps.now()));
    this.roster.seat(assignment.gameId, ticket.playerIds);
    this.deps.events.emit('findFinished', { factory: ticket.factory, outcome: 'assigned', elapsedMs: this.deps.now() - ticket.createdAt });
    const listener = ticket.listener;
    listener?.update({ kind: 'assigned', assignment });
    // The call is answered: a retained ticket need not keep its stream's closures alive (a retry
    // brings its own listener).
    if (listener && this.book.get(ticketId)?.listener === listener) this.book.listen(ticketId, undefined);
  }

  /** The factory a request names, or undefined if it names none. */
  factoryOf(request: FindRequest): string | undefined {
    try {
      return this.registry.resolve(request.template, request.partition);
    } catch {
      return undefined;
    }
  }


  /** Logs a failed port call; the caller has nothing to wait for. */
  private background(value: Eventually<unknown>): void {
    if (value instanceof Promise) value.catch((error: unknown) => this.deps.log.warn({ err: error }, 'port call failed'));
  }
}

import type { CoordinatorConfig } from '../config/config.js';
import type { PlacementPort, ServerCapacity } from '../placement/index.js';
import type { Assignment } from './messages.js';
import type { CoreDeps } from './ports.js';
import { QueuePositions } from './queue-positions.js';
import type { ServerRoster } from './servers/server-roster.js';
import type { Creation, CreationPlan } from './tickets/creation.js';
import type { Ticket } from './tickets/ticket.js';
import type { TicketBook } from './tickets/ticket-book.js';

/** What a confirmation comes to: the tickets to assign, or why it was refused. */
export type CreationOutcome =
  | { readonly kind: 'created'; readonly gameId: string; readonly assignments: readonly { ticketId: string; assignment: Assignment }[] }
  | { readonly kind: 'refused'; readonly problem: string };

/** How many queued parties to try against newly opened seats per event: bounds the work. */
const QUEUED_MATCH_WINDOW = 16;
/** A placement call that failed is asked again after this. */
const PLACEMENT_RETRY_MS = 1000;


/**
 * Game creations from request to confirmation (DESIGN.md, "Placement: slots and the queue"):
 * a creation claims a slot through the placement port or waits in line; once a server has it,
 * the server must confirm in time or the creation is taken back and re-placed at its original
 * priority. Nothing is dropped: a creation ends only when its game exists or no ticket is left
 * in it. The port is asynchronous, so every answer is checked against what happened meanwhile.
 */
export class GameCreations {
  private readonly creations = new Map<string, Creation>();
  /** Cooperative creations with seats left, by factory and exact query: riders join them. */
  private readonly rideable = new Map<string, Set<string>>();
  /** Creations not yet on a server (placing or queued), by factory: the local queue bound. */
  private readonly waitingByFactory = new Map<string, Set<string>>();
  /** Creations in flight on each server. */
  private readonly inFlight = new Map<string, Set<string>>();
  /** What queued clients are told of their place in line. */
  private readonly positions: QueuePositions;
  private draining = false;
  private drainAgain = false;

  constructor(
    private readonly config: CoordinatorConfig,
    private readonly deps: CoreDeps,
    private readonly placement: PlacementPort,
    private readonly book: TicketBook,
    private readonly roster: ServerRoster,
    /** A creation ended: its factory may have nothing left waiting in it. */
    private readonly factoryMayBeIdle: (factory: string) => void,
    /**
     * Tickets restored after a restart that will be ahead of this one once their clients retry:
     * counted in every position reported, so a retried ticket's first answer is already its
     * restored place (issue 10, defect 2).
     */
    restoredAhead: (ticket: Ticket) => number = () => 0,
  ) {
    this.positions = new QueuePositions(
      deps,
      placement,
      book,
      (requestId) => {
        const creation = this.creations.get(requestId);
        return creation?.stage === 'queued' ? creation : undefined;
      },
      () => this.waitingByFactory.keys(),
      restoredAhead,
    );
  }

  // ---------------------------------------------------------------- servers

  serverConnected(serverId: string, factories: readonly string[], capacity: ServerCapacity, runningGames: number): void {
    this.call(this.placement.addServer(serverId, factories, capacity, runningGames));
    this.drain();
  }

  /** The server is gone: its slots with it, and its creations in flight go back in line. */
  serverRemoved(serverId: string): void {
    this.call(this.placement.removeServer(serverId));
    for (const requestId of [...(this.inFlight.get(serverId) ?? [])]) {
      this.takeBack(this.creations.get(requestId)!, 'disconnected');
    }
    this.inFlight.delete(serverId);
  }

  /** The roster's health judgment changed what placement should see of a server. */
  setCapacity(serverId: string, capacity: ServerCapacity): void {
    this.call(this.placement.setCapacity(serverId, capacity));
  }

  gameEnded(serverId: string): void {
    this.call(this.placement.gameEnded(serverId));
    this.drain();
  }

  // ---------------------------------------------------------------- creations

  /** Places a game for the plan's tickets: a slot now, or a place in line. */
  create(plan: CreationPlan): void {
    const creation: Creation = {
      ...plan,
      requestId: this.deps.newId(),
      ticketIds: [...plan.ticketIds],
      seats: plan.seats.map((seat) => ({ ...seat })),
      dispatchedSeats: 0,
      dispatches: 0,
      token: this.deps.newId(),
      stage: 'placing',
      // Older tickets first: a creation's place in line is its oldest ticket's arrival.
      priority: Math.min(...plan.ticketIds.map((id) => this.book.get(id)!.arrival)),
      serverId: undefined,
      cancelTimeout: undefined,
    };
    this.creations.set(creation.requestId, creation);
    for (const ticketId of creation.ticketIds) this.book.place(ticketId, creation.requestId);
    this.markRideable(creation);
    this.place(creation);
  }

  private place(creation: Creation): void {
    creation.stage = 'placing';
    this.markWaiting(creation, true);
    this.placement.place(creation.factory, creation.requestId, creation.priority!).then(
      (placed) => {
        if (this.creations.get(creation.requestId) !== creation || creation.stage !== 'placing') {
          // Every ticket left while we asked: give back what we got.
          if ('serverId' in placed) this.call(this.placement.release(placed.serverId));
          else this.call(this.placement.withdraw(creation.requestId));
          return;
        }
        if ('serverId' in placed) {
          this.dispatch(creation, placed.serverId);
        } else {
          creation.stage = 'queued';
          creation.queuedAt = this.deps.now();
          for (const ticketId of creation.ticketIds) {
            this.book.persist(ticketId);
            this.positions.joined(ticketId, creation.requestId, placed.position);
          }
        }
      },
      (error: unknown) => {
        // A shared store may be briefly unreachable: ask again rather than strand the tickets.
        this.deps.log.warn({ err: error, requestId: creation.requestId }, 'placement failed; retrying');
        this.deps.timers.set(() => {
          if (this.creations.get(creation.requestId) === creation && creation.stage === 'placing') this.place(creation);
        }, PLACEMENT_RETRY_MS);
      },
    );
  }

  /** Sends the CreateGame order to the server whose slot was claimed. */
  private dispatch(creation: Creation, serverId: string): void {
    if (this.roster.endpoint(serverId) === undefined) {
      // The server left between the claim and now: try again elsewhere.
      this.place(creation);
      return;
    }
    const confirmWithinMs = this.config.placement.createTimeoutMs;
    if (creation.stage === 'queued') this.deps.events.emit('dequeued', { factory: creation.factory, waitedMs: this.deps.now() - (creation.queuedAt ?? 0) });
    creation.stage = 'inflight';
    this.markWaiting(creation, false);
    creation.serverId = serverId;
    creation.dispatchedSeats = creation.seats.length;
    let onServer = this.inFlight.get(serverId);
    if (!onServer) this.inFlight.set(serverId, (onServer = new Set()));
    onServer.add(creation.requestId);
    creation.cancelTimeout = this.deps.timers.set(() => {
      this.deps.log.warn({ serverId, requestId: creation.requestId }, 'game server did not confirm a creation in time');
      this.takeBack(creation, 'timeout');
    }, confirmWithinMs);
    this.roster.send(serverId, {
      kind: 'createGame',
      requestId: creation.requestId,
      factory: creation.factory,
      partition: creation.partition,
      matchable: creation.matchable,
      playerIds: creation.seats.map((s) => s.playerId),
      seatTeams: creation.strategy === 'competitive' ? creation.seats.map((s) => s.team) : [],
      reservationToken: creation.token,
      confirmWithinMs,
      map: creation.map,
      region: creation.region,
    }, `${creation.requestId}#${++creation.dispatches}`);
    this.deps.events.emit('placed', { factory: creation.factory, serverId, requestId: creation.requestId });
  }

  /** Creations ordered on this server and not yet confirmed. */
  inFlightCount(serverId: string): number {
    return this.inFlight.get(serverId)?.size ?? 0;
  }

  /** The creation on `serverId` with this request id, while it is in flight there. */
  inFlightOn(serverId: string, requestId: string): Creation | undefined {
    const creation = this.creations.get(requestId);
    return creation?.stage === 'inflight' && creation.serverId === serverId ? creation : undefined;
  }

  /** An in-flight creation failed, timed out or lost its server: its slot is freed and it goes back in line. */
  takeBack(creation: Creation, cause: 'timeout' | 'failed' | 'disconnected'): void {
    creation.cancelTimeout?.();
    creation.cancelTimeout = undefined;
    const serverId = creation.serverId!;
    creation.serverId = undefined;
    this.inFlight.get(serverId)?.delete(creation.requestId);
    if (cause !== 'disconnected') {
      this.call(this.placement.release(serverId));
      this.roster.creationFailed(serverId);
    }
    this.deps.events.emit('requeued', { factory: creation.factory, cause });
    if (creation.ticketIds.length === 0) this.forget(creation);
    else this.place(creation);
    this.drain();
  }

  /** The server confirmed: the game exists, and every ticket in the creation is to be assigned to it. */
  confirmed(creation: Creation, serverId: string, gameId: string): CreationOutcome {
    if (!this.roster.addGame(serverId, gameId, creation.factory)) {
      this.takeBack(creation, 'failed');
      return { kind: 'refused', problem: `game_id "${gameId}" is empty or already running` };
    }
    creation.cancelTimeout?.();
    this.inFlight.get(serverId)?.delete(creation.requestId);
    this.roster.creationSucceeded(serverId);
    this.call(this.placement.confirm(serverId));
    this.positions.gameStarted();
    this.forget(creation);
    const serverEndpoint = this.roster.endpoint(serverId) ?? '';
    return {
      kind: 'created',
      gameId,
      assignments: creation.ticketIds.map((ticketId) => ({
        ticketId,
        assignment: {
          gameId,
          serverId,
          serverEndpoint,
          factory: creation.factory,
          reservationToken: creation.token,
          created: true,
          map: creation.map,
          region: creation.region,
          team: creation.seats.find((s) => s.ticketId === ticketId)!.team,
        },
      })),
    };
  }

  private forget(creation: Creation): void {
    this.creations.delete(creation.requestId);
    this.unmarkRideable(creation);
    this.markWaiting(creation, false);
    if (creation.stage === 'queued') this.call(this.placement.withdraw(creation.requestId));
    creation.stage = 'done';
    this.factoryMayBeIdle(creation.factory);
  }

  /**
   * A ticket leaves a creation that has not been confirmed (cancelled, expired, or matched
   * elsewhere). Returns the tickets that go back to their factory's pool: the other parties of a
   * competitive game, which without one of its parties is no longer the game that was formed.
   */
  leave(ticket: Ticket): string[] {
    const creation = ticket.state.kind === 'placing' ? this.creations.get(ticket.state.creationId) : undefined;
    if (!creation) return [];
    const index = creation.ticketIds.indexOf(ticket.id);
    if (index >= 0) creation.ticketIds.splice(index, 1);
    if (creation.stage === 'inflight') return []; // the game still gets created
    if (creation.ticketIds.length === 0 || creation.strategy === 'competitive') {
      this.forget(creation);
      return creation.ticketIds;
    }
    for (let i = creation.seats.length - 1; i >= 0; i--) {
      if (creation.seats[i]!.ticketId === ticket.id) creation.seats.splice(i, 1);
    }
    this.markRideable(creation);
    return [];
  }

  /** Cooperative: a party joins a creation (waiting or in flight) made for exactly its query. */
  rideAlong(ticket: Ticket, rideKey: string): boolean {
    const candidates = this.rideable.get(rideKeyOf(ticket.factory, rideKey));
    if (!candidates) return false;
    for (const requestId of candidates) {
      const creation = this.creations.get(requestId)!;
      if (creation.capacity - creation.seats.length < ticket.playerIds.length) continue;
      creation.ticketIds.push(ticket.id);
      for (const playerId of ticket.playerIds) creation.seats.push({ playerId, team: 0, ticketId: ticket.id });
      this.book.place(ticket.id, requestId);
      this.markRideable(creation);
      if (creation.stage === 'queued') {
        this.book.persist(ticket.id);
        this.reportPosition(ticket);
      }
      return true;
    }
    return false;
  }

  private markRideable(creation: Creation): void {
    if (creation.rideKey === undefined) return;
    if (creation.seats.length >= creation.capacity) return this.unmarkRideable(creation);
    const key = rideKeyOf(creation.factory, creation.rideKey);
    let set = this.rideable.get(key);
    if (!set) this.rideable.set(key, (set = new Set()));
    set.add(creation.requestId);
  }

  private unmarkRideable(creation: Creation): void {
    if (creation.rideKey === undefined) return;
    const key = rideKeyOf(creation.factory, creation.rideKey);
    const set = this.rideable.get(key);
    set?.delete(creation.requestId);
    if (set?.size === 0) this.rideable.delete(key);
  }

  private markWaiting(creation: Creation, waiting: boolean): void {
    let set = this.waitingByFactory.get(creation.factory);
    if (waiting) {
      if (!set) this.waitingByFactory.set(creation.factory, (set = new Set()));
      set.add(creation.requestId);
    } else if (set?.delete(creation.requestId) && set.size === 0) {
      this.waitingByFactory.delete(creation.factory);
    }
  }

  /** Creations of `factory` that wait for a slot (this coordinator's, bounded per factory). */
  waiting(factory?: string): number {
    if (factory !== undefined) return this.waitingByFactory.get(factory)?.size ?? 0;
    let n = 0;
    for (const set of this.waitingByFactory.values()) n += set.size;
    return n;
  }

  // ---------------------------------------------------------------- the queue

  /** New capacity (a server joined, a game ended, a slot came back): serve the queue now. */
  drain(): void {
    if (this.draining) {
      this.drainAgain = true;
      return;
    }
    this.draining = true;
    this.placement.drain().then(
      ({ placed, retryAt }) => {
        const moved = new Set<string>();
        for (const p of placed) {
          const creation = this.creations.get(p.requestId);
          if (!creation || creation.stage !== 'queued') {
            this.call(this.placement.release(p.serverId));
            continue;
          }
          moved.add(creation.factory);
          this.dispatch(creation, p.serverId);
        }
        if (retryAt !== undefined) this.deps.timers.set(() => this.drain(), retryAt - this.deps.now());
        for (const factory of moved) this.positions.refresh(factory);
        this.drained();
      },
      (error: unknown) => {
        this.deps.log.warn({ err: error }, 'draining the queue failed');
        this.drained();
      },
    );
  }

  private drained(): void {
    this.draining = false;
    if (this.drainAgain) {
      this.drainAgain = false;
      this.drain();
    }
  }

  /** Cooperative: tickets at the head of `factory`'s line, which newly opened seats may take. */
  async queuedHead(factory: string): Promise<Ticket[]> {
    if (this.waiting(factory) === 0) return [];
    const requestIds = await this.placement.head(factory, QUEUED_MATCH_WINDOW);
    const tickets: Ticket[] = [];
    for (const requestId of requestIds) {
      const creation = this.creations.get(requestId);
      if (creation?.stage !== 'queued') continue;
      for (const ticketId of creation.ticketIds) tickets.push(this.book.get(ticketId)!);
    }
    return tickets;
  }

  /** Tells a ticket where it stands: its place in line, when it waits for a slot. */
  reportPosition(ticket: Ticket): void {
    this.positions.report(ticket, ticket.state.kind === 'placing' ? this.creations.get(ticket.state.creationId) : undefined);
  }

  /** Estimated wait for the next arrival in a factory's line (a retry hint). */
  estimatedWaitMs(factory: string): number {
    return this.positions.estimatedWaitMs(this.waiting(factory) + 1);
  }

  /** Logs a failed port call; the caller has nothing to wait for. */
  private call(promise: Promise<unknown>): void {
    promise.catch((error: unknown) => this.deps.log.warn({ err: error }, 'placement call failed'));
  }
}

function rideKeyOf(factory: string, key: string): string {
  return `${factory}\n${key}`;
}

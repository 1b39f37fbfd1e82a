import { DEFAULT_STORE_IN_FLIGHT_AFTER_MS } from '../config/config.js';
import type { Placement, ServerCapacity } from '../placement/index.js';
import type { CoreContext } from './core-context.js';
import { DeadlineKind } from './deadlines.js';
import type { Assignment } from './messages.js';
import { POSITION_REFRESH_WINDOW, POSITION_UPDATE_WINDOW, type QueuePositions } from './queue-positions.js';
import type { ServerRoster } from './servers/server-roster.js';
import type { Creation, CreationPlan } from './tickets/creation.js';
import type { PlacedRecord } from './tickets/ticket-record.js';
import type { Ticket } from './tickets/ticket.js';
import type { TicketBook } from './tickets/ticket-book.js';

/** The tickets a confirmed creation assigns. */
export type CreationAssignments = readonly { readonly ticketId: string; readonly assignment: Assignment }[];

/** How many queued parties to try against newly opened seats per event: bounds the work. */
const QUEUED_MATCH_WINDOW = 16;

export type TakeBackCause = 'timeout' | 'failed' | 'full' | 'disconnected';

/**
 * Game creations from request to confirmation (Battle.net talk, "Queueing and Distribution"): a
 * creation claims a slot or waits in line; once a server has it, the server must confirm in time
 * or the creation is taken back and placed again at its original priority. Nothing is dropped: a
 * creation ends only when its game exists or no ticket is left in it. Placement is state the core
 * owns, so every answer is immediate and nothing can change between a claim and its use.
 */
export class GameCreations {
  private readonly creations = new Map<string, Creation>();
  /**
   * Cooperative creations with seats left, by factory, then exact query: riders join them. Two
   * levels, not one key joined from both: a joined key was a new string to flatten and hash on
   * every look-up, twice a rider.
   */
  private readonly rideable = new Map<string, Map<string, Set<string>>>();
  /** Creations waiting in line, by factory: the local queue bound. */
  private readonly waitingByFactory = new Map<string, Set<string>>();
  /** Creations in flight on each server. */
  private readonly inFlight = new Map<string, Set<string>>();

  constructor(
    private readonly ctx: CoreContext,
    private readonly placement: Placement,
    private readonly book: TicketBook,
    private readonly roster: ServerRoster,
    /** What queued clients are told of their place in line. */
    private readonly positions: QueuePositions,
    /**
     * Store the tickets of each creation sent to a server, with where it was sent (else only
     * tickets that wait are stored): after a crash, or on a cluster's new owner, the game the
     * server re-announces is theirs and their retries get it. `unconfirmed`: only once the
     * creation has waited `placement.storeInFlightAfterMs` for its confirmation. Most servers
     * confirm sooner, and storing every ticket ordered, then removing it when assigned, was a
     * quarter of the embedded coordinator's CPU a ticket; a kill -9 inside that window costs a game
     * whose seats lapse, and the tickets' retries get another (a ticket that waited keeps its
     * waiting record, and its place, until then). `at-once`: as the order is sent.
     */
    private readonly storeInFlight: 'unconfirmed' | 'at-once' | 'never',
  ) {}

  // ---------------------------------------------------------------- servers

  /** A server said hello; creations kept in flight across a replaced connection hold their slots. */
  serverConnected(serverId: string, factories: readonly string[], capacity: ServerCapacity, runningGames: number, sameNode = false): void {
    this.placement.addServer(serverId, factories, capacity, runningGames, this.ctx.now(), this.inFlightCount(serverId), sameNode);
    this.drain();
  }

  /** A connected server now also serves these factories (a config reload made them): its free slots serve their lines too. */
  serverServes(serverId: string, factories: readonly string[]): void {
    this.placement.addFactories(serverId, factories);
    this.drain();
  }

  /**
   * The server is gone: its slots with it, and its creations in flight go back in line, except
   * those a newer connection's hello says the server has not answered yet (`stillPending`): they
   * stay in flight, to be confirmed there.
   */
  serverRemoved(serverId: string, stillPending: ReadonlySet<string> = new Set()): void {
    this.placement.removeServer(serverId);
    for (const requestId of [...(this.inFlight.get(serverId) ?? [])]) {
      if (!stillPending.has(requestId)) this.takeBack(this.creations.get(requestId)!, 'disconnected');
    }
    if (this.inFlightCount(serverId) === 0) this.inFlight.delete(serverId);
  }

  /** What placement should see of a server changed (it advertised, or its health changed). */
  setCapacity(serverId: string, capacity: ServerCapacity): void {
    this.placement.setCapacity(serverId, capacity, this.ctx.now());
    this.drain();
  }

  gameEnded(serverId: string): void {
    this.placement.gameEnded(serverId);
    this.drain();
  }

  /** A game ordered before a restart or a change of owner was confirmed late: it takes a slot. */
  gameAdopted(serverId: string): void {
    this.placement.gameStarted(serverId);
  }

  /** A FindGame arrived for `factory`: demand, for apportioning slots among factories. */
  recordDemand(factory: string): void {
    this.placement.recordDemand(factory, this.ctx.now());
  }

  // ---------------------------------------------------------------- creations

  /** Places a game for the plan's tickets: a slot now, or a place in line. */
  create(plan: CreationPlan): void {
    // Written out, not spread: `{ ...plan }` gave every creation a hidden class (and descriptor
    // array) of its own, ~900 B each in a heap snapshot of 20k waiting tickets.
    const creation: Creation = {
      factory: plan.factory,
      strategy: plan.strategy,
      partition: plan.partition,
      matchable: plan.matchable,
      rideKey: plan.rideKey,
      capacity: plan.capacity,
      map: plan.map,
      region: plan.region,
      quality: plan.quality,
      requestId: this.ctx.newId(),
      ticketIds: [...plan.ticketIds],
      seats: plan.seats.map((seat) => ({ ...seat })),
      dispatchedSeats: 0,
      dispatches: 0,
      orderedAt: undefined,
      storedInFlight: false,
      token: this.ctx.newId(),
      stage: 'queued',
      // Older tickets first: a creation's place in line is its oldest ticket's arrival.
      priority: Math.min(...plan.ticketIds.map((id) => this.book.get(id)!.arrival)),
      queuedAt: undefined,
      serverId: undefined,
    };
    this.creations.set(creation.requestId, creation);
    for (const ticketId of creation.ticketIds) this.book.place(ticketId, creation.requestId);
    this.markRideable(creation);
    this.place(creation);
  }

  /** `failedOn`: the server it was just taken back from (another gets it first when one is free). */
  private place(creation: Creation, failedOn?: string): void {
    const placed = this.placement.place(creation.factory, creation.requestId, creation.priority, this.ctx.now(), failedOn);
    if ('serverId' in placed) {
      creation.stage = 'inflight';
      this.dispatch(creation, placed.serverId);
      return;
    }
    creation.stage = 'queued';
    creation.queuedAt = this.ctx.now();
    this.markWaiting(creation, true);
    for (const ticketId of creation.ticketIds) {
      this.book.persist(ticketId);
      this.positions.tell(ticketId, creation.requestId, placed.position);
    }
    this.positions.keepInformed();
  }

  /** Sends the CreateGame order to the server whose slot was claimed. */
  private dispatch(creation: Creation, serverId: string): void {
    const confirmWithinMs = this.ctx.config.placement.createTimeoutMs;
    creation.stage = 'inflight';
    creation.serverId = serverId;
    creation.orderedAt = this.ctx.now();
    creation.dispatchedSeats = creation.seats.length;
    let onServer = this.inFlight.get(serverId);
    if (!onServer) this.inFlight.set(serverId, (onServer = new Set()));
    onServer.add(creation.requestId);
    this.ctx.deadlines.set(DeadlineKind.CreateTimeout, creation.requestId, this.ctx.now() + confirmWithinMs);
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
      ...(creation.quality && { quality: creation.quality }),
    }, `${creation.requestId}#${++creation.dispatches}`);
    this.ctx.out.event('placed', { factory: creation.factory, serverId, requestId: creation.requestId, ticketIds: creation.ticketIds });
    if (this.storeInFlight === 'never') return;
    const afterMs = this.storeInFlight === 'at-once' ? 0 : (this.ctx.config.placement.storeInFlightAfterMs ?? DEFAULT_STORE_IN_FLIGHT_AFTER_MS);
    // Stored already (ordered before, and taken back): the record says where it is now.
    if (afterMs === 0 || creation.storedInFlight) this.storeTickets(creation);
    else this.ctx.deadlines.set(DeadlineKind.StoreInFlight, creation.requestId, this.ctx.now() + afterMs);
  }

  /** A creation's confirmation is overdue for storing: if it is still in flight, its tickets are stored. */
  storeDue(requestId: string): void {
    const creation = this.creations.get(requestId);
    if (creation?.stage === 'inflight' && !creation.storedInFlight) this.storeTickets(creation);
  }

  /** The process is going down: creations in flight not stored yet are, with where they were sent. */
  storeInFlightNow(): void {
    if (this.storeInFlight === 'never') return;
    for (const onServer of this.inFlight.values()) for (const requestId of onServer) this.storeDue(requestId);
  }

  private storeTickets(creation: Creation): void {
    creation.storedInFlight = true;
    for (const ticketId of creation.ticketIds) this.book.persist(ticketId, this.placedRecord(creation, ticketId, creation.orderedAt!));
  }

  /** What is stored of a ticket's creation in flight (see TicketRecord.placed); `at`: when its seat was sent. */
  private placedRecord(creation: Creation, ticketId: string, at: number): PlacedRecord {
    return {
      requestId: creation.requestId,
      serverId: creation.serverId!,
      token: creation.token,
      at,
      team: creation.seats.find((s) => s.ticketId === ticketId)?.team ?? 0,
      map: creation.map,
      region: creation.region,
    };
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

  /** The server did not confirm in time. */
  timedOut(requestId: string): void {
    const creation = this.creations.get(requestId);
    if (creation?.stage !== 'inflight') return;
    this.ctx.out.warn({ serverId: creation.serverId, requestId }, 'game server did not confirm a creation in time');
    this.takeBack(creation, 'timeout');
  }

  /** An in-flight creation failed, timed out or lost its server: its slot is freed and it goes back in line. */
  takeBack(creation: Creation, cause: TakeBackCause): void {
    this.ctx.deadlines.delete(DeadlineKind.CreateTimeout, creation.requestId);
    this.ctx.deadlines.delete(DeadlineKind.StoreInFlight, creation.requestId);
    const serverId = creation.serverId!;
    creation.serverId = undefined;
    this.inFlight.get(serverId)?.delete(creation.requestId);
    if (cause !== 'disconnected') {
      this.placement.release(serverId);
      const resting = cause === 'full' ? undefined : this.roster.creationFailed(serverId);
      if (resting) this.placement.setCapacity(serverId, resting, this.ctx.now());
    }
    this.ctx.out.event('requeued', { factory: creation.factory, requestId: creation.requestId, cause });
    if (creation.ticketIds.length === 0) this.forget(creation);
    else this.place(creation, cause === 'disconnected' ? undefined : serverId);
    this.drain();
  }

  /** The server confirmed and the game runs: every ticket in the creation is to be assigned to it. */
  confirmed(creation: Creation, serverId: string, gameId: string): CreationAssignments {
    this.ctx.deadlines.delete(DeadlineKind.CreateTimeout, creation.requestId);
    this.inFlight.get(serverId)?.delete(creation.requestId);
    this.roster.creationSucceeded(serverId);
    this.placement.confirm(serverId);
    this.forget(creation);
    const serverEndpoint = this.roster.endpoint(serverId) ?? '';
    // The tickets of one team get one assignment object (they are told the same thing): each
    // answered ticket keeps its assignment for retries, ~100 B an object.
    const byTeam = new Map<number, Assignment>();
    return creation.ticketIds.map((ticketId) => {
      const team = creation.seats.find((s) => s.ticketId === ticketId)!.team;
      let assignment = byTeam.get(team);
      if (!assignment) {
        assignment = {
          gameId,
          serverId,
          serverEndpoint,
          factory: creation.factory,
          reservationToken: creation.token,
          created: true,
          map: creation.map,
          region: creation.region,
          team,
          ...(creation.quality && { quality: creation.quality }),
        };
        byTeam.set(team, assignment);
      }
      return { ticketId, assignment };
    });
  }

  private forget(creation: Creation): void {
    this.creations.delete(creation.requestId);
    this.ctx.deadlines.delete(DeadlineKind.StoreInFlight, creation.requestId);
    this.unmarkRideable(creation);
    if (creation.stage === 'queued') {
      this.markWaiting(creation, false);
      this.placement.withdraw(creation.requestId);
    }
    creation.stage = 'done';
    this.ctx.maybeIdle.add(creation.factory);
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
    // A new list, not the old one shortened: a `placed` event may hold the old one.
    if (index >= 0) creation.ticketIds = creation.ticketIds.filter((id) => id !== ticket.id);
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
    const candidates = this.rideable.get(ticket.factory)?.get(rideKey);
    if (!candidates) return false;
    const playerIds = ticket.playerIds; // built on each read (the book keeps the party only)
    for (const requestId of candidates) {
      const creation = this.creations.get(requestId)!;
      if (creation.capacity - creation.seats.length < playerIds.length) continue;
      // A party that left a creation in flight keeps its seats (the server was told of them, and a
      // creation taken back keeps them too); the same player back under a new ticket takes another
      // creation, never a second seat in this one.
      if (seatsAny(creation, playerIds)) continue;
      // Copied into exact-size lists, not pushed (nor spread, which pushes): a push grows a list of
      // 1 to room for 19 (V8's growth step), ~140 B a list, and a creation waits with its lists as
      // long as its tickets do. O(seats), bounded by the game's capacity.
      creation.ticketIds = creation.ticketIds.concat(ticket.id);
      creation.seats = withSeats(creation.seats, ticket.id, playerIds);
      this.book.place(ticket.id, requestId);
      this.markRideable(creation);
      if (creation.stage === 'queued') {
        this.book.persist(ticket.id);
        this.reportPosition(ticket);
      } else if (creation.storedInFlight) {
        this.book.persist(ticket.id, this.placedRecord(creation, ticket.id, this.ctx.now()));
      }
      return true;
    }
    return false;
  }

  private markRideable(creation: Creation): void {
    if (creation.rideKey === undefined) return;
    if (creation.seats.length >= creation.capacity) return this.unmarkRideable(creation);
    let byQuery = this.rideable.get(creation.factory);
    if (!byQuery) this.rideable.set(creation.factory, (byQuery = new Map()));
    let set = byQuery.get(creation.rideKey);
    if (!set) byQuery.set(creation.rideKey, (set = new Set()));
    set.add(creation.requestId);
  }

  private unmarkRideable(creation: Creation): void {
    if (creation.rideKey === undefined) return;
    const byQuery = this.rideable.get(creation.factory);
    const set = byQuery?.get(creation.rideKey);
    if (!set?.delete(creation.requestId) || set.size > 0) return;
    byQuery!.delete(creation.rideKey);
    if (byQuery!.size === 0) this.rideable.delete(creation.factory);
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

  /** Creations of `factory` (or of every factory) that wait for a slot. */
  waiting(factory?: string): number {
    if (factory !== undefined) return this.waitingByFactory.get(factory)?.size ?? 0;
    let n = 0;
    for (const set of this.waitingByFactory.values()) n += set.size;
    return n;
  }

  /** Tickets in the creations of `factory` that wait for a slot (parties riding along count each). */
  waitingTickets(factory: string): number {
    let n = 0;
    for (const requestId of this.waitingByFactory.get(factory) ?? []) n += this.creations.get(requestId)?.ticketIds.length ?? 0;
    return n;
  }

  // ---------------------------------------------------------------- the queue

  /** New capacity (a server joined, a game ended, a slot came back): serve the queue now. */
  drain(): void {
    if (this.waitingByFactory.size === 0) return;
    const { placed, retryAt } = this.placement.drain(this.ctx.now());
    const moved = new Set<string>();
    for (const p of placed) {
      const creation = this.creations.get(p.requestId)!;
      this.markWaiting(creation, false);
      this.positions.departed(creation.factory);
      this.ctx.out.event('dequeued', { factory: creation.factory, waitedMs: this.ctx.now() - (creation.queuedAt ?? 0) });
      moved.add(creation.factory);
      this.dispatch(creation, p.serverId);
    }
    if (retryAt !== undefined) this.ctx.deadlines.set(DeadlineKind.DrainRetry, '', retryAt);
    for (const factory of moved) this.refresh(factory, POSITION_UPDATE_WINDOW);
  }

  /** Cooperative: tickets at the head of `factory`'s line, which newly opened seats may take. */
  queuedHead(factory: string): Ticket[] {
    if (this.waiting(factory) === 0) return [];
    const tickets: Ticket[] = [];
    for (const requestId of this.placement.head(factory, QUEUED_MATCH_WINDOW)) {
      const creation = this.creations.get(requestId);
      if (creation?.stage !== 'queued') continue;
      for (const ticketId of creation.ticketIds) tickets.push(this.book.get(ticketId)!);
    }
    return tickets;
  }

  /**
   * Tells a ticket where it stands: its place in line, when it waits for a slot. Always: its call
   * (a resumed one, perhaps through a node that relays every call on one listener) has heard nothing yet.
   */
  reportPosition(ticket: Ticket): void {
    if (ticket.state.kind !== 'placing' || !ticket.listener) return;
    const creation = this.creations.get(ticket.state.creationId);
    if (creation?.stage !== 'queued') return;
    const position = this.placement.position(creation.requestId);
    if (position !== undefined) this.positions.tell(ticket.id, creation.requestId, position, true);
  }

  /** The first `count` places of `factory`'s line hear where they stand. */
  private refresh(factory: string, count: number): void {
    this.placement.head(factory, count).forEach((requestId, i) => {
      const creation = this.creations.get(requestId);
      if (creation?.stage !== 'queued') return;
      for (const ticketId of creation.ticketIds) this.positions.tell(ticketId, requestId, i + 1);
    });
  }

  /** The periodic refresh fell due: the head of every line hears where it stands, again while anyone waits. */
  refreshPositions(): void {
    for (const factory of this.waitingByFactory.keys()) this.refresh(factory, POSITION_REFRESH_WINDOW);
    if (this.waitingByFactory.size > 0) this.positions.keepInformed();
  }

  /** Estimated wait for the next arrival in a factory's line (a retry hint); undefined when unknown. */
  estimatedWaitMs(factory: string): number | undefined {
    return this.positions.estimatedWaitMs(factory, this.waiting(factory) + 1);
  }
}

/** Whether any of these players already has a seat in the creation. */
function seatsAny(creation: Creation, playerIds: readonly string[]): boolean {
  for (const seat of creation.seats) if (playerIds.includes(seat.playerId)) return true;
  return false;
}

/** The seats and the party's, in a list of exactly that size. */
function withSeats(seats: Creation['seats'], ticketId: string, playerIds: readonly string[]): Creation['seats'] {
  const next = new Array<Creation['seats'][number]>(seats.length + playerIds.length);
  for (let i = 0; i < seats.length; i++) next[i] = seats[i]!;
  for (let j = 0; j < playerIds.length; j++) next[seats.length + j] = { playerId: playerIds[j]!, team: 0, ticketId };
  return next;
}

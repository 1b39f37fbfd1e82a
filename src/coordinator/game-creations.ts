import type { CoordinatorConfig } from '../config/config.js';
import { DecayingRate, estimateWaitMs, type PlacementPort, type ServerCapacity } from '../placement/index.js';
import type { FactoryRuntime } from './factory-runtime.js';
import type { Assignment, ServerChannel } from './messages.js';
import type { CoreDeps } from './ports.js';
import { ServerBreakers } from './server-breakers.js';
import type { Creation, Ticket } from './tickets.js';

/** What GameCreations needs from the coordinator that owns tickets, servers and games. */
export interface CreationHost {
  heldTicket(ticketId: string): Ticket | undefined;
  assignTicket(ticket: Ticket, assignment: Assignment): void;
  /** Stores a ticket that has to wait, so it survives a restart. */
  persist(ticket: Ticket): void;
  runtime(factory: string): FactoryRuntime | undefined;
  /** The connected server's stream and endpoint, if it is still connected. */
  link(serverId: string): { readonly channel: ServerChannel; readonly endpoint: string } | undefined;
  /** Records a game a server created; false when the id is empty or already running. */
  recordGame(serverId: string, gameId: string, factory: string): boolean;
  /** A factory may have nothing left waiting in it. */
  factoryMayBeIdle(factory: string): void;
}

/** How many queued parties to try against newly opened seats per event: bounds the work. */
const QUEUED_MATCH_WINDOW = 16;
/** How many queue positions to refresh after the queue moves. */
const POSITION_UPDATE_WINDOW = 64;
const POSITION_REFRESH_MS = 1000;
/** Queue positions refreshed each period, per factory: the head moves; the tail hears when it nears. */
const POSITION_REFRESH_WINDOW = 1000;
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
  private readonly breakers: ServerBreakers;
  /** Creations in flight on each server. */
  private readonly inFlight = new Map<string, Set<string>>();
  /** Recent game starts, behind the wait estimates shown to queued clients. */
  private readonly starts = new DecayingRate(10_000);
  private draining = false;
  private drainAgain = false;
  private cancelPositionRefresh: (() => void) | undefined;

  constructor(
    private readonly config: CoordinatorConfig,
    private readonly deps: CoreDeps,
    private readonly placement: PlacementPort,
    private readonly host: CreationHost,
  ) {
    this.breakers = new ServerBreakers(
      deps,
      (serverId, capacity) => this.call(this.placement.setCapacity(serverId, capacity)),
      () => this.drain(),
    );
  }

  // ---------------------------------------------------------------- servers

  serverConnected(serverId: string, factories: readonly string[], capacity: ServerCapacity, runningGames: number): void {
    this.breakers.add(serverId, capacity);
    this.call(this.placement.addServer(serverId, factories, capacity, runningGames));
    this.drain();
  }

  /** The server is gone: its slots with it, and its creations in flight go back in line. */
  serverRemoved(serverId: string): void {
    this.breakers.remove(serverId);
    this.call(this.placement.removeServer(serverId));
    for (const requestId of [...(this.inFlight.get(serverId) ?? [])]) {
      this.takeBack(this.creations.get(requestId)!, 'disconnected');
    }
    this.inFlight.delete(serverId);
  }

  advertised(serverId: string): ServerCapacity | undefined {
    return this.breakers.advertised(serverId);
  }

  resting(serverId: string): boolean {
    return this.breakers.resting(serverId);
  }

  capacityChanged(serverId: string, capacity: ServerCapacity): void {
    this.breakers.advertise(serverId, capacity);
    this.drain();
  }

  gameEnded(serverId: string): void {
    this.call(this.placement.gameEnded(serverId));
    this.drain();
  }

  // ---------------------------------------------------------------- creations

  /** Places a game for the creation's tickets: a slot now, or a place in line. */
  create(creation: Creation): void {
    // Older tickets first: a creation's place in line is its oldest ticket's arrival.
    creation.priority ??= Math.min(...creation.ticketIds.map((id) => this.host.heldTicket(id)!.arrival));
    this.creations.set(creation.requestId, creation);
    for (const ticketId of creation.ticketIds) {
      const ticket = this.host.heldTicket(ticketId)!;
      ticket.state = 'placing';
      ticket.creationId = creation.requestId;
    }
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
            const ticket = this.host.heldTicket(ticketId)!;
            this.host.persist(ticket);
            this.report(ticket, placed.position);
          }
          this.schedulePositionRefresh();
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
    const link = this.host.link(serverId);
    const runtime = this.host.runtime(creation.factory);
    if (!link || !runtime) {
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
    link.channel.send({
      kind: 'createGame',
      requestId: creation.requestId,
      factory: creation.factory,
      partition: runtime.identity.partition,
      matchable: creation.matchable,
      playerIds: creation.seats.map((s) => s.playerId),
      seatTeams: runtime.strategy === 'competitive' ? creation.seats.map((s) => s.team) : [],
      reservationToken: creation.token,
      confirmWithinMs,
      map: creation.map,
      region: creation.region,
    });
    this.deps.events.emit('placed', { factory: creation.factory, serverId, requestId: creation.requestId });
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
      this.breakers.failed(serverId);
    }
    this.deps.events.emit('requeued', { factory: creation.factory, cause });
    if (creation.ticketIds.length === 0) this.forget(creation);
    else this.place(creation);
    this.drain();
  }

  /** The server confirmed: the game exists, and every ticket in the creation is assigned to it. */
  confirmed(creation: Creation, serverId: string, gameId: string): string | undefined {
    if (!this.host.recordGame(serverId, gameId, creation.factory)) {
      this.takeBack(creation, 'failed');
      return `game_id "${gameId}" is empty or already running`;
    }
    creation.cancelTimeout?.();
    this.inFlight.get(serverId)?.delete(creation.requestId);
    this.breakers.succeeded(serverId);
    this.call(this.placement.confirm(serverId));
    this.starts.record(this.deps.now());
    this.forget(creation);
    const runtime = this.host.runtime(creation.factory)!;
    runtime.gameCreated(creation, gameId);
    const endpoint = this.host.link(serverId)?.endpoint ?? '';
    for (const ticketId of creation.ticketIds) {
      const ticket = this.host.heldTicket(ticketId);
      if (!ticket) continue;
      this.host.assignTicket(ticket, {
        gameId,
        serverId,
        serverEndpoint: endpoint,
        factory: creation.factory,
        reservationToken: creation.token,
        created: true,
        map: creation.map,
        region: creation.region,
        team: creation.seats.find((s) => s.ticketId === ticketId)!.team,
      });
    }
    runtime.offerSeats();
    return undefined;
  }

  private forget(creation: Creation): void {
    this.creations.delete(creation.requestId);
    this.unmarkRideable(creation);
    this.markWaiting(creation, false);
    if (creation.stage === 'queued') this.call(this.placement.withdraw(creation.requestId));
    creation.stage = 'done';
    this.host.factoryMayBeIdle(creation.factory);
  }

  /** A ticket leaves a creation that has not been confirmed (cancelled, expired, or matched elsewhere). */
  leave(ticket: Ticket): void {
    const creation = ticket.creationId === undefined ? undefined : this.creations.get(ticket.creationId);
    ticket.creationId = undefined;
    if (!creation) return;
    const index = creation.ticketIds.indexOf(ticket.id);
    if (index >= 0) creation.ticketIds.splice(index, 1);
    if (creation.stage === 'inflight') return; // the game still gets created
    const runtime = this.host.runtime(creation.factory);
    if (creation.ticketIds.length === 0 || runtime?.strategy === 'competitive') {
      // A competitive game without one of its parties is no longer the game that was formed:
      // the other parties go back to the pool, keeping their wait.
      this.forget(creation);
      for (const other of creation.ticketIds) {
        const t = this.host.heldTicket(other);
        if (t) {
          t.creationId = undefined;
          runtime?.admit(t);
        }
      }
    } else {
      for (let i = creation.seats.length - 1; i >= 0; i--) {
        if (creation.seats[i]!.ticketId === ticket.id) creation.seats.splice(i, 1);
      }
      this.markRideable(creation);
    }
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
      ticket.state = 'placing';
      ticket.creationId = requestId;
      this.markRideable(creation);
      if (creation.stage === 'queued') {
        this.host.persist(ticket);
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
        for (const factory of moved) this.reportPositions(factory, POSITION_UPDATE_WINDOW);
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

  /** Cooperative: seats opened in `factory`; queued parties at the head of the line may take them. */
  matchQueued(factory: string, tryMatch: (ticket: Ticket) => Assignment | undefined): void {
    if (this.waiting(factory) === 0) return;
    this.call(
      this.placement.head(factory, QUEUED_MATCH_WINDOW).then((requestIds) => {
        for (const requestId of requestIds) {
          const creation = this.creations.get(requestId);
          if (creation?.stage !== 'queued') continue;
          for (const ticketId of [...creation.ticketIds]) {
            const ticket = this.host.heldTicket(ticketId)!;
            const assignment = tryMatch(ticket);
            if (!assignment) continue;
            this.leave(ticket);
            this.host.assignTicket(ticket, assignment);
          }
        }
      }),
    );
  }

  /** Tells a ticket where it stands: its place in line, when it waits for a slot. */
  reportPosition(ticket: Ticket): void {
    const creation = ticket.creationId === undefined ? undefined : this.creations.get(ticket.creationId);
    if (creation?.stage !== 'queued' || !ticket.listener) return;
    this.call(
      this.placement.position(creation.requestId).then((position) => {
        if (position !== undefined && ticket.creationId === creation.requestId) this.report(ticket, position);
      }),
    );
  }

  private report(ticket: Ticket, position: number): void {
    ticket.listener?.update({
      kind: 'queued',
      factory: ticket.factory,
      position,
      // 0 when nothing has started lately: no estimate rather than a made-up one.
      estimatedWaitMs: estimateWaitMs(position, this.starts.perSecond(this.deps.now())) ?? 0,
    });
  }

  private reportPositions(factory: string, count: number): void {
    this.call(
      this.placement.head(factory, count).then((requestIds) => {
        requestIds.forEach((requestId, i) => {
          const creation = this.creations.get(requestId);
          if (creation?.stage !== 'queued') return;
          for (const ticketId of creation.ticketIds) {
            const ticket = this.host.heldTicket(ticketId);
            if (ticket) this.report(ticket, i + 1);
          }
        });
      }),
    );
  }

  private schedulePositionRefresh(): void {
    if (this.cancelPositionRefresh) return;
    this.cancelPositionRefresh = this.deps.timers.set(() => {
      this.cancelPositionRefresh = undefined;
      for (const factory of this.waitingByFactory.keys()) this.reportPositions(factory, POSITION_REFRESH_WINDOW);
      if (this.waitingByFactory.size > 0) this.schedulePositionRefresh();
    }, POSITION_REFRESH_MS);
  }

  /** Estimated wait for the next arrival in a factory's line (a retry hint). */
  estimatedWaitMs(factory: string): number {
    return estimateWaitMs(this.waiting(factory) + 1, this.starts.perSecond(this.deps.now())) ?? 0;
  }

  /** Logs a failed port call; the caller has nothing to wait for. */
  private call(promise: Promise<unknown>): void {
    promise.catch((error: unknown) => this.deps.log.warn({ err: error }, 'placement call failed'));
  }
}

function rideKeyOf(factory: string, key: string): string {
  return `${factory}\n${key}`;
}

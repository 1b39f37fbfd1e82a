import { inProcessCluster } from '../cluster/in-process/index.js';
import { whenReady, type Eventually } from '../cluster/ports.js';
import { playersPerGame, type CoordinatorConfig } from '../config/config.js';
import { MatchmakingError, invalidArgument } from '../errors/index.js';
import { FactoryRegistry, type FactoryIdentity } from '../factories/factory-registry.js';
import type { PlacementPort } from '../placement/index.js';
import { CompetitiveRuntime } from './competitive-runtime.js';
import { CooperativeRuntime } from './cooperative-runtime.js';
import type { CoordinatorCommands } from './edges/commands.js';
import { CoreView } from './edges/core-view.js';
import { EventHub, type CoordinatorEvents, type FindOutcome } from './edges/events.js';
import type { AdmitDecision, FactoryDecision, FactoryRuntime, SeatMatch } from './factory-runtime.js';
import { GameCreations } from './game-creations.js';
import type { Assignment, FindRequest, ServerChannel, ServerEvent, ServerHello, TicketListener } from './messages.js';
import type { CoordinatorDeps, CoreDeps, TicketRecord } from './ports.js';
import { sortRunningGames } from './servers/running-game-check.js';
import { ServerRoster } from './servers/server-roster.js';
import { ParkedTickets, RestoredTickets, ticketIdReused } from './tickets/restored-tickets.js';
import { fingerprint, type EndReason, type Ticket } from './tickets/ticket.js';
import { TicketBook } from './tickets/ticket-book.js';

/** How long an assigned ticket is kept so a retry with its id gets the same assignment. */
const ASSIGNED_RETENTION_MS = 30_000;

/**
 * The coordinator core. Requests come in (commands), factories answer with decisions, and the
 * coordinator applies them to the owners of state: tickets (TicketBook), servers and games
 * (ServerRoster), creations (GameCreations), factories (FactoryRegistry). Effects leave at the
 * edge: orders through the OrderDelivery port, updates through the ticket's listener, events
 * through CoordinatorEvents. The clock, timers, ids, placement and cluster ports are injected;
 * with in-process adapters every command runs to completion synchronously.
 */
export class Coordinator implements CoordinatorCommands {
  private readonly hub: EventHub;
  /** Subscribe here for what happens in the core (metrics, logs, the operator page). */
  readonly events: CoordinatorEvents;
  /** The read-only face of the core. */
  readonly view: CoreView;
  private readonly deps: CoreDeps;
  private readonly registry: FactoryRegistry<FactoryRuntime>;
  private readonly book: TicketBook;
  private readonly roster: ServerRoster;
  private readonly creations: GameCreations;
  private readonly restored: RestoredTickets;
  private readonly parked = new ParkedTickets();
  /** Each ticket's pending expiry (time to live while waiting, retention once assigned). */
  private readonly expiries = new Map<string, () => void>();
  private stopping = false;

  constructor(
    private readonly config: CoordinatorConfig,
    deps: CoordinatorDeps,
    private readonly placement: PlacementPort,
    /** Waiting tickets from before a restart: retried with the same id, they keep their place. */
    restored: readonly TicketRecord[] = [],
  ) {
    this.hub = new EventHub(deps.log);
    this.events = this.hub;
    this.deps = { ...deps, cluster: deps.cluster ?? inProcessCluster(), events: this.hub };
    this.registry = new FactoryRegistry(config.templates, (identity) => this.instantiate(identity));
    this.book = new TicketBook(this.deps.cluster.players, deps.log, deps.store);
    this.roster = new ServerRoster(this.deps, this.deps.cluster.orders, {
      setCapacity: (serverId, capacity) => this.creations.setCapacity(serverId, capacity),
      recovered: () => this.creations.drain(),
    });
    this.restored = new RestoredTickets(this.deps, config.placement.ticketTtlMs, restored, () => this.stopping);
    this.creations = new GameCreations(config, this.deps, placement, this.book, this.roster, (f) => this.drainIfIdle(f), (ticket) =>
      this.restored.size === 0 ? 0 : this.restored.aheadOf((r) => this.factoryOf(r), ticket.factory, ticket.arrival),
    );
    this.view = new CoreView(this.registry, this.roster, this.book, this.creations, this.parked);
  }

  // ---------------------------------------------------------------- game servers

  /** A server said hello. Returns the factories it now serves. Throws on an invalid hello. */
  connectServer(hello: ServerHello, channel: ServerChannel): string[] {
    const unknown = this.registry.unknownTemplates(hello.templates);
    if (unknown.length > 0) throw invalidArgument('hello.templates', `unknown template(s) ${unknown.join(', ')}`);
    const previous = this.roster.get(hello.serverId);
    if (previous) {
      this.deps.log.warn({ serverId: hello.serverId }, 'a newer connection replaces this server');
      this.removeServer(hello.serverId);
      previous.channel.close(new MatchmakingError('ABORTED', `replaced by a newer connection of server ${hello.serverId}`));
    }
    const identities = this.registry.hostable(hello.attributes, hello.templates);
    const names = identities.map((i) => i.name);
    this.roster.connect(hello, channel, names);
    this.registry.attach(hello.serverId, identities);
    const { adopted, rejected } = sortRunningGames(
      hello,
      names,
      {
        maxPlayers: (factory) => {
          const runtime = this.registry.get(factory);
          return runtime && playersPerGame(runtime.identity.template.strategy);
        },
        matchableProblem: (factory, game) => this.registry.get(factory)?.checkMatchable(game.matchable),
        gameRunning: (gameId) => this.roster.game(gameId) !== undefined,
        gameOf: (playerId) => this.roster.gameOf(playerId),
      },
      this.deps.now(),
    );
    for (const r of rejected) this.roster.send(hello.serverId, { kind: 'rejected', reason: `hello.running_games[${r.gameId}]: ${r.reason}` });
    for (const game of adopted) {
      this.roster.addGame(hello.serverId, game.gameId, game.factory, game.playerIds);
      this.registry.get(game.factory)!.addGame(game);
      this.hub.emit('gameStarted', { gameId: game.gameId, serverId: hello.serverId, factory: game.factory });
    }
    this.deps.log.info({ serverId: hello.serverId, endpoint: hello.endpoint, factories: names.length, games: adopted.length }, 'game server connected');
    this.hub.emit('serverConnected', { serverId: hello.serverId, endpoint: hello.endpoint, factories: names });
    this.creations.serverConnected(hello.serverId, names, hello.capacity, adopted.length);
    for (const name of names) {
      this.admitParked(name);
      this.offerSeats(name);
    }
    return names;
  }

  /** The server's stream ended or went silent. Ignored when `channel` was already replaced. */
  disconnectServer(serverId: string, channel: ServerChannel): void {
    if (this.roster.get(serverId)?.channel !== channel) return;
    this.removeServer(serverId);
    this.deps.log.info({ serverId }, 'game server disconnected');
  }

  /** One report from a connected server. Bad reports are answered with `rejected`, never thrown. */
  onServerEvent(serverId: string, event: ServerEvent): void {
    if (!this.roster.get(serverId)) return;
    const problem = this.applyServerEvent(serverId, event);
    if (problem !== undefined) {
      this.hub.emit('serverMessageRejected', { kind: event.kind, serverId, reason: problem });
      this.deps.log.warn({ serverId, event: event.kind, problem }, 'rejected a game server message');
      this.roster.send(serverId, { kind: 'rejected', reason: `${event.kind}: ${problem}` });
    }
  }

  private applyServerEvent(serverId: string, event: ServerEvent): string | undefined {
    const now = this.deps.now();
    switch (event.kind) {
      case 'gameCreated': {
        const creation = this.creations.inFlightOn(serverId, event.requestId);
        if (!creation) return `unknown request_id "${event.requestId}"`;
        const outcome = this.creations.confirmed(creation, serverId, event.gameId);
        if (outcome.kind === 'refused') return outcome.problem;
        this.hub.emit('gameStarted', { gameId: event.gameId, serverId, factory: creation.factory });
        const runtime = this.registry.get(creation.factory);
        const late = runtime?.gameCreated(creation, event.gameId) ?? [];
        if (late.length > 0 && runtime?.strategy === 'cooperative') {
          const expiresInMs = runtime.identity.template.strategy.kind === 'cooperative' ? runtime.identity.template.strategy.settings.reservationMs : 0;
          this.roster.send(serverId, { kind: 'reserveSeats', gameId: event.gameId, playerIds: late, reservationToken: creation.token, expiresInMs }, `${creation.token}/late`);
        }
        for (const { ticketId, assignment } of outcome.assignments) {
          if (this.book.get(ticketId)?.state.kind === 'placing') this.assign(ticketId, assignment);
        }
        this.offerSeats(creation.factory);
        return undefined;
      }
      case 'gameCreationFailed': {
        const creation = this.creations.inFlightOn(serverId, event.requestId);
        if (!creation) return `unknown request_id "${event.requestId}"`;
        this.deps.log.warn({ serverId, reason: event.reason }, 'game creation failed');
        this.creations.takeBack(creation, 'failed');
        return undefined;
      }
      case 'capacityChanged':
        this.roster.capacityChanged(serverId, event.capacity);
        this.creations.drain();
        return undefined;
    }
    const game = this.roster.game(event.gameId);
    if (!game || game.serverId !== serverId) return `unknown game_id "${event.gameId}"`;
    const runtime = this.registry.get(game.factory)!;
    switch (event.kind) {
      case 'playerJoined': {
        const elsewhere = this.roster.gameOf(event.playerId);
        if (elsewhere !== undefined && elsewhere !== game.gameId) this.leaveGame(elsewhere, event.playerId);
        this.roster.seat(game.gameId, [event.playerId]);
        runtime.playerJoined(game.gameId, event.playerId, now);
        return undefined;
      }
      case 'playerLeft':
        if (!game.players.has(event.playerId)) return `player "${event.playerId}" is not in game "${game.gameId}"`;
        this.leaveGame(game.gameId, event.playerId);
        return undefined;
      case 'gameAttributesChanged': {
        const problem = runtime.setAttributes(game.gameId, event.matchable);
        if (problem === undefined) this.offerSeats(game.factory);
        return problem;
      }
      case 'gameOpened':
      case 'gameClosed':
        runtime.setOpen(game.gameId, event.kind === 'gameOpened');
        if (event.kind === 'gameOpened') this.offerSeats(game.factory);
        return undefined;
      case 'gameEnded':
        this.endGame(game.gameId);
        this.creations.gameEnded(serverId);
        return undefined;
    }
  }

  private removeServer(serverId: string): void {
    const factories = this.roster.get(serverId)!.factories;
    for (const game of this.roster.remove(serverId)) {
      this.registry.get(game.factory)?.removeGame(game.gameId);
      this.hub.emit('gameEnded', { gameId: game.gameId, serverId, factory: game.factory });
    }
    this.hub.emit('serverDisconnected', { serverId });
    this.creations.serverRemoved(serverId);
    for (const name of this.registry.detach(serverId, factories)) this.drainIfIdle(name);
  }

  private endGame(gameId: string): void {
    const game = this.roster.endGame(gameId);
    if (!game) return;
    this.registry.get(game.factory)?.removeGame(gameId);
    this.hub.emit('gameEnded', { gameId, serverId: game.serverId, factory: game.factory });
  }

  private leaveGame(gameId: string, playerId: string): void {
    const game = this.roster.game(gameId);
    if (!game) return;
    this.roster.unseat(gameId, [playerId]);
    this.registry.get(game.factory)?.playerLeft(gameId, playerId, this.deps.now());
    this.offerSeats(game.factory);
  }

  // ---------------------------------------------------------------- tickets

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
        fingerprint: fingerprint(request),
        factory: name,
        playerIds: request.party.map((p) => p.playerId),
        createdAt,
        arrival,
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
  private applyFactoryDecision(decision: FactoryDecision): void {
    const runtime = this.registry.get(decision.factory);
    if (decision.kind === 'reservationsLapsed') {
      for (const r of decision.lapsed) this.roster.unseat(r.gameId, r.playerIds);
      this.offerSeats(decision.factory);
      return;
    }
    if (!(runtime instanceof CompetitiveRuntime)) return;
    for (const game of decision.games) {
      const teams = game.teams.map((team) => team.map((id) => this.book.get(id)));
      // A batch solved on workers ends later than it began: start only games whose tickets all
      // still wait, and give the others back to the pool.
      if (teams.some((team) => team.some((t) => t?.state.kind !== 'pooled'))) {
        for (const t of teams.flat()) if (t?.state.kind === 'pooled') runtime.repool(t);
        continue;
      }
      this.hub.emit('competitiveGameFormed', { factory: decision.factory, gapInSigma: game.quality.gapInSigma, waitsMs: game.quality.waitsMs });
      this.creations.create(runtime.plan(teams as Ticket[][], game.map, game.region));
    }
  }

  /** Seats reserved in an open game: the server hears of them and the ticket is assigned. */
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
  private offerSeats(factory: string): void {
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
  private admitParked(name: string): void {
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
    if (ticket.fingerprint !== fingerprint(request)) throw ticketIdReused(ticket.id);
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
  cancel(ticketId: string): boolean {
    const ticket = this.book.get(ticketId);
    if (!ticket || ticket.state.kind === 'assigned') return false;
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
    this.expiries.get(ticketId)?.();
    this.expiries.set(ticketId, this.deps.timers.set(() => this.expire(ticketId), ms));
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
    this.expiries.get(ticket.id)?.();
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
    this.hub.emit('findFinished', { factory: ticket.factory, outcome, elapsedMs: this.deps.now() - ticket.createdAt });
    if (error) ticket.listener?.fail(error);
    this.drainIfIdle(ticket.factory);
  }

  /** A ticket got its game: tell the client, and keep the ticket for retries a while. */
  private assign(ticketId: string, assignment: Assignment): void {
    const ticket = this.book.assign(ticketId, assignment);
    // Kept only as long as a client plausibly retries, not for the whole TTL: at thousands of
    // finds a second, a 5-minute tail of finished tickets is what the heap would be made of.
    this.expireAfter(ticketId, Math.min(ASSIGNED_RETENTION_MS, ticket.createdAt + this.config.placement.ticketTtlMs - this.deps.now()));
    this.roster.seat(assignment.gameId, ticket.playerIds);
    this.hub.emit('findFinished', { factory: ticket.factory, outcome: 'assigned', elapsedMs: this.deps.now() - ticket.createdAt });
    ticket.listener?.update({ kind: 'assigned', assignment });
  }

  // ---------------------------------------------------------------- factories

  /** The factory a request names, or undefined if it names none. */
  private factoryOf(request: FindRequest): string | undefined {
    try {
      return this.registry.resolve(request.template, request.partition);
    } catch {
      return undefined;
    }
  }

  private instantiate(identity: FactoryIdentity): FactoryRuntime {
    this.deps.log.info({ factory: identity.name }, 'factory instantiated');
    const strategy = identity.template.strategy;
    const decide = (decision: FactoryDecision) => this.applyFactoryDecision(decision);
    return strategy.kind === 'cooperative'
      ? new CooperativeRuntime(identity, this.deps, decide, strategy.settings)
      : new CompetitiveRuntime(identity, this.deps, decide, strategy.settings);
  }

  /** A factory no server serves goes away once no ticket waits in it. */
  private drainIfIdle(name: string): void {
    if (this.registry.servers(name).size > 0) return;
    const runtime = this.registry.get(name);
    if (!runtime || runtime.waiting() > 0 || this.creations.waiting(name) > 0) return;
    runtime.dispose();
    this.registry.drain(name);
    this.deps.log.info({ factory: name }, 'factory drained');
  }

  /** The process is going down: from now on nothing (closing streams, late timers) changes stored state. */
  beginShutdown(): void {
    this.stopping = true;
    this.book.beginShutdown();
  }

  /** Logs a failed call to a port; the caller has nothing to wait for. */
  private background(value: Eventually<unknown>): void {
    if (value instanceof Promise) value.catch((error: unknown) => this.deps.log.warn({ err: error }, 'port call failed'));
  }
}

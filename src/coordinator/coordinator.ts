import type { CoordinatorConfig } from '../config/config.js';
import { MatchmakingError, invalidArgument } from '../errors/index.js';
import { FactoryRegistry, type FactoryIdentity } from '../factories/factory-registry.js';
import type { PlacementPort } from '../placement/index.js';
import { CompetitiveRuntime } from './competitive-runtime.js';
import { CooperativeRuntime } from './cooperative-runtime.js';
import type { FactoryHost, FactoryRuntime } from './factory-runtime.js';
import { GameCreations, type CreationHost } from './game-creations.js';
import type {
  Assignment,
  FindRequest,
  RunningGame,
  ServerChannel,
  ServerEvent,
  ServerHello,
  TicketListener,
} from './messages.js';
import type { CoordinatorDeps, CoreDeps, FindOutcome, TicketRecord } from './ports.js';
import { inProcessCluster } from '../cluster/in-process/index.js';
import { whenReady, type Eventually } from '../cluster/ports.js';
import type { CoordinatorCommands } from './edges/commands.js';
import { EventHub, type CoordinatorEvents } from './edges/events.js';
import type { CoordinatorSnapshot, CoordinatorView, FactorySummary, ServerSummary, TicketSummary } from './edges/view.js';
import { queryStats, type StatsAnswer, type StatsQuery } from './stats-query.js';
import { fingerprint, type Creation, type Ticket } from './tickets.js';

/** How long an assigned ticket is kept so a retry with its id gets the same assignment. */
const ASSIGNED_RETENTION_MS = 30_000;

function ticketIdReused(ticketId: string): MatchmakingError {
  return new MatchmakingError(
    'ALREADY_EXISTS',
    `ticket_id: "${ticketId}" is already used by a different request; choose a new ticket id`,
  );
}

interface RestoredTicket {
  readonly record: TicketRecord;
  readonly fingerprint: string;
  readonly cancelExpiry: () => void;
}

interface ConnectedServer {
  readonly hello: ServerHello;
  readonly channel: ServerChannel;
  readonly factories: readonly string[];
  readonly games: Set<string>;
}

interface RunningGameRecord {
  readonly gameId: string;
  readonly serverId: string;
  readonly factory: string;
  /** Joined players and players holding a reserved seat. */
  readonly players: Set<string>;
}

/**
 * The coordinator core: game servers, their games, factories and tickets; game creations are
 * GameCreations'. Pure logic apart from I/O: the clock, timers, ids, the placement port and the
 * streams to servers and clients are injected. Every method runs to completion synchronously;
 * only the answers of the (asynchronous) placement port arrive later.
 */
export class Coordinator implements FactoryHost, CreationHost, CoordinatorCommands, CoordinatorView {
  private readonly hub: EventHub;
  /** Subscribe here for what happens in the core (metrics, logs, the operator page). */
  readonly events: CoordinatorEvents;
  private readonly deps: CoreDeps;
  private readonly registry: FactoryRegistry<FactoryRuntime>;
  private readonly connected = new Map<string, ConnectedServer>();
  private readonly games = new Map<string, RunningGameRecord>();
  private readonly tickets = new Map<string, Ticket>();
  private readonly gameOfPlayer = new Map<string, string>();
  private readonly creations: GameCreations;
  /** Tickets that survived a restart, until their client retries or their time to live ends. */
  private readonly restored = new Map<string, RestoredTicket>();
  /** Tickets waiting for a factory no server serves yet (after a restart), by factory name. */
  private readonly parked = new Map<string, Map<string, Ticket>>();
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
    this.creations = new GameCreations(config, this.deps, placement, this);
    const now = deps.now();
    for (const record of restored) {
      const id = record.request.ticketId;
      this.background(this.deps.cluster.arrivals.observe(record.arrival));
      const left = record.createdAt + config.placement.ticketTtlMs - now;
      if (left <= 0) {
        deps.store?.remove(id);
        continue;
      }
      const cancelExpiry = deps.timers.set(() => {
        this.restored.delete(id);
        if (!this.stopping) deps.store?.remove(id);
      }, left);
      this.restored.set(id, { record, fingerprint: fingerprint(record.request), cancelExpiry });
    }
  }

  // ---------------------------------------------------------------- game servers

  /** A server said hello. Returns the factories it now serves. Throws on an invalid hello. */
  connectServer(hello: ServerHello, channel: ServerChannel): string[] {
    const unknown = this.registry.unknownTemplates(hello.templates);
    if (unknown.length > 0) {
      throw invalidArgument('hello.templates', `unknown template(s) ${unknown.join(', ')}`);
    }
    const previous = this.connected.get(hello.serverId);
    if (previous) {
      this.deps.log.warn({ serverId: hello.serverId }, 'a newer connection replaces this server');
      this.removeServer(hello.serverId);
      previous.channel.close(
        new MatchmakingError('ABORTED', `replaced by a newer connection of server ${hello.serverId}`),
      );
    }
    const identities = this.registry.hostable(hello.attributes, hello.templates);
    const names = identities.map((i) => i.name);
    const server: ConnectedServer = {
      hello,
      channel,
      factories: names,
      games: new Set(),
    };
    this.connected.set(hello.serverId, server);
    this.registry.attach(hello.serverId, identities);
    for (const game of hello.runningGames) this.adoptRunningGame(server, game);
    this.deps.log.info(
      { serverId: hello.serverId, endpoint: hello.endpoint, factories: names.length, games: server.games.size },
      'game server connected',
    );
    this.creations.serverConnected(hello.serverId, names, hello.capacity, server.games.size);
    for (const name of names) {
      this.admitParked(name);
      this.registry.get(name)!.offerSeats();
    }
    return names;
  }

  /** The server's stream ended or went silent. Ignored when `channel` was already replaced. */
  disconnectServer(serverId: string, channel: ServerChannel): void {
    if (this.connected.get(serverId)?.channel !== channel) return;
    this.removeServer(serverId);
    this.deps.log.info({ serverId }, 'game server disconnected');
  }

  /** One report from a connected server. Bad reports are answered with `rejected`, never thrown. */
  onServerEvent(serverId: string, event: ServerEvent): void {
    const server = this.connected.get(serverId);
    if (!server) return;
    const problem = this.applyServerEvent(server, event);
    if (problem !== undefined) {
      this.hub.emit('serverMessageRejected', { kind: event.kind, serverId, reason: problem });
      this.deps.log.warn({ serverId, event: event.kind, problem }, 'rejected a game server message');
      server.channel.send({ kind: 'rejected', reason: `${event.kind}: ${problem}` });
    }
  }

  private applyServerEvent(server: ConnectedServer, event: ServerEvent): string | undefined {
    const now = this.deps.now();
    const serverId = server.hello.serverId;
    switch (event.kind) {
      case 'gameCreated': {
        const creation = this.creations.inFlightOn(serverId, event.requestId);
        if (!creation) return `unknown request_id "${event.requestId}"`;
        return this.creations.confirmed(creation, serverId, event.gameId);
      }
      case 'gameCreationFailed': {
        const creation = this.creations.inFlightOn(serverId, event.requestId);
        if (!creation) return `unknown request_id "${event.requestId}"`;
        this.deps.log.warn({ serverId, reason: event.reason }, 'game creation failed');
        this.creations.takeBack(creation, 'failed');
        return undefined;
      }
      case 'capacityChanged':
        this.creations.capacityChanged(serverId, event.capacity);
        return undefined;
    }
    const game = this.games.get(event.gameId);
    if (!game || game.serverId !== server.hello.serverId) return `unknown game_id "${event.gameId}"`;
    const runtime = this.registry.get(game.factory)!;
    switch (event.kind) {
      case 'playerJoined': {
        const elsewhere = this.gameOfPlayer.get(event.playerId);
        if (elsewhere !== undefined && elsewhere !== game.gameId) this.leaveGame(elsewhere, event.playerId);
        this.gameOfPlayer.set(event.playerId, game.gameId);
        game.players.add(event.playerId);
        runtime.playerJoined(game.gameId, event.playerId, now);
        return undefined;
      }
      case 'playerLeft':
        if (!game.players.has(event.playerId)) return `player "${event.playerId}" is not in game "${game.gameId}"`;
        this.leaveGame(game.gameId, event.playerId);
        return undefined;
      case 'gameAttributesChanged':
        return runtime.setAttributes(game.gameId, event.matchable);
      case 'gameOpened':
      case 'gameClosed':
        runtime.setOpen(game.gameId, event.kind === 'gameOpened');
        return undefined;
      case 'gameEnded':
        this.endGame(game);
        this.creations.gameEnded(serverId);
        return undefined;
    }
  }

  private adoptRunningGame(server: ConnectedServer, game: RunningGame): void {
    const runtime = this.registry.get(game.factory);
    const problem =
      !server.factories.includes(game.factory) || !runtime
        ? `factory "${game.factory}" is not one this server hosts`
        : this.games.has(game.gameId)
          ? `game_id "${game.gameId}" is already running on another server`
          : runtime.checkMatchable(game.matchable);
    if (problem !== undefined) {
      server.channel.send({ kind: 'rejected', reason: `hello.running_games[${game.gameId}]: ${problem}` });
      return;
    }
    const record: RunningGameRecord = {
      gameId: game.gameId,
      serverId: server.hello.serverId,
      factory: game.factory,
      players: new Set(game.playerIds),
    };
    this.games.set(game.gameId, record);
    server.games.add(game.gameId);
    for (const playerId of game.playerIds) this.gameOfPlayer.set(playerId, game.gameId);
    runtime!.addGame(game);
  }

  private removeServer(serverId: string): void {
    const server = this.connected.get(serverId)!;
    this.connected.delete(serverId);
    for (const gameId of server.games) this.endGame(this.games.get(gameId)!);
    this.creations.serverRemoved(serverId);
    for (const name of this.registry.detach(serverId, server.factories)) this.drainIfIdle(name);
  }

  private endGame(game: RunningGameRecord): void {
    this.games.delete(game.gameId);
    this.connected.get(game.serverId)?.games.delete(game.gameId);
    for (const playerId of game.players) {
      if (this.gameOfPlayer.get(playerId) === game.gameId) this.gameOfPlayer.delete(playerId);
    }
    this.registry.get(game.factory)?.removeGame(game.gameId);
  }

  private leaveGame(gameId: string, playerId: string): void {
    const game = this.games.get(gameId);
    if (!game) return;
    game.players.delete(playerId);
    if (this.gameOfPlayer.get(playerId) === gameId) this.gameOfPlayer.delete(playerId);
    this.registry.get(game.factory)?.playerLeft(gameId, playerId, this.deps.now());
  }

  // ---------------------------------------------------------------- tickets

  /**
   * FindGame: resumes the ticket with this id, or starts a new one. Throws MatchmakingError for a
   * request that can never succeed as asked; everything after that is reported to `listener`.
   */
  find(request: FindRequest, listener: TicketListener): void {
    const existing = this.tickets.get(request.ticketId);
    if (existing) return this.resume(existing, request, listener);
    const restored = this.restored.get(request.ticketId);
    if (restored && restored.fingerprint !== fingerprint(request)) throw ticketIdReused(request.ticketId);

    // A restored ticket may come back before the servers do: it waits for its factory.
    const name = restored
      ? this.registry.resolve(request.template, request.partition)
      : this.registry.select(request.template, request.partition).name;
    const runtime = this.registry.get(name);
    runtime?.validate(request);
    for (const player of request.party) {
      const gameId = this.gameOfPlayer.get(player.playerId);
      if (gameId !== undefined) {
        throw new MatchmakingError(
          'FAILED_PRECONDITION',
          `party: player "${player.playerId}" is in game "${gameId}"; leave it before finding another`,
        );
      }
    }
    const waiting = this.creations.waiting(name);
    if (!restored && waiting >= this.config.placement.maxQueuedPerFactory) {
      throw new MatchmakingError(
        'RESOURCE_EXHAUSTED',
        `${name}: ${waiting} requests already wait for a game server slot; retry later`,
        this.creations.estimatedWaitMs(name) || 1000,
      );
    }

    const playerIds = request.party.map((p) => p.playerId);
    // Cluster-wide: one live ticket per player, and the arrival that orders the queue. The
    // in-process adapters answer at once; a shared store's answer arrives later, and then an
    // error reaches the client through its listener instead of being thrown.
    const opened = whenReady(this.deps.cluster.players.claim(request.ticketId, playerIds), (conflict) => {
      if (conflict) {
        throw new MatchmakingError(
          'ALREADY_EXISTS',
          `party: player "${conflict.playerId}" is already finding a game in ticket "${conflict.ticketId}"`,
        );
      }
      return whenReady(restored ? restored.record.arrival : this.deps.cluster.arrivals.next(), (arrival) =>
        this.open(request, listener, name, restored, arrival),
      );
    });
    if (opened instanceof Promise) {
      opened.catch((error: unknown) =>
        listener.fail(error instanceof MatchmakingError ? error : new MatchmakingError('UNAVAILABLE', 'the cluster could not be reached; retry')),
      );
    }
  }

  private open(request: FindRequest, listener: TicketListener, name: string, restored: RestoredTicket | undefined, arrival: number): void {
    const runtime = this.registry.get(name);
    const now = this.deps.now();
    this.placement.recordDemand(name).catch(() => {});
    const createdAt = restored?.record.createdAt ?? now;
    const ticket: Ticket = {
      id: request.ticketId,
      request,
      fingerprint: fingerprint(request),
      factory: name,
      playerIds: request.party.map((p) => p.playerId),
      createdAt,
      arrival,
      state: 'matching',
      listener,
      creationId: undefined,
      assignment: undefined,
      persisted: restored !== undefined,
      cancelExpiry: this.deps.timers.set(
        () => this.expire(request.ticketId),
        createdAt + this.config.placement.ticketTtlMs - now,
      ),
    };
    if (restored) {
      restored.cancelExpiry();
      this.restored.delete(ticket.id);
    }
    this.tickets.set(ticket.id, ticket);
    if (runtime) {
      runtime.admit(ticket);
    } else {
      let parked = this.parked.get(name);
      if (!parked) this.parked.set(name, (parked = new Map()));
      parked.set(ticket.id, ticket);
      listener.update({ kind: 'queued', factory: name, position: 0, estimatedWaitMs: 0 });
    }
    // Pooled or parked: it waits, so it must survive a restart (queued ones are stored on enqueue).
    if (ticket.state === 'matching') this.persist(ticket);
  }

  /**
   * Stores a ticket that has to wait. Tickets matched at once, or riding a creation already on
   * its way to a server, are never written: the common case costs no disk write.
   */
  persist(ticket: Ticket): void {
    if (ticket.persisted || !this.deps.store || this.stopping) return;
    ticket.persisted = true;
    this.deps.store.save({ request: ticket.request, createdAt: ticket.createdAt, arrival: ticket.arrival });
  }

  private unpersist(ticket: Ticket): void {
    // Once stopping, the store is about to close and what it holds must survive as it is.
    if (!ticket.persisted || this.stopping) return;
    ticket.persisted = false;
    this.deps.store?.remove(ticket.id);
  }

  /** Restored tickets waiting for their factory's servers to reconnect join it, oldest first. */
  private admitParked(name: string): void {
    const parked = this.parked.get(name);
    const runtime = this.registry.get(name);
    if (!parked || !runtime) return;
    this.parked.delete(name);
    for (const ticket of [...parked.values()].sort((a, b) => a.arrival - b.arrival)) {
      try {
        runtime.validate(ticket.request);
      } catch (error) {
        this.finish(ticket, 'failed', error as MatchmakingError);
        continue;
      }
      runtime.admit(ticket);
    }
  }

  private resume(ticket: Ticket, request: FindRequest, listener: TicketListener): void {
    if (ticket.fingerprint !== fingerprint(request)) throw ticketIdReused(ticket.id);
    const previous = ticket.listener;
    ticket.listener = listener;
    if (previous && previous !== listener) {
      previous.fail(new MatchmakingError('CANCELLED', `ticket "${ticket.id}" was resumed by another call`));
    }
    if (ticket.state === 'assigned') {
      listener.update({ kind: 'assigned', assignment: ticket.assignment! });
    } else if (ticket.state === 'matching') {
      listener.update({ kind: 'queued', factory: ticket.factory, position: 0, estimatedWaitMs: 0 });
    } else {
      this.creations.reportPosition(ticket);
    }
  }

  /** CancelFind. False when no ticket with that id is waiting. */
  cancel(ticketId: string): boolean {
    const ticket = this.tickets.get(ticketId);
    if (!ticket || ticket.state === 'assigned') return false;
    this.finish(ticket, 'cancelled', new MatchmakingError('CANCELLED', `ticket "${ticketId}" was cancelled`));
    return true;
  }

  /** The client's stream went away: its waiting ticket is cancelled, unless another call resumed it. */
  abandon(ticketId: string, listener: TicketListener): void {
    const ticket = this.tickets.get(ticketId);
    if (!ticket || ticket.listener !== listener) return;
    ticket.listener = undefined;
    // Streams cut by our own shutdown are not clients giving up: their tickets stay stored.
    if (this.stopping) return;
    if (ticket.state !== 'assigned') this.finish(ticket, 'cancelled', undefined);
  }

  private expire(ticketId: string): void {
    const ticket = this.tickets.get(ticketId);
    if (!ticket) return;
    if (ticket.state === 'assigned') {
      this.tickets.delete(ticketId);
      return;
    }
    this.finish(
      ticket,
      'expired',
      new MatchmakingError('DEADLINE_EXCEEDED', `ticket "${ticketId}" was not assigned within its time to live`),
    );
  }

  /** Ends a waiting ticket without an assignment and frees its players. */
  private finish(ticket: Ticket, outcome: FindOutcome, error: MatchmakingError | undefined): void {
    this.tickets.delete(ticket.id);
    this.unpersist(ticket);
    this.parked.get(ticket.factory)?.delete(ticket.id);
    ticket.cancelExpiry();
    this.releasePlayers(ticket);
    if (ticket.creationId !== undefined) this.creations.leave(ticket);
    else this.registry.get(ticket.factory)?.withdraw(ticket.id);
    this.hub.emit('findFinished', { factory: ticket.factory, outcome, elapsedMs: this.deps.now() - ticket.createdAt });
    if (error) ticket.listener?.fail(error);
    this.drainIfIdle(ticket.factory);
  }

  private releasePlayers(ticket: Ticket): void {
    this.background(this.deps.cluster.players.release(ticket.id, ticket.playerIds));
  }

  /** A ticket got its game: tell the client, and keep the ticket for retries until its TTL. */
  assignTicket(ticket: Ticket, assignment: Assignment): void {
    ticket.state = 'assigned';
    ticket.assignment = assignment;
    // Kept only as long as a client plausibly retries, not for the whole TTL: at thousands of
    // finds a second, a 5-minute tail of finished tickets is what the heap would be made of.
    ticket.cancelExpiry();
    ticket.cancelExpiry = this.deps.timers.set(
      () => this.expire(ticket.id),
      Math.min(ASSIGNED_RETENTION_MS, ticket.createdAt + this.config.placement.ticketTtlMs - this.deps.now()),
    );
    this.unpersist(ticket);
    ticket.creationId = undefined;
    this.releasePlayers(ticket);
    const game = this.games.get(assignment.gameId);
    for (const playerId of ticket.playerIds) {
      this.gameOfPlayer.set(playerId, assignment.gameId);
      game?.players.add(playerId);
    }
    this.hub.emit('findFinished', { factory: ticket.factory, outcome: 'assigned', elapsedMs: this.deps.now() - ticket.createdAt });
    ticket.listener?.update({ kind: 'assigned', assignment });
  }

  // ---------------------------------------------------------------- creations (FactoryHost, CreationHost)

  createGame(creation: Creation): void {
    this.creations.create(creation);
  }

  rideAlong(ticket: Ticket, rideKey: string): boolean {
    return this.creations.rideAlong(ticket, rideKey);
  }

  matchQueued(factory: string, tryMatch: (ticket: Ticket) => Assignment | undefined): void {
    this.creations.matchQueued(factory, tryMatch);
  }

  runtime(factory: string): FactoryRuntime | undefined {
    return this.registry.get(factory);
  }

  link(serverId: string): { channel: ServerChannel; endpoint: string } | undefined {
    const server = this.connected.get(serverId);
    return server && { channel: server.channel, endpoint: server.hello.endpoint };
  }

  recordGame(serverId: string, gameId: string, factory: string): boolean {
    const server = this.connected.get(serverId);
    if (!server || gameId === '' || this.games.has(gameId)) return false;
    this.games.set(gameId, { gameId, serverId, factory, players: new Set() });
    server.games.add(gameId);
    return true;
  }

  factoryMayBeIdle(factory: string): void {
    this.drainIfIdle(factory);
  }

  // ---------------------------------------------------------------- factories

  private instantiate(identity: FactoryIdentity): FactoryRuntime {
    this.deps.log.info({ factory: identity.name }, 'factory instantiated');
    const strategy = identity.template.strategy;
    return strategy.kind === 'cooperative'
      ? new CooperativeRuntime(identity, this, this.deps, strategy.settings)
      : new CompetitiveRuntime(identity, this, this.deps, strategy.settings);
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

  /** Seats reserved for players who never joined were freed. */
  reservationLapsed(gameId: string, playerIds: readonly string[]): void {
    const game = this.games.get(gameId);
    for (const playerId of playerIds) {
      game?.players.delete(playerId);
      if (this.gameOfPlayer.get(playerId) === gameId) this.gameOfPlayer.delete(playerId);
    }
  }

  /** The process is going down: from now on nothing (closing streams, late timers) changes stored state. */
  beginShutdown(): void {
    this.stopping = true;
  }

  // ---------------------------------------------------------------- reading (CoordinatorView)

  gameServer(gameId: string): string | undefined {
    return this.games.get(gameId)?.serverId;
  }

  heldTicket(ticketId: string): Ticket | undefined {
    return this.tickets.get(ticketId);
  }

  ticket(ticketId: string): TicketSummary | undefined {
    const t = this.tickets.get(ticketId);
    if (!t) return undefined;
    const state = this.parked.get(t.factory)?.has(t.id) ? 'parked' : t.state === 'matching' ? 'pooled' : t.state;
    return { ticketId: t.id, factory: t.factory, state, playerIds: t.playerIds, createdAt: t.createdAt, arrival: t.arrival };
  }

  factoryNames(): string[] {
    return [...this.registry.names()];
  }

  /** Creations of this factory waiting for a slot. */
  queuedIn(factory: string): number {
    return this.creations.waiting(factory);
  }

  servers(): ServerSummary[] {
    return [...this.connected.values()].map((s) => ({
      serverId: s.hello.serverId,
      endpoint: s.hello.endpoint,
      factories: s.factories,
      games: s.games.size,
      capacity: this.creations.advertised(s.hello.serverId) ?? s.hello.capacity,
      backedOff: this.creations.resting(s.hello.serverId),
    }));
  }

  factories(): FactorySummary[] {
    return this.factoryNames().map((name) => {
      const runtime = this.registry.get(name)!;
      return {
        name,
        template: runtime.identity.template.name,
        strategy: runtime.strategy,
        servers: this.registry.servers(name).size,
        pooled: runtime.waiting() + (this.parked.get(name)?.size ?? 0),
        queued: this.creations.waiting(name),
        openGames: runtime.openGames(),
        competitive: runtime.competitiveStats(),
      };
    });
  }

  queryStats(query: StatsQuery, now: number): StatsAnswer {
    return queryStats(this.registry, (name) => this.creations.waiting(name), query, now);
  }

  /** Gauges for metrics, read at scrape time. */
  snapshot(): CoordinatorSnapshot {
    const ticketsByState = { parked: 0, pooled: 0, placing: 0, assigned: 0 };
    for (const t of this.tickets.values()) ticketsByState[t.state === 'matching' ? 'pooled' : t.state]++;
    for (const parked of this.parked.values()) {
      ticketsByState.parked += parked.size;
      ticketsByState.pooled -= parked.size;
    }
    return {
      servers: this.connected.size,
      factories: this.registry.size,
      games: this.games.size,
      tickets: this.tickets.size,
      ticketsByState,
      queued: this.creations.waiting(),
      openGames: [...this.registry.names()].reduce((n, f) => n + this.registry.get(f)!.openGames(), 0),
    };
  }

  /** Logs a failed call to a cluster port; the caller has nothing to wait for. */
  private background(value: Eventually<unknown>): void {
    if (value instanceof Promise) value.catch((error: unknown) => this.deps.log.warn({ err: error }, 'cluster port call failed'));
  }
}

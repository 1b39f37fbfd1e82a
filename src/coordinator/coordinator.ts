import type { AttributeSet } from '../attributes/attribute-value.js';
import type { CoordinatorConfig } from '../config/config.js';
import { MatchmakingError, invalidArgument } from '../errors/index.js';
import { FactoryRegistry, type FactoryIdentity } from '../factories/factory-registry.js';
import { CreationQueue, DecayingRate, DemandApportion, SlotLedger, estimateWaitMs } from '../placement/index.js';
import { FactoryRuntime, type FactoryHost } from './factory-runtime.js';
import type {
  Assignment,
  FindRequest,
  ServerCapacity,
  RunningGame,
  ServerChannel,
  ServerEvent,
  ServerHello,
  TicketListener,
} from './messages.js';
import type { CoordinatorDeps, FindOutcome, TicketRecord } from './ports.js';
import { fingerprint, queryKey, type Creation, type Ticket } from './tickets.js';

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
  readonly creations: Set<string>;
  /** The capacity the server last advertised (kept while it is backed off). */
  advertised: ServerCapacity;
  /** Creations failed or timed out in a row. */
  failures: number;
  cancelBackoff: (() => void) | undefined;
}

interface RunningGameRecord {
  readonly gameId: string;
  readonly serverId: string;
  readonly factory: string;
  /** Joined players and players holding a reserved seat. */
  readonly players: Set<string>;
}

/** How many queued parties to try against newly opened seats per event: bounds the work. */
const QUEUED_MATCH_WINDOW = 16;
/** How many queue positions to refresh after the queue moves; the rest refresh periodically. */
const POSITION_UPDATE_WINDOW = 64;
const POSITION_REFRESH_MS = 1000;
/** Queue positions refreshed each period, per factory: the head moves; the tail hears when it nears. */
const POSITION_REFRESH_WINDOW = 1000;
/** Circuit breaker: after this many failed creations in a row a server gets a rest, doubling each time. */
const FAILURES_BEFORE_BACKOFF = 3;
const FIRST_BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 30_000;

/**
 * The coordinator core: game servers, factories, tickets and game creations. Pure logic apart
 * from I/O: the clock, timers, ids and the streams to servers and clients are injected, and every
 * method runs to completion synchronously, so there is no interleaving to reason about.
 */
export class Coordinator implements FactoryHost {
  private readonly factories: FactoryRegistry<FactoryRuntime>;
  private readonly servers = new Map<string, ConnectedServer>();
  private readonly games = new Map<string, RunningGameRecord>();
  private readonly tickets = new Map<string, Ticket>();
  private readonly creations = new Map<string, Creation>();
  /** Cooperative creations with seats left, by factory and exact query: riders join them. */
  private readonly rideable = new Map<string, Set<string>>();
  private readonly ticketOfPlayer = new Map<string, string>();
  private readonly gameOfPlayer = new Map<string, string>();
  private readonly ledger: SlotLedger;
  /** Freed slots go to waiting factories in proportion to their demand (placement/apportion-policy.ts). */
  private readonly demand = new DemandApportion();
  private readonly queue = new CreationQueue<string>({ apportion: this.demand });
  /** Recent game starts, behind the wait estimates shown to queued clients. */
  private readonly starts = new DecayingRate(10_000);
  private cancelPositionRefresh: (() => void) | undefined;
  /** Tickets that survived a restart, until their client retries or their time to live ends. */
  private readonly restored = new Map<string, RestoredTicket>();
  /** Tickets waiting for a factory no server serves yet (after a restart), by factory name. */
  private readonly parked = new Map<string, Map<string, Ticket>>();
  private nextArrival = 1;
  private stopping = false;

  constructor(
    private readonly config: CoordinatorConfig,
    private readonly deps: CoordinatorDeps,
    /** Waiting tickets from before a restart: retried with the same id, they keep their place. */
    restored: readonly TicketRecord[] = [],
  ) {
    this.factories = new FactoryRegistry(config.templates, (identity) => this.instantiate(identity));
    this.ledger = new SlotLedger(config.placement.policy);
    const now = deps.now();
    for (const record of restored) {
      const id = record.request.ticketId;
      this.nextArrival = Math.max(this.nextArrival, record.arrival + 1);
      const left = record.createdAt + config.placement.ticketTtlMs - now;
      if (left <= 0) {
        deps.store?.remove(id);
        continue;
      }
      const cancelExpiry = deps.timers.set(() => {
        this.restored.delete(id);
        deps.store?.remove(id);
      }, left);
      this.restored.set(id, { record, fingerprint: fingerprint(record.request), cancelExpiry });
    }
  }

  // ---------------------------------------------------------------- game servers

  /** A server said hello. Returns the factories it now serves. Throws on an invalid hello. */
  connectServer(hello: ServerHello, channel: ServerChannel): string[] {
    const unknown = this.factories.unknownTemplates(hello.templates);
    if (unknown.length > 0) {
      throw invalidArgument('hello.templates', `unknown template(s) ${unknown.join(', ')}`);
    }
    const previous = this.servers.get(hello.serverId);
    if (previous) {
      this.deps.log.warn({ serverId: hello.serverId }, 'a newer connection replaces this server');
      this.removeServer(hello.serverId);
      previous.channel.close(
        new MatchmakingError('ABORTED', `replaced by a newer connection of server ${hello.serverId}`),
      );
    }
    const identities = this.factories.hostable(hello.attributes, hello.templates);
    const names = identities.map((i) => i.name);
    const server: ConnectedServer = {
      hello,
      channel,
      factories: names,
      games: new Set(),
      creations: new Set(),
      advertised: hello.capacity,
      failures: 0,
      cancelBackoff: undefined,
    };
    this.servers.set(hello.serverId, server);
    this.factories.attach(hello.serverId, identities);
    for (const game of hello.runningGames) this.adoptRunningGame(server, game);
    this.ledger.addServer(hello.serverId, names, hello.capacity, server.games.size, this.deps.now());
    this.deps.log.info(
      { serverId: hello.serverId, endpoint: hello.endpoint, factories: names.length, games: server.games.size },
      'game server connected',
    );
    for (const name of names) {
      this.admitParked(name);
      this.factories.get(name)!.offerSeats();
    }
    this.drainQueue();
    return names;
  }

  /** The server's stream ended or went silent. Ignored when `channel` was already replaced. */
  disconnectServer(serverId: string, channel: ServerChannel): void {
    if (this.servers.get(serverId)?.channel !== channel) return;
    this.removeServer(serverId);
    this.deps.log.info({ serverId }, 'game server disconnected');
  }

  /** One report from a connected server. Bad reports are answered with `rejected`, never thrown. */
  onServerEvent(serverId: string, event: ServerEvent): void {
    const server = this.servers.get(serverId);
    if (!server) return;
    const problem = this.applyServerEvent(server, event);
    if (problem !== undefined) {
      this.deps.observer?.serverMessageRejected(event.kind);
      this.deps.log.warn({ serverId, event: event.kind, problem }, 'rejected a game server message');
      server.channel.send({ kind: 'rejected', reason: `${event.kind}: ${problem}` });
    }
  }

  private applyServerEvent(server: ConnectedServer, event: ServerEvent): string | undefined {
    const now = this.deps.now();
    switch (event.kind) {
      case 'gameCreated':
        return this.onGameCreated(server, event.requestId, event.gameId);
      case 'gameCreationFailed': {
        const creation = this.creationOn(server, event.requestId);
        if (!creation) return `unknown request_id "${event.requestId}"`;
        this.deps.log.warn({ serverId: server.hello.serverId, reason: event.reason }, 'game creation failed');
        this.takeBack(creation, 'failed');
        return undefined;
      }
      case 'capacityChanged':
        server.advertised = event.capacity;
        if (!server.cancelBackoff) this.ledger.setCapacity(server.hello.serverId, event.capacity, now);
        this.drainQueue();
        return undefined;
    }
    const game = this.games.get(event.gameId);
    if (!game || game.serverId !== server.hello.serverId) return `unknown game_id "${event.gameId}"`;
    const runtime = this.factories.get(game.factory)!;
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
        this.ledger.gameEnded(server.hello.serverId);
        this.drainQueue();
        return undefined;
    }
  }

  private adoptRunningGame(server: ConnectedServer, game: RunningGame): void {
    const runtime = this.factories.get(game.factory);
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
    const server = this.servers.get(serverId)!;
    this.servers.delete(serverId);
    server.cancelBackoff?.();
    this.ledger.removeServer(serverId);
    for (const gameId of server.games) this.endGame(this.games.get(gameId)!);
    for (const requestId of server.creations) this.takeBack(this.creations.get(requestId)!, 'disconnected');
    for (const name of this.factories.detach(serverId, server.factories)) this.drainIfIdle(name);
  }

  private endGame(game: RunningGameRecord): void {
    this.games.delete(game.gameId);
    this.servers.get(game.serverId)?.games.delete(game.gameId);
    for (const playerId of game.players) {
      if (this.gameOfPlayer.get(playerId) === game.gameId) this.gameOfPlayer.delete(playerId);
    }
    this.factories.get(game.factory)?.removeGame(game.gameId);
  }

  private leaveGame(gameId: string, playerId: string): void {
    const game = this.games.get(gameId);
    if (!game) return;
    game.players.delete(playerId);
    if (this.gameOfPlayer.get(playerId) === gameId) this.gameOfPlayer.delete(playerId);
    this.factories.get(game.factory)?.playerLeft(gameId, playerId, this.deps.now());
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
      ? this.factories.resolve(request.template, request.partition)
      : this.factories.select(request.template, request.partition).name;
    const runtime = this.factories.get(name);
    runtime?.validate(request);
    for (const player of request.party) {
      const ticketId = this.ticketOfPlayer.get(player.playerId);
      if (ticketId !== undefined) {
        throw new MatchmakingError(
          'ALREADY_EXISTS',
          `party: player "${player.playerId}" is already finding a game in ticket "${ticketId}"`,
        );
      }
      const gameId = this.gameOfPlayer.get(player.playerId);
      if (gameId !== undefined) {
        throw new MatchmakingError(
          'FAILED_PRECONDITION',
          `party: player "${player.playerId}" is in game "${gameId}"; leave it before finding another`,
        );
      }
    }
    if (!restored && this.queue.depth(name) >= this.config.placement.maxQueuedPerFactory) {
      throw new MatchmakingError(
        'RESOURCE_EXHAUSTED',
        `${name}: ${this.queue.depth(name)} requests already wait for a game server slot; retry later`,
        this.estimatedWaitMs(name, 1) || 1000,
      );
    }

    const now = this.deps.now();
    this.demand.recordRequest(name, now);
    const createdAt = restored?.record.createdAt ?? now;
    const ticket: Ticket = {
      id: request.ticketId,
      request,
      fingerprint: fingerprint(request),
      factory: name,
      playerIds: request.party.map((p) => p.playerId),
      createdAt,
      arrival: restored?.record.arrival ?? this.nextArrival++,
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
    for (const playerId of ticket.playerIds) this.ticketOfPlayer.set(playerId, ticket.id);
    if (runtime) {
      runtime.admit(ticket);
    } else {
      let parked = this.parked.get(name);
      if (!parked) this.parked.set(name, (parked = new Map()));
      parked.set(ticket.id, ticket);
      this.reportPosition(ticket);
    }
    // Pooled or parked: it waits, so it must survive a restart (queued ones are stored on enqueue).
    if (ticket.state === 'matching') this.persist(ticket);
  }

  /**
   * Stores a ticket that has to wait. Tickets matched at once, or riding a creation already on
   * its way to a server, are never written: the common case costs no disk write.
   */
  private persist(ticket: Ticket): void {
    if (ticket.persisted || !this.deps.store) return;
    ticket.persisted = true;
    this.deps.store.save({ request: ticket.request, createdAt: ticket.createdAt, arrival: ticket.arrival });
  }

  private unpersist(ticket: Ticket): void {
    if (!ticket.persisted) return;
    ticket.persisted = false;
    this.deps.store?.remove(ticket.id);
  }

  /** Restored tickets waiting for their factory's servers to reconnect join it, oldest first. */
  private admitParked(name: string): void {
    const parked = this.parked.get(name);
    const runtime = this.factories.get(name);
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
    } else {
      this.reportPosition(ticket);
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
    const creation = ticket.creationId === undefined ? undefined : this.creations.get(ticket.creationId);
    if (creation) this.leaveCreation(creation, ticket);
    else this.factories.get(ticket.factory)?.withdraw(ticket.id);
    this.deps.observer?.findFinished(ticket.factory, outcome, this.deps.now() - ticket.createdAt);
    if (error) ticket.listener?.fail(error);
    this.drainIfIdle(ticket.factory);
  }

  private releasePlayers(ticket: Ticket): void {
    for (const playerId of ticket.playerIds) {
      if (this.ticketOfPlayer.get(playerId) === ticket.id) this.ticketOfPlayer.delete(playerId);
    }
  }

  /** A ticket got its game: tell the client, and keep the ticket for retries until its TTL. */
  assignTicket(ticket: Ticket, assignment: Assignment): void {
    ticket.state = 'assigned';
    ticket.assignment = assignment;
    this.unpersist(ticket);
    ticket.creationId = undefined;
    this.releasePlayers(ticket);
    const game = this.games.get(assignment.gameId);
    for (const playerId of ticket.playerIds) {
      this.gameOfPlayer.set(playerId, assignment.gameId);
      game?.players.add(playerId);
    }
    this.deps.observer?.findFinished(ticket.factory, 'assigned', this.deps.now() - ticket.createdAt);
    ticket.listener?.update({ kind: 'assigned', assignment });
  }

  // ---------------------------------------------------------------- placement

  /**
   * Places a game for `ticketIds`: a server with a free slot gets a CreateGame order now;
   * otherwise the creation waits in its factory's queue at `priority` (its original one when
   * it is taken back).
   */
  createGame(creation: Creation): void {
    // Older tickets first: a creation's place in line is its oldest ticket's arrival.
    creation.priority ??= Math.min(...creation.ticketIds.map((id) => this.tickets.get(id)!.arrival));
    this.creations.set(creation.requestId, creation);
    for (const ticketId of creation.ticketIds) {
      const ticket = this.tickets.get(ticketId)!;
      ticket.state = 'placing';
      ticket.creationId = creation.requestId;
    }
    this.markRideable(creation);
    if (this.queue.depth(creation.factory) === 0 && this.dispatch(creation)) return;
    this.enqueue(creation);
  }

  /** Sends the order if a slot can be claimed now. */
  private dispatch(creation: Creation): boolean {
    const serverId = this.ledger.claim(creation.factory, this.deps.now());
    if (serverId === undefined) return false;
    const server = this.servers.get(serverId)!;
    const runtime = this.factories.get(creation.factory)!;
    const confirmWithinMs = this.config.placement.createTimeoutMs;
    creation.serverId = serverId;
    creation.dispatchedSeats = creation.seats.length;
    creation.cancelTimeout = this.deps.timers.set(() => {
      this.deps.log.warn({ serverId, requestId: creation.requestId }, 'game server did not confirm a creation in time');
      this.takeBack(creation, 'timeout');
    }, confirmWithinMs);
    server.creations.add(creation.requestId);
    server.channel.send({
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
    this.deps.observer?.placed(creation.factory);
    return true;
  }

  private enqueue(creation: Creation): void {
    creation.queuedAt = this.deps.now();
    creation.priority = this.queue.push(creation.factory, creation.requestId, creation.requestId, creation.priority);
    for (const ticketId of creation.ticketIds) {
      const ticket = this.tickets.get(ticketId)!;
      this.persist(ticket);
      this.reportPosition(ticket);
    }
    this.schedulePositionRefresh();
  }

  /** An in-flight creation failed, timed out or lost its server: its slot is freed and it goes back in line. */
  private takeBack(creation: Creation, cause: 'timeout' | 'failed' | 'disconnected'): void {
    creation.cancelTimeout?.();
    creation.cancelTimeout = undefined;
    const serverId = creation.serverId!;
    creation.serverId = undefined;
    this.servers.get(serverId)?.creations.delete(creation.requestId);
    if (cause !== 'disconnected') {
      this.ledger.release(serverId);
      this.recordFailure(serverId);
    }
    this.deps.observer?.requeued(creation.factory, cause);
    if (creation.ticketIds.length === 0) {
      this.forgetCreation(creation);
    } else {
      this.enqueue(creation);
    }
    this.drainQueue();
  }

  private onGameCreated(server: ConnectedServer, requestId: string, gameId: string): string | undefined {
    const creation = this.creationOn(server, requestId);
    if (!creation) return `unknown request_id "${requestId}"`;
    if (gameId === '' || this.games.has(gameId)) {
      this.takeBack(creation, 'failed');
      return `game_id "${gameId}" is empty or already running`;
    }
    creation.cancelTimeout?.();
    server.creations.delete(requestId);
    server.failures = 0;
    this.ledger.confirm(server.hello.serverId);
    this.starts.record(this.deps.now());
    this.forgetCreation(creation);
    const record: RunningGameRecord = { gameId, serverId: server.hello.serverId, factory: creation.factory, players: new Set() };
    this.games.set(gameId, record);
    server.games.add(gameId);
    const runtime = this.factories.get(creation.factory)!;
    runtime.gameCreated(creation, gameId);
    for (const ticketId of creation.ticketIds) {
      const ticket = this.tickets.get(ticketId);
      if (!ticket) continue;
      const seat = creation.seats.find((s) => s.ticketId === ticketId)!;
      this.assignTicket(ticket, {
        gameId,
        serverId: server.hello.serverId,
        serverEndpoint: server.hello.endpoint,
        factory: creation.factory,
        reservationToken: creation.token,
        created: true,
        map: creation.map,
        region: creation.region,
        team: seat.team,
      });
    }
    runtime.offerSeats();
    return undefined;
  }

  /**
   * Circuit breaker: a server that keeps failing creations gets none for a while (its slots are
   * hidden from the ledger), so its requests go to healthy servers instead of bouncing.
   */
  private recordFailure(serverId: string): void {
    const server = this.servers.get(serverId);
    if (!server || ++server.failures < FAILURES_BEFORE_BACKOFF || server.cancelBackoff) return;
    const backoffMs = Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** (server.failures - FAILURES_BEFORE_BACKOFF));
    this.deps.log.warn({ serverId, failures: server.failures, backoffMs }, 'game server keeps failing creations; backing off');
    this.deps.observer?.serverBackedOff(serverId, backoffMs);
    const now = this.deps.now();
    this.ledger.setCapacity(serverId, { ...server.advertised, maxGames: 0 }, now);
    server.cancelBackoff = this.deps.timers.set(() => {
      server.cancelBackoff = undefined;
      if (this.servers.get(serverId) !== server) return;
      this.ledger.setCapacity(serverId, server.advertised, this.deps.now());
      this.drainQueue();
    }, backoffMs);
  }

  private creationOn(server: ConnectedServer, requestId: string): Creation | undefined {
    return server.creations.has(requestId) ? this.creations.get(requestId) : undefined;
  }

  private forgetCreation(creation: Creation): void {
    this.creations.delete(creation.requestId);
    this.unmarkRideable(creation);
    this.queue.remove(creation.requestId);
  }

  /** A ticket leaves a creation that has not been confirmed (cancelled or expired). */
  private leaveCreation(creation: Creation, ticket: Ticket): void {
    const index = creation.ticketIds.indexOf(ticket.id);
    if (index >= 0) creation.ticketIds.splice(index, 1);
    ticket.creationId = undefined;
    if (creation.serverId !== undefined) return; // in flight: the game still gets created
    const runtime = this.factories.get(creation.factory);
    if (creation.ticketIds.length === 0 || runtime?.strategy === 'competitive') {
      // A competitive game without one of its parties is no longer the game that was formed:
      // the other parties go back to the pool, keeping their wait.
      this.forgetCreation(creation);
      for (const other of creation.ticketIds) {
        const t = this.tickets.get(other);
        if (t) runtime?.admit(t);
      }
    } else {
      for (let i = creation.seats.length - 1; i >= 0; i--) {
        if (creation.seats[i]!.ticketId === ticket.id) creation.seats.splice(i, 1);
      }
      this.markRideable(creation);
    }
  }

  /** Cooperative: a party joins a creation (queued or in flight) made for exactly its query. */
  rideAlong(ticket: Ticket): boolean {
    const key = this.rideKeyOf(ticket.factory, queryKey(ticket.request.matchable));
    const candidates = this.rideable.get(key);
    if (!candidates) return false;
    for (const requestId of candidates) {
      const creation = this.creations.get(requestId)!;
      if (creation.capacity - creation.seats.length < ticket.playerIds.length) continue;
      creation.ticketIds.push(ticket.id);
      for (const playerId of ticket.playerIds) creation.seats.push({ playerId, team: 0, ticketId: ticket.id });
      ticket.state = 'placing';
      ticket.creationId = requestId;
      this.markRideable(creation);
      this.reportPosition(ticket);
      return true;
    }
    return false;
  }

  private rideKeyOf(factory: string, key: string): string {
    return `${factory}\n${key}`;
  }

  private markRideable(creation: Creation): void {
    if (creation.rideKey === undefined) return;
    const key = this.rideKeyOf(creation.factory, creation.rideKey);
    if (creation.seats.length < creation.capacity) {
      let set = this.rideable.get(key);
      if (!set) this.rideable.set(key, (set = new Set()));
      set.add(creation.requestId);
    } else {
      this.unmarkRideable(creation);
    }
  }

  private unmarkRideable(creation: Creation): void {
    if (creation.rideKey === undefined) return;
    const key = this.rideKeyOf(creation.factory, creation.rideKey);
    const set = this.rideable.get(key);
    set?.delete(creation.requestId);
    if (set?.size === 0) this.rideable.delete(key);
  }

  /** New capacity (a server joined, a game ended, a slot came back): serve the queue now. */
  private drainQueue(): void {
    const now = this.deps.now();
    const blocked = new Set<string>();
    const moved = new Set<string>();
    for (;;) {
      const next = this.queue.pop((f) => !blocked.has(f) && this.ledger.canClaim(f, now), now);
      if (!next) break;
      const creation = this.creations.get(next.payload)!;
      creation.priority = next.priority;
      moved.add(creation.factory);
      if (this.dispatch(creation)) {
        this.deps.observer?.dequeued(creation.factory, now - (creation.queuedAt ?? now));
      } else {
        blocked.add(creation.factory);
        this.queue.push(creation.factory, creation.requestId, creation.requestId, creation.priority);
        const at = this.ledger.nextStartAt(creation.factory, now);
        if (at !== undefined) this.deps.timers.set(() => this.drainQueue(), at - now);
      }
    }
    for (const factory of moved) this.reportPositions(factory, POSITION_UPDATE_WINDOW);
  }

  /** Cooperative: seats opened in `factory`; queued parties at the head of the line may take them. */
  matchQueued(factory: string, tryMatch: (ticket: Ticket) => Assignment | undefined): void {
    for (const requestId of this.queue.peek(factory, QUEUED_MATCH_WINDOW)) {
      const creation = this.creations.get(requestId)!;
      for (const ticketId of [...creation.ticketIds]) {
        const ticket = this.tickets.get(ticketId)!;
        const assignment = tryMatch(ticket);
        if (!assignment) continue;
        this.leaveCreation(creation, ticket);
        this.assignTicket(ticket, assignment);
      }
    }
  }

  private reportPosition(ticket: Ticket): void {
    if (ticket.state !== 'placing' || !ticket.listener) {
      if (ticket.state === 'matching') ticket.listener?.update({ kind: 'queued', factory: ticket.factory, position: 0, estimatedWaitMs: 0 });
      return;
    }
    const position = this.queue.position(ticket.creationId!);
    if (position === undefined) return; // on its way to a server: the assignment comes next
    ticket.listener.update({
      kind: 'queued',
      factory: ticket.factory,
      position,
      estimatedWaitMs: this.estimatedWaitMs(ticket.factory, position),
    });
  }

  private reportPositions(factory: string, count: number): void {
    for (const requestId of this.queue.peek(factory, count)) {
      for (const ticketId of this.creations.get(requestId)!.ticketIds) this.reportPosition(this.tickets.get(ticketId)!);
    }
  }

  private schedulePositionRefresh(): void {
    if (this.cancelPositionRefresh) return;
    this.cancelPositionRefresh = this.deps.timers.set(() => {
      this.cancelPositionRefresh = undefined;
      for (const factory of this.factories.names()) this.reportPositions(factory, POSITION_REFRESH_WINDOW);
      if (this.queue.depth() > 0) this.schedulePositionRefresh();
    }, POSITION_REFRESH_MS);
  }

  /** 0 when nothing has started lately: no estimate rather than a made-up one. */
  private estimatedWaitMs(_factory: string, position: number): number {
    return estimateWaitMs(position, this.starts.perSecond(this.deps.now())) ?? 0;
  }

  // ---------------------------------------------------------------- factories

  private instantiate(identity: FactoryIdentity): FactoryRuntime {
    this.deps.log.info({ factory: identity.name }, 'factory instantiated');
    return FactoryRuntime.create(identity, this, this.deps);
  }

  /** A factory no server serves goes away once no ticket waits in it. */
  private drainIfIdle(name: string): void {
    if (this.factories.servers(name).size > 0) return;
    const runtime = this.factories.get(name);
    if (!runtime || runtime.waiting() > 0 || this.queue.depth(name) > 0) return;
    runtime.dispose();
    this.factories.drain(name);
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

  /** The process is going down: from now on, nothing the closing streams do changes stored state. */
  beginShutdown(): void {
    this.stopping = true;
  }

  // ---------------------------------------------------------------- reading

  serverEndpoint(serverId: string): string {
    return this.servers.get(serverId)?.hello.endpoint ?? '';
  }

  gameServer(gameId: string): string | undefined {
    return this.games.get(gameId)?.serverId;
  }

  ticket(ticketId: string): Ticket | undefined {
    return this.tickets.get(ticketId);
  }

  sendToServer(serverId: string, order: Parameters<ServerChannel['send']>[0]): void {
    this.servers.get(serverId)?.channel.send(order);
  }

  /** Runtime of a live factory, for stats. */
  factory(name: string): FactoryRuntime | undefined {
    return this.factories.get(name);
  }

  factoryNames(): string[] {
    return [...this.factories.names()];
  }

  registry(): FactoryRegistry<FactoryRuntime> {
    return this.factories;
  }

  queuedIn(factory: string): number {
    return this.queue.depth(factory);
  }

  /** Gauges for metrics, read at scrape time. */
  snapshot() {
    return {
      servers: this.servers.size,
      factories: this.factories.size,
      games: this.games.size,
      tickets: this.tickets.size,
      queued: this.queue.depth(),
      freeSlots: this.ledger.freeSlots(),
      openGames: [...this.factories.names()].reduce((n, f) => n + this.factories.get(f)!.openGames(), 0),
    };
  }

  /** Matchable attributes as a set, for riders and cooperative creations. */
  static rideKeyFor(matchable: AttributeSet): string {
    return queryKey(matchable);
  }
}

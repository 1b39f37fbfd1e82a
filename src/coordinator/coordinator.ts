import type { Principal } from '../security/tokens/principal.js';
import { inProcessCluster } from '../cluster/in-process/index.js';
import { playersPerGame, type CoordinatorConfig } from '../config/config.js';
import { MatchmakingError, invalidArgument } from '../errors/index.js';
import { FactoryRegistry, type FactoryIdentity } from '../factories/factory-registry.js';
import type { PlacementPort } from '../placement/index.js';
import { InMemoryRatingStore } from '../ratings/index.js';
import { CompetitiveRuntime } from './competitive-runtime.js';
import { CooperativeRuntime } from './cooperative-runtime.js';
import type { CoordinatorCommands } from './edges/commands.js';
import { CoreView } from './edges/core-view.js';
import { EventHub, type CoordinatorEvents } from './edges/events.js';
import type { FactoryDecision, FactoryRuntime } from './factory-runtime.js';
import { GameCreations } from './game-creations.js';
import type { FindRequest, ServerChannel, ServerEvent, ServerHello, TicketListener } from './messages.js';
import type { CoordinatorDeps, CoreDeps, TicketRecord } from './ports.js';
import { GameResults, ladderStanding, ratedLadders, type RatedLadder } from './results/game-results.js';
import { sortRunningGames } from './servers/running-game-check.js';
import { ServerRoster } from './servers/server-roster.js';
import { ParkedTickets, RestoredTickets } from './tickets/restored-tickets.js';
import type { Ticket } from './tickets/ticket.js';
import { TicketBook } from './tickets/ticket-book.js';
import { TicketDesk } from './tickets/ticket-desk.js';

/**
 * The coordinator core. Requests come in (commands; the ticket side is TicketDesk's), factories
 * answer with decisions, and the core applies them to the owners of state: tickets (TicketBook), servers and games
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
  private readonly desk: TicketDesk;
  private readonly ladders: ReadonlyMap<string, RatedLadder>;
  private readonly results: GameResults;
  private stopping = false;

  constructor(
    config: CoordinatorConfig,
    deps: CoordinatorDeps,
    placement: PlacementPort,
    /** Waiting tickets from before a restart: retried with the same id, they keep their place. */
    restored: readonly TicketRecord[] = [],
  ) {
    this.hub = new EventHub(deps.log);
    this.events = this.hub;
    this.ladders = ratedLadders(config.ladders);
    const ratings = deps.ratings ?? new InMemoryRatingStore(ladderStanding(this.ladders));
    this.deps = { ...deps, cluster: deps.cluster ?? inProcessCluster(), events: this.hub, ratings };
    this.registry = new FactoryRegistry(config.templates, (identity) => this.instantiate(identity));
    this.book = new TicketBook(this.deps.cluster.players, deps.log, deps.store);
    this.roster = new ServerRoster(
      this.deps,
      this.deps.cluster.orders,
      { setCapacity: (serverId, capacity) => this.creations.setCapacity(serverId, capacity), recovered: () => this.creations.drain() },
      (factory) => this.registry.get(factory)?.identity.template.ladder,
    );
    this.results = new GameResults(this.deps, this.roster, this.ladders, ratings);
    this.restored = new RestoredTickets(this.deps, config.placement.ticketTtlMs, restored, () => this.stopping);
    this.creations = new GameCreations(config, this.deps, placement, this.book, this.roster, (f) => this.drainIfIdle(f), (ticket) =>
      this.restored.size === 0 ? 0 : this.restored.aheadOf((r) => this.desk.factoryOf(r), ticket.factory, ticket.arrival),
    );
    this.desk = new TicketDesk(config, this.deps, this.registry, this.book, this.roster, this.creations, this.restored, this.parked, placement, (f) =>
      this.drainIfIdle(f),
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
      this.desk.admitParked(name);
      this.desk.offerSeats(name);
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
          if (this.book.get(ticketId)?.state.kind === 'placing') this.desk.assign(ticketId, assignment);
        }
        this.desk.offerSeats(creation.factory);
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
      case 'gameResult':
        return this.results.report(serverId, event.result);
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
        if (problem === undefined) this.desk.offerSeats(game.factory);
        return problem;
      }
      case 'gameOpened':
      case 'gameClosed':
        runtime.setOpen(game.gameId, event.kind === 'gameOpened');
        if (event.kind === 'gameOpened') this.desk.offerSeats(game.factory);
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
    this.desk.offerSeats(game.factory);
  }

  // ---------------------------------------------------------------- tickets (TicketDesk)

  find(request: FindRequest, listener: TicketListener): void {
    this.desk.find(request, listener);
  }

  cancel(ticketId: string, caller?: Principal): boolean {
    return this.desk.cancel(ticketId, caller);
  }

  abandon(ticketId: string, listener: TicketListener): void {
    this.desk.abandon(ticketId, listener);
  }

  private applyFactoryDecision(decision: FactoryDecision): void {
    const runtime = this.registry.get(decision.factory);
    if (decision.kind === 'reservationsLapsed') {
      for (const r of decision.lapsed) this.roster.unseat(r.gameId, r.playerIds);
      this.desk.offerSeats(decision.factory);
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

  // ---------------------------------------------------------------- factories

  private instantiate(identity: FactoryIdentity): FactoryRuntime {
    this.deps.log.info({ factory: identity.name }, 'factory instantiated');
    const strategy = identity.template.strategy;
    const decide = (decision: FactoryDecision) => this.applyFactoryDecision(decision);
    const ladder = identity.template.ladder === undefined ? undefined : this.ladders.get(identity.template.ladder);
    return strategy.kind === 'cooperative'
      ? new CooperativeRuntime(identity, this.deps, decide, strategy.settings)
      : new CompetitiveRuntime(identity, this.deps, decide, strategy.settings, ladder);
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
    this.desk.beginShutdown();
    this.book.beginShutdown();
  }
}

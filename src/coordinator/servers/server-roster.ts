import type { OrderDelivery } from '../../cluster/ports.js';
import type { ServerCapacity } from '../../placement/index.js';
import type { ServerChannel, ServerHello, ServerOrder } from '../messages.js';
import type { CoreDeps } from '../ports.js';
import { FinishedGames, type RankedGame } from './finished-games.js';
import { ServerBreakers } from './server-breakers.js';

export interface ConnectedServer {
  readonly hello: ServerHello;
  readonly channel: ServerChannel;
  readonly factories: readonly string[];
  readonly games: Set<string>;
}

export interface RunningGameRecord {
  readonly gameId: string;
  readonly serverId: string;
  readonly factory: string;
  /** Joined players and players holding a reserved seat. */
  readonly players: Set<string>;
  /** Ranked games only (issue 12): the factory's ladder and every player ever seated, for its result. */
  readonly ranked?: { readonly ladder: string; readonly seated: Set<string> };
}

/** What the roster's health judgment asks of placement. */
export interface HealthEffects {
  /** The capacity placement should see for a server (0 games while it rests). */
  setCapacity(serverId: string, capacity: ServerCapacity): void;
  /** A server came back from a rest: its slots are free again. */
  recovered(): void;
}

/**
 * The one owner of connected game servers (issue 10): each server's link, advertised capacity,
 * games and health (the circuit breaker), and which game each player is in. Orders to a server
 * go through the OrderDelivery port, so in a cluster they reach the node holding its stream.
 */
export class ServerRoster {
  private readonly servers = new Map<string, ConnectedServer>();
  private readonly games = new Map<string, RunningGameRecord>();
  private readonly gameOfPlayer = new Map<string, string>();
  private readonly sinks = new Map<string, (order: ServerOrder) => void>();
  private readonly health: ServerBreakers;
  private readonly finished = new FinishedGames();
  private orderSeq = 0;

  constructor(
    private readonly deps: CoreDeps,
    private readonly orders: OrderDelivery,
    effects: HealthEffects,
    /** The ladder a factory's games are rated on, if any: their results are awaited. */
    private readonly ladderOf: (factory: string) => string | undefined = () => undefined,
  ) {
    this.health = new ServerBreakers(deps, (id, c) => effects.setCapacity(id, c), () => effects.recovered());
  }

  get size(): number {
    return this.servers.size;
  }

  get gameCount(): number {
    return this.games.size;
  }

  get(serverId: string): ConnectedServer | undefined {
    return this.servers.get(serverId);
  }

  all(): IterableIterator<ConnectedServer> {
    return this.servers.values();
  }

  /** Adds a server that said hello (the previous connection with its id must be removed first). */
  connect(hello: ServerHello, channel: ServerChannel, factories: readonly string[]): ConnectedServer {
    const server: ConnectedServer = { hello, channel, factories, games: new Set() };
    this.servers.set(hello.serverId, server);
    const sink = (order: ServerOrder) => channel.send(order);
    this.sinks.set(hello.serverId, sink);
    this.background(this.orders.attach(hello.serverId, sink));
    this.health.add(hello.serverId, hello.capacity);
    return server;
  }

  /** Removes the server; returns the games that ended with it. */
  remove(serverId: string): RunningGameRecord[] {
    const server = this.servers.get(serverId);
    if (!server) return [];
    this.servers.delete(serverId);
    const sink = this.sinks.get(serverId)!;
    this.sinks.delete(serverId);
    this.background(this.orders.detach(serverId, sink));
    this.health.remove(serverId);
    return [...server.games].map((gameId) => this.endGame(gameId)!);
  }

  endpoint(serverId: string): string | undefined {
    return this.servers.get(serverId)?.hello.endpoint;
  }

  /**
   * Sends an order to the server wherever its stream is. `orderId` makes a repeat harmless;
   * orders that are not repeated (rejections) get a fresh one.
   */
  send(serverId: string, order: ServerOrder, orderId = `${serverId}#${++this.orderSeq}`): void {
    const outcome = this.orders.deliver(serverId, { orderId, order });
    if (outcome instanceof Promise) {
      outcome.catch((error: unknown) => this.deps.log.warn({ err: error, serverId, order: order.kind }, 'order delivery failed'));
    }
  }

  // ---------------------------------------------------------------- games and players

  game(gameId: string): RunningGameRecord | undefined {
    return this.games.get(gameId);
  }

  /** A game started on `serverId`; false when the id is empty, taken, or the server is gone. */
  addGame(serverId: string, gameId: string, factory: string, playerIds: readonly string[] = []): boolean {
    const server = this.servers.get(serverId);
    if (!server || gameId === '' || this.games.has(gameId)) return false;
    const ladder = this.ladderOf(factory);
    const ranked = ladder === undefined ? undefined : { ladder, seated: new Set(playerIds) };
    this.games.set(gameId, { gameId, serverId, factory, players: new Set(playerIds), ...(ranked && { ranked }) });
    server.games.add(gameId);
    for (const playerId of playerIds) this.gameOfPlayer.set(playerId, gameId);
    return true;
  }

  endGame(gameId: string): RunningGameRecord | undefined {
    const game = this.games.get(gameId);
    if (!game) return undefined;
    this.games.delete(gameId);
    this.servers.get(game.serverId)?.games.delete(gameId);
    for (const playerId of game.players) {
      if (this.gameOfPlayer.get(playerId) === gameId) this.gameOfPlayer.delete(playerId);
    }
    const ranked = rankedGame(game);
    if (ranked) this.finished.ended(ranked, this.deps.now());
    return game;
  }

  /** A ranked game a result may be reported for: running, or ended within RESULT_RETENTION_MS. */
  rankedGame(gameId: string): RankedGame | undefined {
    const running = this.games.get(gameId);
    return running ? rankedGame(running) : this.finished.get(gameId, this.deps.now());
  }

  /** The game's result is in: an ended game is forgotten now rather than at its retention's end. */
  resultIn(gameId: string): void {
    this.finished.forget(gameId);
  }

  gameOf(playerId: string): string | undefined {
    return this.gameOfPlayer.get(playerId);
  }

  /** Players hold seats in the game (assigned, or joined). */
  seat(gameId: string, playerIds: readonly string[]): void {
    const game = this.games.get(gameId);
    for (const playerId of playerIds) {
      this.gameOfPlayer.set(playerId, gameId);
      game?.players.add(playerId);
      game?.ranked?.seated.add(playerId);
    }
  }

  /** Players left the game, or their reserved seats lapsed. */
  unseat(gameId: string, playerIds: readonly string[]): void {
    const game = this.games.get(gameId);
    for (const playerId of playerIds) {
      game?.players.delete(playerId);
      if (this.gameOfPlayer.get(playerId) === gameId) this.gameOfPlayer.delete(playerId);
    }
  }

  // ---------------------------------------------------------------- health

  advertised(serverId: string): ServerCapacity | undefined {
    return this.health.advertised(serverId);
  }

  resting(serverId: string): boolean {
    return this.health.resting(serverId);
  }

  capacityChanged(serverId: string, capacity: ServerCapacity): void {
    this.health.advertise(serverId, capacity);
  }

  creationSucceeded(serverId: string): void {
    this.health.succeeded(serverId);
  }

  creationFailed(serverId: string): void {
    this.health.failed(serverId);
  }

  private background(value: unknown): void {
    if (value instanceof Promise) value.catch((error: unknown) => this.deps.log.warn({ err: error }, 'order delivery port failed'));
  }
}

function rankedGame(game: RunningGameRecord): RankedGame | undefined {
  if (!game.ranked) return undefined;
  return { gameId: game.gameId, serverId: game.serverId, factory: game.factory, ladder: game.ranked.ladder, players: game.ranked.seated };
}

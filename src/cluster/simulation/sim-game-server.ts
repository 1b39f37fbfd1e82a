import type { AttributeSet } from '../../attributes/attribute-value.js';
import type { ServerChannel, ServerEvent, ServerHello, ServerOrder } from '../../coordinator/messages.js';
import type { ClusterNode } from '../node/cluster-node.js';
import type { SimChecks } from './sim-checks.js';
import type { SimProcess, SimStream, SimWorld } from './world.js';

/** Games last this long to twice as long: longer than any pause the schedules make, shorter than a schedule. */
const GAME_MIN_MS = 8_000;

/** How long a new game holds the seats of players who have not come (the SDK holds a reservation until its game ends or it lapses). */
const CREATED_SEATS_HELD_MS = 30_000;

interface Game {
  readonly gameId: string;
  readonly factory: string;
  readonly shard: number;
  readonly requestId: string;
  readonly matchable: AttributeSet;
  readonly startedAt: number;
  /** Seats: reserved (joined false) or taken. */
  readonly seats: Map<string, { joined: boolean }>;
  /** Created on an order not answered yet (listed as pending in a hello). */
  answered: boolean;
}

interface Link {
  readonly node: ClusterNode;
  readonly stream: SimStream;
  lastCapacity: number;
}

/**
 * A game server as the SDK makes one, in the simulated world: it links to the owner of every shard
 * it hosts (one stream per shard, found by asking any node), re-announces that shard's games (with
 * their request ids and every seat it holds) and the orders it has not answered on each new link,
 * tells each link its free slots, and is the one ledger of its slots: it refuses a creation it has
 * no slot for.
 */
export class SimGameServer {
  readonly process: SimProcess;
  private readonly games = new Map<string, Game>();
  private readonly links = new Map<number, Link>();
  private readonly byRequest = new Map<string, Game>();
  private gameCount = 0;

  constructor(
    private readonly world: SimWorld,
    readonly serverId: string,
    readonly maxGames: number,
    /** The factories it hosts, by shard. */
    private readonly shards: ReadonlyMap<number, readonly string[]>,
    private readonly nodes: () => readonly ClusterNode[],
    private readonly processOf: (node: ClusterNode) => SimProcess,
    private readonly maxPlayersOf: (factory: string) => number,
    private readonly checks: SimChecks,
  ) {
    this.process = world.process(serverId);
  }

  start(): void {
    const maintain = () => {
      for (const shard of this.shards.keys()) this.maintain(shard);
      this.world.after(this.process, 200, maintain);
    };
    maintain();
  }

  /** A client arrives with its assignment. */
  join(gameId: string, playerId: string): void {
    const game = this.games.get(gameId);
    const seat = game?.seats.get(playerId);
    if (!game || !seat) return this.checks.joinRefused(this.serverId, gameId, playerId);
    if (seat.joined) return;
    seat.joined = true;
    this.event(game.shard, { kind: 'playerJoined', gameId, playerId });
  }

  get gamesNow(): number {
    return this.games.size;
  }

  /** Asks a node who owns the shard, and links there when it is not the owner linked now. */
  private maintain(shard: number): void {
    const live = this.nodes();
    if (live.length === 0) return;
    const asked = live[Math.floor(this.world.random() * live.length)]!;
    this.world.send(this.process, this.processOf(asked), () => {
      const owner = asked.ownerOf(shard);
      this.world.send(this.processOf(asked), this.process, () => {
        const link = this.links.get(shard);
        if (link?.stream.isOpen && link.node.nodeId === owner) return;
        const target = this.nodes().find((n) => n.nodeId === owner);
        if (!target) return;
        if (link) link.stream.close(this.process, 'moving to the shard\'s new owner');
        this.links.delete(shard);
        this.open(shard, target);
      });
    });
  }

  private open(shard: number, node: ClusterNode): void {
    const nodeProcess = this.processOf(node);
    const stream = this.world.stream(this.process, nodeProcess);
    const link: Link = { node, stream, lastCapacity: this.capacityFor(shard) };
    this.links.set(shard, link);
    const hello = this.hello(shard, link.lastCapacity);
    const channel: ServerChannel = {
      send: (order) => stream.send(nodeProcess, () => this.order(shard, link, order)),
      close: (error) => stream.close(nodeProcess, error.message),
    };
    stream.onClose(this.process, () => {
      if (this.links.get(shard) === link) this.links.delete(shard);
    });
    stream.onClose(nodeProcess, () => node.unlink(shard, this.serverId, channel));
    stream.send(this.process, () => {
      try {
        node.link(shard, hello, channel);
      } catch (error) {
        stream.close(nodeProcess, (error as Error).message);
      }
    });
    // What the hello announced as unanswered is answered by the hello itself.
    for (const game of this.games.values()) if (game.shard === shard) game.answered = true;
  }

  private hello(shard: number, maxGames: number): ServerHello {
    const games = [...this.games.values()].filter((g) => g.shard === shard);
    return {
      serverId: this.serverId,
      endpoint: `${this.serverId}:7777`,
      attributes: new Map(),
      templates: [],
      capacity: { maxGames, maxStartsPerSecond: 0 },
      runningGames: games.map((g) => ({
        gameId: g.gameId,
        factory: g.factory,
        requestId: g.requestId,
        matchable: g.matchable,
        playerIds: [...g.seats.keys()],
        open: true,
        startedAt: g.startedAt,
      })),
      pendingCreations: [],
    };
  }

  private order(shard: number, link: Link, order: ServerOrder): void {
    if (this.links.get(shard) !== link) return; // a link it has left: a stale owner's order
    if (order.kind === 'createGame') return this.create(shard, order);
    if (order.kind === 'reserveSeats') {
      const game = this.games.get(order.gameId);
      if (!game) return;
      for (const playerId of order.playerIds) {
        if (game.seats.has(playerId)) continue;
        game.seats.set(playerId, { joined: false });
        this.checks.seat(this.serverId, game.gameId, playerId, game.seats.size, this.maxPlayersOf(game.factory));
      }
      this.world.after(this.process, order.expiresInMs, () => this.lapse(game, order.playerIds));
    }
  }

  private create(shard: number, order: Extract<ServerOrder, { kind: 'createGame' }>): void {
    const again = this.byRequest.get(order.requestId);
    if (again) return this.answer(again);
    if (this.games.size >= this.maxGames) {
      return this.event(shard, { kind: 'gameCreationFailed', requestId: order.requestId, reason: 'no free slot', noFreeSlot: true });
    }
    const game: Game = {
      gameId: `${this.serverId}.g${++this.gameCount}`,
      factory: order.factory,
      shard,
      requestId: order.requestId,
      matchable: order.matchable,
      startedAt: this.world.now,
      seats: new Map(),
      answered: false,
    };
    this.games.set(game.gameId, game);
    this.byRequest.set(order.requestId, game);
    this.checks.game(this.serverId, this.games.size, this.maxGames);
    for (const playerId of order.playerIds) {
      game.seats.set(playerId, { joined: false });
      this.checks.seat(this.serverId, game.gameId, playerId, game.seats.size, this.maxPlayersOf(game.factory));
    }
    this.world.after(this.process, 1 + Math.floor(this.world.random() * 40), () => this.answer(game));
    this.world.after(this.process, GAME_MIN_MS + Math.floor(this.world.random() * GAME_MIN_MS), () => this.end(game));
    this.world.after(this.process, CREATED_SEATS_HELD_MS, () => this.lapse(game, order.playerIds));
    this.capacityChanged();
  }

  private answer(game: Game): void {
    if (game.answered || !this.games.has(game.gameId)) return;
    game.answered = true;
    this.event(game.shard, { kind: 'gameCreated', requestId: game.requestId, gameId: game.gameId });
  }

  /** Reserved seats nobody took lapse. */
  private lapse(game: Game, playerIds: readonly string[]): void {
    for (const playerId of playerIds) {
      if (game.seats.get(playerId)?.joined === false) {
        game.seats.delete(playerId);
        this.checks.seatFreed(this.serverId, game.gameId, playerId);
      }
    }
  }

  private end(game: Game): void {
    if (!this.games.delete(game.gameId)) return;
    for (const playerId of game.seats.keys()) this.checks.seatFreed(this.serverId, game.gameId, playerId);
    this.event(game.shard, { kind: 'gameEnded', gameId: game.gameId });
    this.capacityChanged();
  }

  private event(shard: number, event: ServerEvent): void {
    const link = this.links.get(shard);
    if (!link) return; // said again by the next hello, which lists what runs
    link.stream.send(this.process, () => link.node.serverEvent(shard, this.serverId, event));
  }

  private capacityFor(shard: number): number {
    let own = 0;
    for (const game of this.games.values()) if (game.shard === shard) own++;
    return own + Math.max(0, this.maxGames - this.games.size);
  }

  private capacityChanged(): void {
    for (const [shard, link] of this.links) {
      const maxGames = this.capacityFor(shard);
      if (maxGames === link.lastCapacity) continue;
      link.lastCapacity = maxGames;
      this.event(shard, { kind: 'capacityChanged', capacity: { maxGames, maxStartsPerSecond: 0 } });
    }
  }
}

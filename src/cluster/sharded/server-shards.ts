import type { AttributeSet } from '../../attributes/attribute-value.js';
import type { RunningGame, ServerCapacity, ServerEvent, ServerHello, ServerOrder } from '../../coordinator/messages.js';
import { grantSlots } from '../../placement/slot-grants.js';

/** Game ids remembered after their game ended, for the result that follows. */
const ENDED_KEPT = 1024;

/** A running game as the server would re-announce it (its players in, not the seats held for others). */
interface MirroredGame {
  readonly gameId: string;
  readonly factory: string;
  readonly requestId?: string;
  matchable: AttributeSet;
  readonly playerIds: Set<string>;
  open: boolean;
  readonly startedAt: number;
}

/**
 * One game server's connection, as the shards of factories see it. The server hosts factories of
 * many shards, each run by its own core (perhaps on another node): each shard is told of the
 * server with the slots granted to it (src/placement/slot-grants.ts, so no slot is promised
 * twice) and only its own running games, and each of the server's events goes to the shard it is
 * about: a creation's answer to the shard that ordered it, a game's news to the shard whose game
 * it is. Pure; the gateway calls `ordered` for every order it hands the server.
 */
export class ServerShards {
  private readonly byRequest = new Map<string, number>();
  private readonly byGame = new Map<string, number>();
  /** Ended games, oldest first, kept for the result that follows. */
  private readonly ended = new Map<string, number>();
  private capacity: ServerCapacity;
  private grants: ReadonlyMap<number, number>;
  /**
   * The server's running games as its events told them, so a shard whose owner changed is told
   * of the server again (a hello with that shard's games) without closing the server's stream.
   */
  private readonly games = new Map<string, MirroredGame>();
  /** CreateGame orders not answered yet: what the game will be. */
  private readonly creating = new Map<string, { readonly factory: string; readonly matchable: AttributeSet }>();

  constructor(
    private readonly hello: ServerHello,
    /** The shards with a factory this server can host, ascending. */
    readonly shards: readonly number[],
    private readonly shardOf: (factory: string) => number,
    private readonly now: () => number = Date.now,
  ) {
    this.capacity = hello.capacity;
    for (const game of hello.runningGames) {
      this.byGame.set(game.gameId, shardOf(game.factory));
      this.games.set(game.gameId, { ...game, playerIds: new Set(game.playerIds) });
    }
    this.grants = this.grant();
  }

  /** The hello each shard is sent: its slots as capacity, its running games. */
  hellos(): Map<number, ServerHello> {
    return new Map(this.shards.map((shard) => [shard, this.helloOf(shard)]));
  }

  /** The hello one shard is sent now: its slots, and its games as the server's events left them. */
  helloOf(shard: number): ServerHello {
    const runningGames: RunningGame[] = [];
    for (const game of this.games.values()) {
      if (this.shardOf(game.factory) !== shard) continue;
      runningGames.push({ ...game, playerIds: [...game.playerIds] });
    }
    return { ...this.hello, capacity: this.capacityOf(shard), runningGames };
  }

  /** Slots of one shard now. */
  capacityOf(shard: number): ServerCapacity {
    const share = this.shards.length === 0 ? 0 : 1 / this.shards.length;
    return {
      maxGames: this.grants.get(shard) ?? 0,
      // A start rate is split evenly (0 = unlimited stays unlimited); at least one start a second.
      maxStartsPerSecond: this.capacity.maxStartsPerSecond === 0 ? 0 : Math.max(1, Math.floor(this.capacity.maxStartsPerSecond * share)),
    };
  }

  /** An order a shard sent the server: its creation's answer and its game's news go back to that shard. */
  ordered(shard: number, order: ServerOrder): void {
    if (order.kind === 'createGame') {
      this.byRequest.set(order.requestId, shard);
      this.creating.set(order.requestId, { factory: order.factory, matchable: order.matchable });
    } else if (order.kind === 'reserveSeats') this.byGame.set(order.gameId, shard);
  }

  /**
   * Where each of the server's events goes: [shard, event] pairs. A new capacity is granted again
   * and each shard told its own; an event about a game or creation no shard ordered goes to the
   * first shard, whose core refuses it to the server as one node would.
   */
  route(event: ServerEvent): [number, ServerEvent][] {
    const first = this.shards[0];
    const one = (shard: number | undefined): [number, ServerEvent][] => {
      const target = shard ?? first;
      return target === undefined ? [] : [[target, event]];
    };
    this.mirror(event);
    switch (event.kind) {
      case 'gameCreated': {
        const shard = this.byRequest.get(event.requestId);
        this.byRequest.delete(event.requestId);
        if (shard !== undefined) this.byGame.set(event.gameId, shard);
        return one(shard);
      }
      case 'gameCreationFailed': {
        const shard = this.byRequest.get(event.requestId);
        this.byRequest.delete(event.requestId);
        return one(shard);
      }
      case 'capacityChanged': {
        this.capacity = event.capacity;
        this.grants = this.grant();
        return this.shards.map((shard) => [shard, { kind: 'capacityChanged', capacity: this.capacityOf(shard) }]);
      }
      case 'gameResult':
        return one(this.byGame.get(event.result.gameId) ?? this.ended.get(event.result.gameId));
      case 'gameEnded': {
        const shard = this.byGame.get(event.gameId);
        if (shard !== undefined) this.remember(event.gameId, shard);
        return one(shard);
      }
      default:
        return one(this.byGame.get(event.gameId));
    }
  }

  /** Keeps the running games as the server reports them. */
  private mirror(event: ServerEvent): void {
    const game = 'gameId' in event ? this.games.get(event.gameId) : undefined;
    switch (event.kind) {
      case 'gameCreated': {
        const order = this.creating.get(event.requestId);
        if (order) this.games.set(event.gameId, { gameId: event.gameId, factory: order.factory, requestId: event.requestId, matchable: order.matchable, playerIds: new Set(), open: true, startedAt: this.now() });
        return void this.creating.delete(event.requestId);
      }
      case 'gameCreationFailed':
        return void this.creating.delete(event.requestId);
      case 'playerJoined':
        return void game?.playerIds.add(event.playerId);
      case 'playerLeft':
        return void game?.playerIds.delete(event.playerId);
      case 'gameOpened':
      case 'gameClosed':
        if (game) game.open = event.kind === 'gameOpened';
        return;
      case 'gameAttributesChanged':
        if (game) game.matchable = event.matchable;
        return;
      case 'gameEnded':
        return void this.games.delete(event.gameId);
      default:
        return;
    }
  }

  /** An ended game is kept a while for its result, then forgotten. */
  private remember(gameId: string, shard: number): void {
    this.byGame.delete(gameId);
    this.ended.set(gameId, shard);
    if (this.ended.size > ENDED_KEPT) this.ended.delete(this.ended.keys().next().value!);
  }

  /** The server's slots apportioned to its shards: max-min fair, each shard's running games kept. */
  private grant(): ReadonlyMap<number, number> {
    const used = new Map<number, number>();
    for (const shard of this.byGame.values()) used.set(shard, (used.get(shard) ?? 0) + 1);
    const { grants } = grantSlots([{ serverId: this.hello.serverId, maxGames: this.capacity.maxGames, shards: this.shards, used }], new Map());
    return grants.get(this.hello.serverId) ?? new Map();
  }
}

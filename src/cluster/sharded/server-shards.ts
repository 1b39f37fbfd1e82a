import type { RunningGame, ServerCapacity, ServerEvent, ServerHello, ServerOrder } from '../../coordinator/messages.js';
import { grantSlots } from '../../placement/slot-grants.js';

/** Game ids remembered after their game ended, for the result that follows. */
const ENDED_KEPT = 1024;

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

  constructor(
    private readonly hello: ServerHello,
    /** The shards with a factory this server can host, ascending. */
    readonly shards: readonly number[],
    private readonly shardOf: (factory: string) => number,
  ) {
    this.capacity = hello.capacity;
    for (const game of hello.runningGames) this.byGame.set(game.gameId, shardOf(game.factory));
    this.grants = this.grant();
  }

  /** The hello each shard is sent: its slots as capacity, its running games. */
  hellos(): Map<number, ServerHello> {
    const byShard = new Map<number, RunningGame[]>(this.shards.map((s) => [s, []]));
    for (const game of this.hello.runningGames) byShard.get(this.shardOf(game.factory))?.push(game);
    return new Map(this.shards.map((shard) => [shard, { ...this.hello, capacity: this.capacityOf(shard), runningGames: byShard.get(shard)! }]));
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
    if (order.kind === 'createGame') this.byRequest.set(order.requestId, shard);
    else if (order.kind === 'reserveSeats') this.byGame.set(order.gameId, shard);
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

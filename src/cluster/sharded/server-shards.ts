import type { AttributeSet } from '../../attributes/attribute-value.js';
import type { RunningGame, ServerCapacity, ServerEvent, ServerHello, ServerOrder } from '../../coordinator/messages.js';
import { apportionSlots, shardOfId, type ServerSlotsNow, type ShardDemand } from '../../sharding/index.js';

/** Game ids remembered after their game ended, for the result that follows. */
const ENDED_KEPT = 1024;
/** A creation the server never answered stops holding its slot after this many times its confirm window (the core took it back long before). */
const STALE_CREATION_WINDOWS = 3;
/** ... and never sooner than this. */
const STALE_CREATION_MIN_MS = 30_000;
/**
 * A created game's players who have not joined yet are re-announced as its players this long
 * (ReserveSeats carries its own expiry): beyond a cooperative reservation's default (10 s).
 */
const CREATED_SEATS_KEPT_MS = 30_000;

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
 * server with the slots granted to it (src/sharding/slot-apportion.ts, by demand, re-granted by
 * the node's slow loop) and only its own running games, and each of the server's events goes to
 * the shard it is about: a creation's answer to the shard that ordered it, a game's news to the
 * shard whose game it is. Pure; the gateway calls `ordered` for every order it hands the server.
 *
 * This is the one ledger of the server's slots (every order to the server passes here): a
 * CreateGame beyond its shard's grant now, or beyond the server's slots, is not sent but answered
 * to its shard as a failed creation (its core re-queues the request). A shard's core may have
 * sent orders under a grant that was lowered since; those are the ones refused, so no slot is
 * ever promised to two shards.
 */
export class ServerShards {
  private readonly byRequest = new Map<string, number>();
  private readonly byGame = new Map<string, number>();
  /** Ended games, oldest first, kept for the result that follows. */
  private readonly ended = new Map<string, number>();
  private capacity: ServerCapacity;
  /** The grants handed out last (what each shard's core was told). */
  private grants: ReadonlyMap<number, number>;
  /** Games running or starting per shard, as the orders and events passing here tell them. */
  private readonly used = new Map<number, number>();
  /**
   * The server's running games as its events told them, so a shard whose owner changed is told
   * of the server again (a hello with that shard's games) without closing the server's stream.
   */
  private readonly games = new Map<string, MirroredGame>();
  /** CreateGame orders not answered yet: what the game will be. */
  private readonly creating = new Map<
    string,
    { readonly factory: string; readonly matchable: AttributeSet; readonly shard: number; readonly staleAt: number; readonly playerIds: readonly string[] }
  >();
  /**
   * CreateGame orders the server said at hello it is still making, ordered through another node
   * (this one never saw them): their shard is read from the id. Each shard's hello lists its own,
   * so its owner waits for their answers, and an answer goes to the shard that ordered it.
   */
  private readonly announced = new Map<string, { readonly shard: number; readonly staleAt: number }>();
  /** Games of announced creations, by shard: no order here says their factory, but their slot is counted. */
  private readonly announcedGames = new Map<string, number>();
  /**
   * Seats ordered (a CreateGame's, a ReserveSeats') whose players have not joined yet, by game,
   * each until its reservation ends. A shard's next owner is told of them as the game's players:
   * the server holds them, and a game re-announced without them had its seats offered twice.
   */
  private readonly reserved = new Map<string, Map<string, number>>();

  constructor(
    private readonly hello: ServerHello,
    /** The shards with a factory this server can host, ascending (a reload may add more: `host`). */
    private hosted: readonly number[],
    private readonly shardOf: (factory: string) => number,
    private readonly now: () => number = Date.now,
    /** Each shard's demand now (the node's latest read); absent: the slots are split evenly. */
    private readonly demand: () => ReadonlyMap<number, ShardDemand> = () => new Map(),
  ) {
    this.capacity = hello.capacity;
    for (const game of hello.runningGames) {
      if (this.games.has(game.gameId)) continue;
      this.byGame.set(game.gameId, shardOf(game.factory));
      this.games.set(game.gameId, { ...game, playerIds: new Set(game.playerIds) });
      this.count(shardOf(game.factory), 1);
    }
    for (const requestId of hello.pendingCreations ?? []) {
      const shard = this.hostedShardOf(requestId);
      if (shard === undefined || this.announced.has(requestId)) continue;
      this.announced.set(requestId, { shard, staleAt: now() + STALE_CREATION_MIN_MS });
      this.byRequest.set(requestId, shard);
      this.count(shard, 1);
    }
    this.grants = new Map();
    this.grants = this.grant();
  }

  get serverId(): string {
    return this.hello.serverId;
  }

  get shards(): readonly number[] {
    return this.hosted;
  }

  /**
   * A reload made factories this server can host in shards it did not host: from now on it hosts
   * them too, with no slot until the grant loop's next round apportions the server again (a slot
   * taken from another shard only after its owner was told, as always).
   */
  host(more: readonly number[]): number[] {
    const added = more.filter((shard) => !this.hosted.includes(shard));
    if (added.length > 0) this.hosted = [...this.hosted, ...added].sort((a, b) => a - b);
    return added;
  }

  /** What the grant loop reads of this server (stale creations stop holding slots here). */
  slots(): ServerSlotsNow {
    const now = this.now();
    for (const [requestId, creation] of this.creating) {
      if (creation.staleAt > now) continue;
      this.creating.delete(requestId);
      this.count(creation.shard, -1);
    }
    for (const [requestId, creation] of this.announced) {
      if (creation.staleAt > now) continue;
      this.announced.delete(requestId);
      this.byRequest.delete(requestId);
      this.count(creation.shard, -1);
    }
    return { serverId: this.hello.serverId, maxGames: this.capacity.maxGames, shards: this.shards, used: this.used, granted: this.grants };
  }

  /** The grant loop's new grants for this server: a capacityChanged for each shard whose grant moved. */
  regranted(grants: ReadonlyMap<number, number> | undefined): [number, ServerEvent][] {
    if (grants === undefined) return [];
    const before = this.grants;
    this.grants = grants;
    return this.shards.flatMap((shard): [number, ServerEvent][] => ((before.get(shard) ?? 0) === (grants.get(shard) ?? 0) ? [] : [[shard, { kind: 'capacityChanged', capacity: this.capacityOf(shard) }]]));
  }

  /** The hello each shard is sent: its slots as capacity, its running games. */
  hellos(): Map<number, ServerHello> {
    return new Map(this.shards.map((shard) => [shard, this.helloOf(shard)]));
  }

  /** The hello one shard is sent now: its slots, its games as the server's events left them, and the creations it has not answered. */
  helloOf(shard: number): ServerHello {
    const runningGames: RunningGame[] = [];
    for (const game of this.games.values()) {
      if (this.shardOf(game.factory) !== shard) continue;
      runningGames.push({ ...game, playerIds: this.playersOf(game) });
    }
    const pendingCreations: string[] = [];
    for (const creations of [this.creating, this.announced]) {
      for (const [requestId, creation] of creations) if (creation.shard === shard) pendingCreations.push(requestId);
    }
    return { ...this.hello, capacity: this.capacityOf(shard), runningGames, pendingCreations };
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

  /**
   * An order a shard sent the server: its creation's answer and its game's news go back to that
   * shard. A creation beyond the shard's grant now (lowered since its core decided), or beyond the
   * server's slots, is refused: the returned event goes back to the shard, the order not to the server.
   */
  ordered(shard: number, order: ServerOrder): ServerEvent | undefined {
    if (order.kind === 'createGame') {
      if (this.creating.has(order.requestId)) return undefined; // a resend: its slot is counted
      const mine = this.used.get(shard) ?? 0;
      let all = 0;
      for (const n of this.used.values()) all += n;
      if (mine + 1 > (this.grants.get(shard) ?? 0) || all + 1 > this.capacity.maxGames) {
        return { kind: 'gameCreationFailed', requestId: order.requestId, reason: `no slot of server ${this.hello.serverId} is granted to this shard now (grants moved): not sent, re-queue` };
      }
      this.byRequest.set(order.requestId, shard);
      const staleAfter = Math.max(STALE_CREATION_MIN_MS, STALE_CREATION_WINDOWS * order.confirmWithinMs);
      this.creating.set(order.requestId, { factory: order.factory, matchable: order.matchable, shard, staleAt: this.now() + staleAfter, playerIds: order.playerIds });
      this.count(shard, 1);
    } else if (order.kind === 'reserveSeats') {
      this.byGame.set(order.gameId, shard);
      if (this.games.has(order.gameId)) this.reserve(order.gameId, order.playerIds, order.expiresInMs);
    }
    return undefined;
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
        const shard = this.byRequest.get(event.requestId) ?? this.hostedShardOf(event.requestId);
        this.byRequest.delete(event.requestId);
        if (shard !== undefined) this.byGame.set(event.gameId, shard);
        return one(shard);
      }
      case 'gameCreationFailed': {
        const shard = this.byRequest.get(event.requestId) ?? this.hostedShardOf(event.requestId);
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

  /** The shard an answer's id names (an order made through another node), if this server hosts it. */
  private hostedShardOf(requestId: string): number | undefined {
    const shard = shardOfId(requestId);
    return shard !== undefined && this.shards.includes(shard) ? shard : undefined;
  }

  /** Keeps the running games as the server reports them. */
  private mirror(event: ServerEvent): void {
    const game = 'gameId' in event ? this.games.get(event.gameId) : undefined;
    switch (event.kind) {
      case 'gameCreated': {
        const order = this.creating.get(event.requestId);
        const announced = this.announced.get(event.requestId);
        if (announced) {
          this.announced.delete(event.requestId);
          if (this.games.has(event.gameId) || this.announcedGames.has(event.gameId)) return this.count(announced.shard, -1);
          return void this.announcedGames.set(event.gameId, announced.shard);
        }
        if (!order) return;
        this.creating.delete(event.requestId);
        // Its slot was counted as starting; a game id already running is refused by the core: the slot frees.
        if (this.games.has(event.gameId)) return this.count(order.shard, -1);
        this.games.set(event.gameId, { gameId: event.gameId, factory: order.factory, requestId: event.requestId, matchable: order.matchable, playerIds: new Set(), open: true, startedAt: this.now() });
        this.reserve(event.gameId, order.playerIds, CREATED_SEATS_KEPT_MS);
        return;
      }
      case 'gameCreationFailed': {
        const announced = this.announced.get(event.requestId);
        if (announced) {
          this.announced.delete(event.requestId);
          return this.count(announced.shard, -1);
        }
        const order = this.creating.get(event.requestId);
        if (!order) return;
        this.creating.delete(event.requestId);
        return this.count(order.shard, -1);
      }
      case 'playerJoined':
        this.reserved.get(event.gameId)?.delete(event.playerId);
        return void game?.playerIds.add(event.playerId);
      case 'playerLeft':
        this.reserved.get(event.gameId)?.delete(event.playerId);
        return void game?.playerIds.delete(event.playerId);
      case 'gameOpened':
      case 'gameClosed':
        if (game) game.open = event.kind === 'gameOpened';
        return;
      case 'gameAttributesChanged':
        if (game) game.matchable = event.matchable;
        return;
      case 'gameEnded': {
        const announced = this.announcedGames.get(event.gameId);
        this.announcedGames.delete(event.gameId);
        if (game) this.count(this.shardOf(game.factory), -1);
        else if (announced !== undefined) this.count(announced, -1);
        this.reserved.delete(event.gameId);
        return void this.games.delete(event.gameId);
      }
      default:
        return;
    }
  }

  private reserve(gameId: string, playerIds: readonly string[], forMs: number): void {
    let seats = this.reserved.get(gameId);
    if (!seats) this.reserved.set(gameId, (seats = new Map()));
    const until = this.now() + forMs;
    for (const playerId of playerIds) seats.set(playerId, until);
  }

  /** The game's players as a next owner should see them: those in it, and those whose seats are still held for them. */
  private playersOf(game: MirroredGame): string[] {
    const players = [...game.playerIds];
    const seats = this.reserved.get(game.gameId);
    if (!seats) return players;
    const now = this.now();
    for (const [playerId, until] of seats) {
      if (until <= now) seats.delete(playerId);
      else if (!game.playerIds.has(playerId)) players.push(playerId);
    }
    if (seats.size === 0) this.reserved.delete(game.gameId);
    return players;
  }

  /** An ended game is kept a while for its result, then forgotten. */
  private remember(gameId: string, shard: number): void {
    this.byGame.delete(gameId);
    this.ended.set(gameId, shard);
    if (this.ended.size > ENDED_KEPT) this.ended.delete(this.ended.keys().next().value!);
  }

  private count(shard: number, by: number): void {
    const n = (this.used.get(shard) ?? 0) + by;
    if (n > 0) this.used.set(shard, n);
    else this.used.delete(shard);
  }

  /**
   * This server's slots apportioned to its shards by the latest demand (at hello and on a new
   * capacity; the node's loop re-grants all its servers together): two-phase against the grants
   * handed out before, each shard's running games kept.
   */
  private grant(): ReadonlyMap<number, number> {
    const { grants } = apportionSlots([this.slots()], this.demand());
    return grants.get(this.hello.serverId) ?? new Map();
  }
}

import { buildCore, coreEnvironment } from '../../src/app/build-core.js';
import type { CoreHost } from '../../src/app/core-host.js';
import { ShardedGateway, type ClaimAnswer, type SharedPlayerClaims } from '../../src/cluster/sharded/index.js';
import { parseConfig } from '../../src/config/load.js';
import type { CoordinatorCommands } from '../../src/coordinator/edges/commands.js';
import type { FindRequest, ServerChannel, ServerOrder } from '../../src/coordinator/messages.js';
import { silentLog } from '../../src/coordinator/ports.js';
import { MatcherSeat } from '../../src/redis/relay/matcher-seat.js';
import type { OwnerStore } from '../../src/redis/relay/owner-store.js';
import { claimHolder, releasedAfterCommit, releasedWhenKeptAnswers, partyWaitingIn } from '../../src/redis/shards/player-claims.js';
import { RelayGateway } from '../../src/redis/relay/relay-gateway.js';
import { shardIdPrefix, shardOfFactory } from '../../src/sharding/index.js';
import { ManualTimers } from '../coordinator/fixture.js';
import { FakeRelay } from './fake-relay.js';
import { LEASE_MS, Player, settled } from './in-process-cluster.js';

/**
 * Factories sharded across nodes, in this process: every shard has its own relay (a FakeRelay:
 * its own key space, as `{s:<n>}` keys are in Redis) and its own owner, each node a gateway per
 * shard behind one ShardedGateway, on the test's manual clock. Nothing moves on its own: the test
 * takes leases (`own`), watches owners (`watch`) and moves every seat and gateway (`settle`).
 */
export const SHARDS = 4;
export const CONFIG = parseConfig(`
placement: { policy: fill, createTimeoutMs: 60000, maxQueuedPerFactory: 100, ticketTtlSeconds: 600 }
factories:
  - { name: bravo, cooperative: { maxPlayers: 1 } }
  - { name: delta, cooperative: { maxPlayers: 1 } }
  - { name: echo, cooperative: { maxPlayers: 1 } }
  - { name: alpha, cooperative: { maxPlayers: 1 } }
`);
export const FACTORIES = ['bravo', 'delta', 'echo', 'alpha'];

/**
 * The cluster's shared claims as Redis keeps them (src/redis/shards/player-claims.ts), in memory:
 * each player and each live ticket id held by a ticket in its shard, a party claimed whole.
 */
export class SharedClaims implements SharedPlayerClaims {
  private readonly held = new Map<string, string>();

  async claim(ticketId: string, shard: number, playerIds: readonly string[]): Promise<ClaimAnswer> {
    const holder = claimHolder(ticketId, shard);
    const keys = [...playerIds.map((p) => `pl:${p}`), `tk:${ticketId}`];
    for (const [i, key] of keys.entries()) {
      const held = this.held.get(key);
      if (held === undefined || held === holder) continue;
      const other = held.slice(held.indexOf(':') + 1);
      return { conflict: other === ticketId ? { ticketId, shard: Number(held.slice(0, held.indexOf(':'))) } : { playerId: playerIds[i]!, ticketId: other } };
    }
    // What this claim takes (not what the holder held already): its undo gives back only that.
    const taken = keys.filter((key) => !this.held.has(key));
    for (const key of taken) this.held.set(key, holder);
    return { undo: async () => taken.forEach((key) => this.held.get(key) === holder && this.held.delete(key)) };
  }

  async release(ticketId: string, shard: number, playerIds: readonly string[], keepId = false): Promise<void> {
    const holder = claimHolder(ticketId, shard);
    for (const key of [...playerIds.map((p) => `pl:${p}`), ...(keepId ? [] : [`tk:${ticketId}`])]) if (this.held.get(key) === holder) this.held.delete(key);
  }

  async shardOf(ticketId: string): Promise<number | undefined> {
    const held = this.held.get(`tk:${ticketId}`);
    return held === undefined ? undefined : Number(held.slice(0, held.indexOf(':')));
  }

  /** The ticket holding `playerId`, if any. */
  holder(playerId: string): string | undefined {
    const held = this.held.get(`pl:${playerId}`);
    return held?.slice(held.indexOf(':') + 1);
  }
}

export class ShardedNode {
  readonly gateways: RelayGateway[];
  readonly seats: MatcherSeat[];
  readonly cores = new Map<number, CoreHost>();
  readonly gateway: ShardedGateway;
  /** Terms a seat ended on its own (what a node's keeper gives the lease up for). */
  readonly termsEnded: { shard: number; token: number; reason: string }[] = [];

  constructor(
    readonly id: string,
    relays: readonly FakeRelay[],
    timers: ManualTimers,
    /** One live ticket per player across shards (in Redis in a real cluster). */
    shared: SharedClaims,
    options: ClusterOptions = {},
  ) {
    let n = 0;
    const environment = coreEnvironment(CONFIG, { now: () => timers.now, timers, log: silentLog, newId: () => `${id}-${++n}`, random: () => 0.5 });
    // As a node does: a retry answered from a kept assignment gives back what was claimed for it.
    const keptAnswered = (shard: number) => releasedWhenKeptAnswers(shared, shard, () => undefined);
    this.gateways = relays.map((relay, shard) => new RelayGateway(relay.gateway(id, LEASE_MS), id, CONFIG.templates, silentLog, timers, LEASE_MS / 3, undefined, undefined, keptAnswered(shard)));
    this.seats = relays.map(
      (relay, shard) =>
        new MatcherSeat(options.ownerStore?.(id, shard, relay) ?? relay.owner(id, LEASE_MS), {
          nodeId: id,
          leaseMs: LEASE_MS,
          log: silentLog,
          now: () => timers.now,
          timers,
          ownServersInProcess: !options.relayOnly,
          // As a node does: a release reaches the shared claims once its commit is written.
          build: (place) =>
            buildCore(CONFIG, environment, {
              ...place,
              idPrefix: shardIdPrefix(shard),
              players: releasedAfterCommit(this.seats[shard]!, shared, shard, () => undefined, (id) => partyWaitingIn(this.cores.get(shard)?.view, id)),
              // As a node does: a shard's core runs only its own shard's factories.
              serves: (factory) => shardOfFactory(factory, relays.length) === shard,
            }),
          onCore: (core) => (core ? this.cores.set(shard, core) : this.cores.delete(shard)),
          onTermEnded: (token, reason) => this.termsEnded.push({ shard, token, reason }),
          keptAnswered: keptAnswered(shard),
        }),
    );
    // A shard this node owns takes its own clients' finds in process, as a real node does.
    this.gateway = new ShardedGateway(this.gateways, CONFIG.templates, silentLog, shared, undefined, options.relayOnly ? undefined : (shard) => this.seats[shard]);
  }

  /** Takes (or keeps) the leases of these shards. */
  async own(shards: readonly number[]): Promise<void> {
    for (const shard of shards) await this.seats[shard]!.keepLease();
  }

  async watch(): Promise<void> {
    for (const g of this.gateways) await g.watchOwner();
  }
}

/** Moves every node until four rounds in a row move nothing (a player claim, a read of kept assignments and a commit resolve between rounds, each a tick apart). */
export async function settle(nodes: readonly ShardedNode[]): Promise<void> {
  let quiet = 0;
  for (let round = 0; round < 50; round++) {
    await new Promise((r) => setImmediate(r));
    let moved = 0;
    for (const node of nodes) {
      for (const seat of node.seats) moved += (await settled(seat.step(0))) ?? 0;
      for (const gateway of node.gateways) moved += (await settled(gateway.pump(0))) ?? 0;
    }
    quiet = moved === 0 ? quiet + 1 : 0;
    if (quiet === 4) return;
  }
  throw new Error('the cluster did not settle in 50 rounds');
}

/** A game server hosting every factory, on one node's sharded gateway. */
export class Server {
  orders: ServerOrder[] = [];
  private channel: ServerChannel | undefined;
  constructor(
    readonly serverId: string,
    readonly maxGames: number,
    private readonly node: CoordinatorCommands,
  ) {}
  /** Connects, listing the CreateGame orders it is still making (a reconnect, as the SDK sends them). */
  connect(pendingCreations: readonly string[] = []): string[] {
    const channel: ServerChannel = {
      send: (order) => this.channel === channel && this.orders.push(order),
      close: () => {
        if (this.channel === channel) this.channel = undefined;
      },
    };
    this.channel = channel;
    return this.node.connectServer(
      { serverId: this.serverId, endpoint: `${this.serverId}:1`, attributes: new Map(), templates: [], capacity: { maxGames: this.maxGames, maxStartsPerSecond: 0 }, runningGames: [], pendingCreations },
      channel,
    );
  }
  get connected(): boolean {
    return this.channel !== undefined;
  }
  reconnectIfClosed(): void {
    if (!this.channel) this.connect();
  }
  creates() {
    return this.orders.filter((o): o is Extract<ServerOrder, { kind: 'createGame' }> => o.kind === 'createGame');
  }
  confirmAll(): void {
    for (const order of this.creates()) this.node.onServerEvent(this.serverId, { kind: 'gameCreated', requestId: order.requestId, gameId: `g-${order.playerIds[0]}` });
    this.orders = this.orders.filter((o) => o.kind !== 'createGame');
  }
}

export function findIn(factory: string, p: Player): FindRequest {
  return { ...p.request(), template: factory, partition: new Map() };
}

export interface ClusterOptions {
  /** A node's owner store of a shard (a test wraps the fake to fail or freeze it). */
  readonly ownerStore?: (node: string, shard: number, relay: FakeRelay) => OwnerStore | undefined;
  /** Every find crosses the relay, even to a shard the node owns (the path before in-process finds). */
  readonly relayOnly?: boolean;
}

export function cluster(options: ClusterOptions = {}) {
  const timers = new ManualTimers();
  const relays = Array.from({ length: SHARDS }, () => new FakeRelay(() => timers.now));
  const shared = new SharedClaims();
  const [a, b, c] = ['a', 'b', 'c'].map((id) => new ShardedNode(id, relays, timers, shared, options)) as [ShardedNode, ShardedNode, ShardedNode];
  return { timers, relays, shared, a, b, c, all: [a, b, c] };
}

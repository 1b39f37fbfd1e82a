import { describe, expect, it } from 'vitest';
import { buildCore, coreEnvironment } from '../../src/app/build-core.js';
import type { CoreHost } from '../../src/app/core-host.js';
import { PlayerClaims } from '../../src/cluster/in-process/index.js';
import { ShardedGateway, type SharedPlayerClaims } from '../../src/cluster/sharded/index.js';
import { parseConfig } from '../../src/config/load.js';
import type { CoordinatorCommands } from '../../src/coordinator/edges/commands.js';
import type { FindRequest, ServerChannel, ServerOrder } from '../../src/coordinator/messages.js';
import { silentLog } from '../../src/coordinator/ports.js';
import { MatcherSeat } from '../../src/redis/relay/matcher-seat.js';
import { RelayGateway } from '../../src/redis/relay/relay-gateway.js';
import { ManualTimers } from '../coordinator/fixture.js';
import { FakeRelay } from './fake-relay.js';
import { LEASE_MS, Player, settled } from './in-process-cluster.js';

/**
 * The slot-grant loop with real cores, in this process: every shard has its own relay (its own
 * key space, as `{s:<n>}` keys are in Redis) and its own owner, each node a gateway per shard
 * behind one ShardedGateway (the fixture of sharded-in-process.test.ts; on main it lives in
 * sharded-fixture.ts). The node holding a server's stream re-grants its slots by demand.
 */
const SHARDS = 4;
const CONFIG = parseConfig(`
placement: { policy: fill, createTimeoutMs: 60000, maxQueuedPerFactory: 100, ticketTtlSeconds: 600 }
factories:
  - { name: bravo, cooperative: { maxPlayers: 1 } }
  - { name: delta, cooperative: { maxPlayers: 1 } }
  - { name: echo, cooperative: { maxPlayers: 1 } }
  - { name: alpha, cooperative: { maxPlayers: 1 } }
`);

class ShardedNode {
  readonly gateways: RelayGateway[];
  readonly seats: MatcherSeat[];
  readonly cores = new Map<number, CoreHost>();
  readonly gateway: ShardedGateway;

  constructor(
    readonly id: string,
    relays: readonly FakeRelay[],
    timers: ManualTimers,
    /** One live ticket per player across shards (in Redis in a real cluster). */
    shared: PlayerClaims,
  ) {
    let n = 0;
    const environment = coreEnvironment(CONFIG, { now: () => timers.now, timers, log: silentLog, newId: () => `${id}-${++n}`, random: () => 0.5 });
    this.gateways = relays.map((relay) => new RelayGateway(relay.gateway(id, LEASE_MS), id, CONFIG.templates, silentLog, timers, LEASE_MS / 3));
    this.seats = relays.map(
      (relay, shard) =>
        new MatcherSeat(relay.owner(id, LEASE_MS), {
          nodeId: id,
          leaseMs: LEASE_MS,
          log: silentLog,
          now: () => timers.now,
          timers,
          build: (place) => {
            const local = new PlayerClaims();
            return buildCore(CONFIG, environment, {
              ...place,
              players: {
                claim: (t, ps) => local.claim(t, ps),
                holder: (p) => local.holder(p),
                release: (t, ps) => {
                  local.release(t, ps);
                  shared.release(t, ps);
                },
              },
            });
          },
          onCore: (core) => (core ? this.cores.set(shard, core) : this.cores.delete(shard)),
        }),
    );
    const claims: SharedPlayerClaims = {
      claim: async (t, ps) => shared.claim(t, ps),
      release: async (t, ps) => shared.release(t, ps),
    };
    this.gateway = new ShardedGateway(this.gateways, CONFIG.templates, silentLog, claims);
  }

  /** Takes (or keeps) the leases of these shards. */
  async own(shards: readonly number[]): Promise<void> {
    for (const shard of shards) await this.seats[shard]!.keepLease();
  }

  async watch(): Promise<void> {
    for (const g of this.gateways) await g.watchOwner();
  }
}

/** Moves every node until two rounds in a row move nothing (a gateway's player claim resolves between rounds). */
async function settle(nodes: readonly ShardedNode[]): Promise<void> {
  let quiet = 0;
  for (let round = 0; round < 50; round++) {
    await new Promise((r) => setImmediate(r));
    let moved = 0;
    for (const node of nodes) {
      for (const seat of node.seats) moved += (await settled(seat.step(0))) ?? 0;
      for (const gateway of node.gateways) moved += (await settled(gateway.pump(0))) ?? 0;
    }
    quiet = moved === 0 ? quiet + 1 : 0;
    if (quiet === 2) return;
  }
  throw new Error('the cluster did not settle in 50 rounds');
}

/** A game server hosting every factory, on one node's sharded gateway. */
class Server {
  orders: ServerOrder[] = [];
  private channel: ServerChannel | undefined;
  constructor(
    readonly serverId: string,
    readonly maxGames: number,
    private readonly node: CoordinatorCommands,
  ) {}
  connect(): string[] {
    const channel: ServerChannel = {
      send: (order) => this.channel === channel && this.orders.push(order),
      close: () => {
        if (this.channel === channel) this.channel = undefined;
      },
    };
    this.channel = channel;
    return this.node.connectServer(
      { serverId: this.serverId, endpoint: `${this.serverId}:1`, attributes: new Map(), templates: [], capacity: { maxGames: this.maxGames, maxStartsPerSecond: 0 }, runningGames: [] },
      channel,
    );
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

function findIn(factory: string, p: Player): FindRequest {
  return { ...p.request(), template: factory, partition: new Map() };
}

function cluster() {
  const timers = new ManualTimers();
  const relays = Array.from({ length: SHARDS }, () => new FakeRelay(() => timers.now));
  const shared = new PlayerClaims();
  const [a, b, c] = ['a', 'b', 'c'].map((id) => new ShardedNode(id, relays, timers, shared)) as [ShardedNode, ShardedNode, ShardedNode];
  return { timers, relays, a, b, c, all: [a, b, c] };
}

describe('slot grants by demand, in process', () => {
  it("slots follow demand: the grant loop moves a server's slots to the busy shard; an order decided under a lowered grant is refused at the gateway, its ticket re-queued and placed later, once", async () => {
    const { a, b, c, all } = cluster();
    await a.own([0, 1]);
    await b.own([2, 3]);
    const server = new Server('s', 4, c.gateway);
    server.connect();
    await settle(all);
    const grantOf = (shard: number) => (shard < 2 ? a : b).cores.get(shard)!.view.servers()[0]!.capacity.maxGames;
    expect([0, 1, 2, 3].map(grantOf)).toEqual([1, 1, 1, 1]);
    // Events the node holding the server relays to delta's shard (1).
    const toDelta: string[] = [];
    const relay = c.gateways[1]!.onServerEvent.bind(c.gateways[1]!);
    c.gateways[1]!.onServerEvent = (serverId, event) => (toDelta.push(event.kind), relay(serverId, event));

    // delta's owner decides a creation on its one slot; before the order reaches the server's node, that node's loop gives bravo everything.
    const p = new Player('t-delta');
    c.gateway.find(findIn('delta', p), p);
    for (let i = 0; i < 5; i++) {
      await new Promise((r) => setImmediate(r));
      await settled(c.gateways[1]!.pump(0)); // the find reaches delta's relay
    }
    for (let i = 0; i < 5; i++) await settled(a.seats[1]!.step(0)); // its owner orders a creation (not delivered yet)
    const bravoBusy = new Map([[0, { queued: 100, perSecond: 0 }]]);
    c.gateway.regrant(bravoBusy);
    await settle(all);
    c.gateway.regrant(bravoBusy); // two-phase: bravo grows into the slots the others gave up a round earlier
    await settle(all);
    expect(c.gateway.regrant(bravoBusy)).toBe(0);
    expect([0, 1, 2, 3].map(grantOf)).toEqual([4, 0, 0, 0]);
    expect(toDelta).toContain('gameCreationFailed'); // refused at the gateway, not sent
    expect(server.creates().filter((o) => o.factory === 'delta')).toEqual([]);
    expect([p.assignments.length, p.errors.length]).toEqual([0, 0]); // waiting, not lost

    // Demand moves to delta: its ticket is placed on the slots it regains.
    const deltaBusy = new Map([[1, { queued: 100, perSecond: 0 }]]);
    for (let round = 0; round < 3; round++) {
      c.gateway.regrant(deltaBusy);
      await settle(all);
    }
    expect(grantOf(1)).toBe(4);
    expect(server.creates().map((o) => o.factory)).toEqual(['delta']);
    server.confirmAll();
    await settle(all);
    expect(p.assignments.map((x) => x.gameId)).toEqual(['g-p-t-delta']);
    expect(p.errors).toEqual([]);
  });
});

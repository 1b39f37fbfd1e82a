import { describe, expect, it } from 'vitest';
import type { ServerHello } from '../../src/coordinator/messages.js';
import { LEASE_MS, Player, Server, relayWorld, settle, SOLO_CONFIG as CONFIG } from './in-process-cluster.js';

/**
 * An owner can hold a server by a connection its node no longer holds (announced twice
 * while shards moved, or closed on the node without a bye reaching this owner). Its orders there
 * went nowhere, and each creation waited out its confirm window (here 60 s) before going back in
 * line: on a quiet machine, 4 sharded nodes did less than one. The node now answers such an order
 * with a bye for that connection only.
 */

const ghostHello = (serverId: string): ServerHello => ({ serverId, endpoint: `${serverId}:1`, attributes: new Map(), templates: [], capacity: { maxGames: 4, maxStartsPerSecond: 0 }, runningGames: [] });

function world() {
  const { timers, relay, nodes: [a, b] } = relayWorld(CONFIG, 'a', 'b');
  return { timers, relay, a, b };
}

describe('an order for a server connection its node does not hold', () => {
  it('is answered by the node at once: the owner drops the ghost and the creation goes to a live server, not after its confirm window', async () => {
    const { relay, a, b } = world();
    await a.seat.keepLease();
    // The owner holds server g by node b's connection 7, which b does not hold.
    await relay.gateway('b', LEASE_MS).send({ k: 'hello', node: 'b', conn: 7, hello: ghostHello('g') });
    await settle([a, b]);
    expect(a.core!.view.servers().map((s) => s.serverId)).toEqual(['g']);

    const player = new Player('t1');
    b.gateway.find(player.request(), player);
    await settle([a, b]);
    // The ghost is gone and the ticket waits in line for a server, at once.
    expect(a.core!.view.servers()).toEqual([]);
    const live = new Server('s', 2);
    live.connect(b);
    await settle([a, b]);
    expect(live.creates().map((o) => o.playerIds)).toEqual([['p-t1']]);
    live.confirmAll();
    await settle([a, b]);
    expect(player.assignments).toMatchObject([{ serverId: 's' }]);
  });

  it("spares the newer connection the owner holds: a bye for one connection leaves another from the same node", async () => {
    const { relay, a, b } = world();
    await a.seat.keepLease();
    const server = new Server('s', 2);
    server.connect(b); // b's connection 1
    await settle([a, b]);
    // Another node's late or stale word about an old connection of s on b.
    await relay.gateway('b', LEASE_MS).send({ k: 'bye', node: 'b', serverId: 's', conn: 0 });
    await settle([a, b]);
    expect(a.core!.view.servers().map((s) => s.serverId)).toEqual(['s']);
    expect(server.connected).toBe(true);
    const player = new Player('t1');
    b.gateway.find(player.request(), player);
    await settle([a, b]);
    expect(server.creates()).toHaveLength(1);
  });

  it('tells the owner once per connection, however many orders were on their way', async () => {
    const { relay, a, b } = world();
    await a.seat.keepLease();
    await relay.gateway('b', LEASE_MS).send({ k: 'hello', node: 'b', conn: 7, hello: { ...ghostHello('g'), capacity: { maxGames: 8, maxStartsPerSecond: 0 } } });
    await settle([a, b]);
    const players = ['t1', 't2', 't3'].map((id) => new Player(id));
    for (const p of players) b.gateway.find(p.request(), p);
    const inboxBefore = relay.sent.filter((m) => m.k === 'bye').length;
    await settle([a, b]);
    expect(relay.sent.filter((m) => m.k === 'bye').length - inboxBefore).toBe(1);
    expect(a.core!.view.servers()).toEqual([]);
  });
});

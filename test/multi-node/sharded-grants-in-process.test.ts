import { describe, expect, it } from 'vitest';
import { Player, settled } from './in-process-cluster.js';
import { cluster, findIn, Server, settle } from './sharded-fixture.js';

/**
 * The slot-grant loop with real cores, in this process: every shard has its own relay (its own
 * key space, as `{s:<n>}` keys are in Redis) and its own owner, each node a gateway per shard
 * behind one ShardedGateway (sharded-fixture.ts). The node holding a server's stream re-grants its
 * slots by demand.
 */
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

import { describe, expect, it } from 'vitest';
import { LEASE_MS, Player, Server, relayWorld, settle, SOLO_CONFIG as CONFIG } from './in-process-cluster.js';
import { Server as ShardServer, cluster, findIn, settle as settleShards } from './sharded-fixture.js';

/**
 * A gateway checks a ticket's kept assignment as it queues a find, but a copy queued before the
 * owner assigned the ticket (a resend when the owner changed) can be read only after that owner
 * died. The next owner's core never heard of the ticket: it took the copy as a new ticket and
 * seated its player a second time. A find queued before the owner's term began is answered from
 * the kept assignment instead, however late in the term it is read.
 */
describe('a find replayed to the next owner after the first answered it', () => {
  it('is answered from the kept assignment: the same game, no second CreateGame', async () => {
    const { timers, relay, nodes: [a, b, c] } = relayWorld(CONFIG, 'a', 'b', 'c');
    await a.seat.keepLease();
    for (const n of [b, c]) await n.gateway.watchOwner();
    const server = new Server('s', 4);
    server.connect(c);
    const player = new Player('t1');
    c.gateway.find(player.request(), player);
    await settle([a, c]);
    server.confirmAll();
    await settle([a, c]);
    expect(player.assignments.map((x) => x.gameId)).toEqual(['g-p-t1']);

    // A copy of the find, queued before the assignment, that a never read; then a dies.
    await relay.gateway('c', LEASE_MS).send({ k: 'find', node: 'c', request: player.request() });
    await timers.advance(LEASE_MS + 1);
    await b.seat.keepLease();
    for (const n of [b, c]) await n.gateway.watchOwner();
    server.reconnectIfClosed();
    await settle([b, c]);
    expect(server.creates()).toEqual([]);
    expect(b.core!.view.ticket('t1')).toBeUndefined();
  });

  it('a find queued in this term is not read against kept assignments (the gateway checked it as it queued it)', async () => {
    const { timers, relay, nodes: [a, c] } = relayWorld(CONFIG, 'a', 'c');
    await a.seat.keepLease();
    await c.gateway.watchOwner();
    new Server('s', 0).connect(c); // no slot: the ticket waits
    await settle([a, c]);
    for (let beat = 0; beat < 10; beat++) {
      await timers.advance(LEASE_MS / 3);
      await a.seat.keepLease();
      await c.gateway.watchOwner();
    }
    const reads = relay.calls;
    const player = new Player('t2');
    c.gateway.find(player.request(), player);
    await settle([a, c]);
    expect(player.updates.map((u) => u.kind)).toEqual(['queued']);
    // The owner's calls for that find: none reads kept assignments (a young term's step makes 4).
    expect(relay.calls - reads).toBe(3);
  });
});

describe('a find copy read long into the next owner’s term (a backlog)', () => {
  it('is still answered from the kept assignment: it was queued before the term began', async () => {
    const { timers, relays, a, b, c, all } = cluster();
    await a.own([0, 1]);
    await b.own([2, 3]);
    for (const n of all) await n.watch();
    // The server is on b: once b owns shard 0 it knows the server at once (in process).
    const server = new ShardServer('s', 8, b.gateway);
    server.connect();
    await settleShards(all);
    const player = new Player('t1');
    c.gateway.find(findIn('bravo', player), player); // shard 0, owner a
    await settleShards(all);
    server.confirmAll();
    await settleShards(all);
    expect(player.assignments.map((x) => x.gameId)).toEqual(['g-p-t1']);

    // A copy queued before the assignment that a never read; a dies and b takes its shards, but
    // reads shard 0's inbox only ten leases into its term (busy), while the rest goes on.
    await relays[0]!.gateway('c', LEASE_MS).send({ k: 'find', node: 'c', request: findIn('bravo', player) });
    const busy = b.seats[0]!;
    const step = busy.step.bind(busy);
    busy.step = async () => 0;
    for (let beat = 0; beat < 33; beat++) {
      await b.own([0, 1, 2, 3]); // a's shards once its lease has run out, three beats in
      for (const n of [b, c]) await n.watch();
      await settleShards([b, c]);
      await timers.advance(LEASE_MS / 3);
    }
    expect(b.cores.get(0)!.view.servers().map((x) => x.serverId)).toEqual(['s']);
    busy.step = step;
    await settleShards([b, c]);
    expect(server.creates()).toEqual([]);
    expect(b.cores.get(0)!.view.ticket('t1')).toBeUndefined();
  });
});

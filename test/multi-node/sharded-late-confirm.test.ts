import { describe, expect, it } from 'vitest';
import { LEASE_MS, Player } from './in-process-cluster.js';
import { CONFIG, Server, cluster, findIn, settle } from './sharded-fixture.js';

/**
 * A CreateGame ordered by a shard's owner that dies before its server answers: the server is on
 * another node and stays connected, so the next owner hears of it again at once, without the
 * game (it is not created yet). The ticket's retry must not start over while the order may still
 * be confirmed, and the late confirmation is the ticket's game: one game, the order's token.
 */
describe("a CreateGame in flight when a shard's owner dies, its server still connected", () => {
  async function orderedThenOwnerDies() {
    const { timers, a, b, c, all } = cluster();
    await a.own([0, 1]);
    await b.own([2, 3]);
    for (const n of all) await n.watch();
    const server = new Server('s', 8, c.gateway);
    server.connect();
    await settle(all);
    const player = new Player('t1');
    c.gateway.find(findIn('bravo', player), player); // shard 0, owner a
    await settle(all);
    const [order] = server.creates();
    expect(order?.playerIds).toEqual(['p-t1']);

    // a dies; past its lease b takes its shards, c resends the find and re-announces the server
    // (c heartbeats meanwhile, so the server's stream stays open).
    const live = [b, c];
    for (let t = 0; t <= LEASE_MS; t += LEASE_MS / 4) {
      await timers.advance(LEASE_MS / 4);
      await b.own([0, 1, 2, 3]);
      for (const n of live) await n.watch();
      await settle(live);
    }
    expect(b.cores.has(0)).toBe(true);
    expect(server.connected).toBe(true);
    return { timers, b, live, server, player, order: order! };
  }

  it('the late gameCreated reaches the retried ticket through the next owner: no second CreateGame', async () => {
    const { live, server, player, order } = await orderedThenOwnerDies();
    expect(server.creates()).toEqual([order]); // the retry waits for the order's answer
    expect(player.assignments).toEqual([]);

    server.confirmAll();
    await settle(live);
    expect(player.errors).toEqual([]);
    expect(player.assignments).toMatchObject([{ gameId: 'g-p-t1', serverId: 's', reservationToken: order.reservationToken }]);
    expect(server.creates()).toEqual([]);
  });

  it('an order never answered: the ticket goes on as new once the confirm window has passed, ordered once more', async () => {
    const { timers, b, live, server, player } = await orderedThenOwnerDies();
    server.orders = [];
    // Time passes as it does in a live cluster: leases kept, nodes heartbeating.
    for (let t = 0; t < CONFIG.placement.createTimeoutMs; t += LEASE_MS / 2) {
      await timers.advance(LEASE_MS / 2);
      await b.own([0, 1, 2, 3]);
      for (const n of live) await n.watch();
      await settle(live);
    }
    expect(server.creates().map((o) => o.playerIds)).toEqual([['p-t1']]);
    server.confirmAll();
    await settle(live);
    expect(player.assignments.map((x) => x.gameId)).toEqual(['g-p-t1']);
  });
});

/**
 * The server's own node dies while an order it got there is being made; the owner lives. The
 * server reconnects to another node listing the order (`pending_creations`), and that node, which
 * never saw the order, tells the owner of its shard (the shard is in the id), so the owner waits
 * for it rather than ordering the players another game, and the answer reaches the owner.
 */
describe("a CreateGame in flight when its server's node dies, the server reconnecting to another node", () => {
  it('the owner waits for the listed order and the answer sent through the new node is the ticket\'s game: no second CreateGame', async () => {
    const { timers, a, b, c, all } = cluster();
    await a.own([0, 1]);
    await b.own([2, 3]);
    for (const n of all) await n.watch();
    const server = new Server('s', 8, c.gateway);
    server.connect();
    await settle(all);
    const player = new Player('t1');
    b.gateway.find(findIn('delta', player), player); // shard 1, owner a (not the server's first shard)
    await settle(all);
    const [order] = server.creates();
    expect(order?.requestId).toMatch(/^s1\./);

    // c dies; the server's stream breaks with it and the server reconnects to b at once, listing
    // the order. Later c's heartbeat lapses: the owner drops what came through c, not the server.
    const live = [a, b];
    const moved = new Server('s', 8, b.gateway);
    moved.connect([order!.requestId]);
    await settle(live);
    for (let t = 0; t <= 2 * LEASE_MS; t += LEASE_MS / 4) {
      await timers.advance(LEASE_MS / 4);
      await a.own([0, 1]);
      await b.own([2, 3]);
      for (const n of live) await n.watch();
      await settle(live);
    }
    expect(a.cores.get(1)!.view.servers().map((s) => s.serverId)).toEqual(['s']);
    expect(moved.creates()).toEqual([]); // the listed order is still coming: nothing ordered again
    b.gateway.onServerEvent('s', { kind: 'gameCreated', requestId: order!.requestId, gameId: 'g-late' });
    await settle(live);
    expect(player.errors).toEqual([]);
    expect(player.assignments).toMatchObject([{ gameId: 'g-late', serverId: 's', reservationToken: order!.reservationToken }]);
    expect(moved.creates()).toEqual([]);
  });
});

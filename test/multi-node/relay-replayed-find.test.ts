import { describe, expect, it } from 'vitest';
import { LEASE_MS, Player, Server, relayWorld, settle, SOLO_CONFIG as CONFIG } from './in-process-cluster.js';

/**
 * A gateway checks a ticket's kept assignment as it queues a find, but a copy queued before the
 * owner assigned the ticket (a resend when the owner changed) can be read only after that owner
 * died. The next owner's core never heard of the ticket: it took the copy as a new ticket and
 * seated its player a second time. Early in a term, the owner answers such a find from the kept
 * assignment instead.
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

  it('later in the term a find is not read against kept assignments (the gateway checked it as it queued it)', async () => {
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

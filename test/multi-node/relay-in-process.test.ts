import { describe, expect, it } from 'vitest';
import { ManualTimers } from '../coordinator/fixture.js';
import { FakeRelay, killedAfter } from './fake-relay.js';
import { InProcessNode, LEASE_MS, Player, Server, settle, settled, SOLO_CONFIG as CONFIG } from './in-process-cluster.js';

/**
 * The multi-node relay in this process: gateways and matcher seats on a fake Redis (FakeRelay),
 * on a manual clock, moved step by step. Deterministic and without sleeps; the spawned-process
 * tests (multi-node.test.ts) stay as the real-process check.
 */

function world() {
  const timers = new ManualTimers();
  const relay = new FakeRelay(() => timers.now);
  return { timers, relay };
}

describe('the relay, in process', () => {
  it('a find on one node reaches the owner on another; its answers come back to the node that asked', async () => {
    const { timers, relay } = world();
    const [a, b, c] = ['a', 'b', 'c'].map((id) => InProcessNode.make(id, relay, timers, CONFIG));
    await a!.seat.keepLease();
    expect(a!.seat.owner).toBe(true);
    const server = new Server('s', 2);
    server.connect(c!);
    const player = new Player('t1');
    b!.gateway.find(player.request(), player);
    await settle([a!, b!, c!]);
    expect(server.creates().map((o) => o.playerIds)).toEqual([['p-t1']]);
    server.confirmAll();
    await settle([a!, b!, c!]);
    expect(player.assignments).toMatchObject([{ serverId: 's', gameId: 'g-p-t1', serverEndpoint: 's:1' }]);
    expect(b!.core).toBeUndefined(); // only the owner runs a core
  });

  it('a batch of requests is one commit: its answers, its ticket records and its ack together', async () => {
    const { timers, relay } = world();
    const [a, b] = ['a', 'b'].map((id) => InProcessNode.make(id, relay, timers, CONFIG));
    await a!.seat.keepLease();
    new Server('s', 0).connect(b!);
    await settle([a!, b!]);
    const commitsBefore = relay.commits.length;
    const players = ['t1', 't2', 't3'].map((id) => new Player(id));
    for (const p of players) b!.gateway.find(p.request(), p);
    await a!.seat.step(0);
    expect(relay.commits.length).toBe(commitsBefore + 1);
    const writes = relay.commits.at(-1)!.writes;
    expect(writes.filter((w) => w.kind === 'record').map((w) => w.kind === 'record' && w.ticketId)).toEqual(['t1', 't2', 't3']);
    expect(writes.filter((w) => w.kind === 'answer')).toHaveLength(3);
    expect(writes.at(-1)).toMatchObject({ kind: 'ack' });
    expect(relay.pending.size).toBe(0);
    await b!.gateway.pump(0);
    expect(players.map((p) => p.updates.at(-1))).toMatchObject([1, 2, 3].map((position) => ({ kind: 'queued', position })));
  });

  it('a paused owner: once another node holds the lease, its commit is refused and it steps down', async () => {
    const { timers, relay } = world();
    const [a, b] = ['a', 'b'].map((id) => InProcessNode.make(id, relay, timers, CONFIG));
    await a!.seat.keepLease();
    new Server('s', 0).connect(b!);
    await settle([a!, b!]);
    // a is paused past its lease; b takes the matcher.
    await timers.advance(LEASE_MS + 1);
    await b!.seat.keepLease();
    expect(b!.seat.owner).toBe(true);
    // a wakes with a request in hand (read before b's claim) and answers it: refused.
    const late = new Player('late');
    b!.gateway.find(late.request(), late);
    const tickets = relay.tickets.size;
    await a!.seat.step(0);
    expect(a!.seat.owner).toBe(false);
    expect(a!.core).toBeUndefined();
    expect(relay.tickets.size).toBe(tickets);
    expect(relay.commits.filter((c) => c.node === 'a' && c.writes.some((w) => w.kind === 'record' && w.ticketId === 'late'))).toEqual([]);
  });

  it('a node resending its finds to a new owner keeps one listener per call: no ticket is cancelled by its own retry', async () => {
    const { timers, relay } = world();
    const [a, b] = ['a', 'b'].map((id) => InProcessNode.make(id, relay, timers, CONFIG));
    await a!.seat.keepLease();
    await b!.gateway.watchOwner();
    const server = new Server('s', 0);
    server.connect(b!);
    const player = new Player('t1');
    b!.gateway.find(player.request(), player);
    await settle([a!, b!]);
    await timers.advance(LEASE_MS + 1);
    await b!.seat.keepLease(); // a died: b takes over, claims nothing (a acknowledged), restores t1
    await b!.gateway.watchOwner(); // the fence moved: b resends its finds and closes its servers' streams
    server.reconnectIfClosed();
    await b!.gateway.watchOwner();
    await settle([b!]);
    expect(player.errors).toEqual([]);
    expect(player.updates.at(-1)).toMatchObject({ kind: 'queued', position: 1 });
  });
});

describe('an owner that stepped down and takes the matcher back', () => {
  // A commit that fails (Redis killed, or a blip) ends the owner's term at once, while its lease
  // may still stand in Redis (restarted from its AOF). Taking the lease back must start a new
  // term: the new core knows no server, and only a moved fence makes the gateways re-announce them.
  it('gets a new fencing token, so the gateways re-announce their servers and finds to the new core', async () => {
    const { timers, relay } = world();
    let failNextCommit = false;
    const store = relay.owner('a', LEASE_MS);
    const flaky = {
      ...store,
      commit: (token: number, writes: Parameters<typeof store.commit>[1]) => {
        if (!failNextCommit) return store.commit(token, writes);
        failNextCommit = false;
        return Promise.reject(new Error('Connection is closed.'));
      },
    };
    const a = InProcessNode.make('a', relay, timers, CONFIG, flaky);
    await a.seat.keepLease();
    await a.gateway.watchOwner();
    const server = new Server('s', 0);
    server.connect(a);
    const waiting = new Player('w1');
    a.gateway.find(waiting.request(), waiting);
    await settle([a]);
    expect(waiting.updates.at(-1)).toMatchObject({ kind: 'queued' });

    failNextCommit = true;
    const late = new Player('w2');
    a.gateway.find(late.request(), late);
    await settle([a]);
    expect(a.seat.owner).toBe(false); // the failed commit ended its term
    const before = relay.fence;
    await a.seat.keepLease(); // its lease still stands: it takes it back
    expect(a.seat.owner).toBe(true);
    expect(relay.fence).toBeGreaterThan(before);

    await a.gateway.watchOwner(); // the fence moved: finds resent, the server asked to reconnect
    expect(server.connected).toBe(false);
    server.maxGames = 2;
    server.reconnectIfClosed();
    await settle([a]);
    expect(server.creates().map((o) => o.playerIds[0]).sort()).toEqual(['p-w1', 'p-w2']);
    expect([waiting, late].flatMap((p) => p.errors)).toEqual([]);
  });
});

/**
 * Kill -9 of the owner after any one of its Redis calls: acquire, load, claim, read, commit...
 * Whatever it did or did not write, the next owner places every acknowledged ticket in arrival
 * order, assigns each once, and never seats a player twice.
 */
describe('killing the owner between any two of its Redis calls loses no ticket and no place', () => {
  /** The owner's calls in the scenario, counted by a run that is never killed. */
  const scenario = async (killAfter: number | undefined, initialSlots: number) => {
    const { timers, relay } = world();
    const owner = killAfter === undefined ? relay.owner('a', LEASE_MS) : killedAfter(relay.owner('a', LEASE_MS), killAfter);
    const a = InProcessNode.make('a', relay, timers, CONFIG, owner);
    const b = InProcessNode.make('b', relay, timers, CONFIG);
    const c = InProcessNode.make('c', relay, timers, CONFIG);
    const live = [b, c];
    const server = new Server('s', initialSlots);
    const players = ['t1', 't2', 't3', 't4', 't5'].map((id) => new Player(id));
    await settled(a.seat.keepLease());
    await b.gateway.watchOwner();
    await c.gateway.watchOwner();
    server.connect(c);
    await settled(a.seat.step(0));
    for (const p of players.slice(0, 3)) b.gateway.find(p.request(), p);
    await settled(a.seat.step(0));
    for (const p of players.slice(3)) b.gateway.find(p.request(), p);
    await settled(a.seat.step(0));
    await settle(live);
    const calls = 'dead' in owner ? undefined : relay.calls;
    // a is gone (or done): its lease runs out and b takes the matcher.
    await timers.advance(LEASE_MS + 1);
    await b.seat.keepLease();
    expect(b.seat.owner).toBe(true);
    await b.gateway.watchOwner(); // resends the finds still waiting
    await c.gateway.watchOwner(); // closes its servers' streams: they say hello to b
    server.maxGames = 5;
    server.reconnectIfClosed();
    await settle(live);
    // Creations b orders, in its order: every ticket once, oldest arrival first.
    const ordered = server.creates().map((o) => o.playerIds[0]);
    server.confirmAll();
    await settle(live);
    return { players, ordered, calls };
  };

  it('the scenario (never killed) places t1..t5 in order', async () => {
    const run = await scenario(undefined, 0);
    expect(run.ordered).toEqual(['p-t1', 'p-t2', 'p-t3', 'p-t4', 'p-t5']);
  });

  for (const initialSlots of [0, 1]) {
    it(`with ${initialSlots} slot(s) before the kill: after every call of the owner`, async () => {
      const { calls } = await scenario(undefined, initialSlots);
      expect(calls).toBeGreaterThan(6);
      for (let k = 0; k <= calls!; k++) {
        const run = await scenario(k, initialSlots);
        const label = `killed after call ${k} of ${calls}`;
        // Placed in arrival order; a ticket already in flight on the server before the kill may
        // be ordered again first (its creation was never confirmed), never after a later one.
        expect(run.ordered, label).toEqual(['p-t1', 'p-t2', 'p-t3', 'p-t4', 'p-t5']);
        for (const p of run.players) {
          expect(p.assignments.map((x) => x.gameId), `${label}: ${p.ticketId}`).toEqual([`g-p-${p.ticketId}`]);
          expect(p.errors, `${label}: ${p.ticketId}`).toEqual([]);
        }
      }
    });
  }
});

describe('a CreateGame in flight when the owner dies', () => {
  // The owner stored the ticket with where its game was ordered; the server created the game
  // anyway and re-announces it, with the order's request_id, to the new owner through its node.
  it("the new owner gives the waiting ticket the game its server re-announces: the order's token, no second game", async () => {
    const { timers, relay } = world();
    const a = InProcessNode.make('a', relay, timers, CONFIG, killedAfter(relay.owner('a', LEASE_MS), Infinity));
    const b = InProcessNode.make('b', relay, timers, CONFIG);
    await a.seat.keepLease();
    await b.gateway.watchOwner();
    const server = new Server('s', 1);
    server.connect(b);
    const player = new Player('t1');
    b.gateway.find(player.request(), player);
    await settle([a, b]);
    const [order] = server.creates();
    expect(order?.playerIds).toEqual(['p-t1']);

    // a dies (its lease runs out); the server creates the game, and its confirmation is lost.
    await timers.advance(LEASE_MS + 1);
    await b.seat.keepLease();
    expect(b.seat.owner).toBe(true);
    server.runningGames = [{ gameId: 'g-1', factory: order!.factory, requestId: order!.requestId, matchable: order!.matchable, playerIds: [], open: true, startedAt: timers.now }];
    await b.gateway.watchOwner(); // the fence moved: the finds are resent, the server reconnects
    server.reconnectIfClosed();
    await settle([b]);

    expect(player.errors).toEqual([]);
    expect(player.assignments).toMatchObject([{ gameId: 'g-1', serverId: 's', reservationToken: order!.reservationToken }]);
    expect(server.creates()).toEqual([]); // no second CreateGame
  });
});

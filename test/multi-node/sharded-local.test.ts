import { describe, expect, it } from 'vitest';
import type { OwnerStore, OwnerWrite } from '../../src/redis/relay/owner-store.js';
import { decode, type InboxMessage } from '../../src/redis/relay/relay-codec.js';
import { LEASE_MS, Player } from './in-process-cluster.js';
import type { FakeRelay } from './fake-relay.js';
import { Server, cluster, findIn, settle } from './sharded-fixture.js';

/**
 * A find for a shard its node owns is taken by that node's seat in process: no inbox entry, no
 * answer stream. What the client is told (queued, assigned) comes only after the step's fenced
 * commit holding its ticket record succeeded, so a node killed at any point loses no ticket a
 * client heard of; a commit that fails ends the term and the call goes to the next owner.
 * Shard 0 is bravo's (sharded-fixture).
 */

/** An owner store whose commits wait while `closed`, released one by one with `open`. */
function gated(store: OwnerStore) {
  const held: (() => void)[] = [];
  const gate = {
    closed: false,
    held,
    open(): void {
      gate.closed = false;
      for (const release of held.splice(0)) release();
    },
  };
  const wrapped: OwnerStore = {
    ...store,
    commit: async (token, writes) => {
      if (gate.closed) await new Promise<void>((resolve) => held.push(resolve));
      return store.commit(token, writes);
    },
  };
  return { gate, store: wrapped };
}

/** An owner store that, once `armed`, writes the next commit and then never answers again (a kill -9 right after EXEC). */
function killable(store: OwnerStore) {
  const state = { armed: false, dead: false };
  const frozen = <T>(): Promise<T> => new Promise<T>(() => {});
  const alive =
    <A extends unknown[], T>(fn: (...args: A) => Promise<T>) =>
    (...args: A): Promise<T> =>
      state.dead ? frozen<T>() : fn(...args);
  const wrapped: OwnerStore = {
    acquire: alive(() => store.acquire()),
    renew: alive((token: number) => store.renew(token)),
    release: alive((token: number) => store.release(token)),
    loadTickets: alive(() => store.loadTickets()),
    inboxEnd: alive(() => store.inboxEnd()),
    claimPending: alive((minIdleMs: number, cursor: string) => store.claimPending(minIdleMs, cursor)),
    readInbox: alive((count: number, blockMs: number) => store.readInbox(count, blockMs)),
    keptAnswers: alive((ticketIds: readonly string[]) => store.keptAnswers(ticketIds)),
    commit: alive(async (token: number, writes: readonly OwnerWrite[]) => {
      const outcome = await store.commit(token, writes);
      if (!state.armed) return outcome;
      state.dead = true;
      return frozen<typeof outcome>();
    }),
    lapsed: alive((nodes: readonly string[]) => store.lapsed(nodes)),
    interrupt: () => {},
  };
  return { state, store: wrapped };
}

/** Node a's store of shard 0, whose next commit fails once `armed` (the connection to Redis lost mid-EXEC). */
function failsNextCommit() {
  const failing = {
    armed: false,
    ownerStore: (node: string, shard: number, relay: FakeRelay): OwnerStore | undefined => {
      if (node !== 'a' || shard !== 0) return undefined;
      const store = relay.owner(node, LEASE_MS);
      return {
        ...store,
        commit: (token, writes) => {
          if (!failing.armed) return store.commit(token, writes);
          failing.armed = false;
          return Promise.reject(new Error('connection lost'));
        },
      };
    },
  };
  return failing;
}

const records = (writes: readonly OwnerWrite[]) => writes.flatMap((w) => (w.kind === 'record' && w.record ? [w.ticketId] : []));

describe('a sharded node takes finds for its own shards in process', () => {
  it("a local find is told queued only after its commit; the tick's finds share one commit; nothing crosses the inbox or an answer stream", async () => {
    let a0: ReturnType<typeof gated> | undefined;
    const { relays, a, c, all } = cluster({ ownerStore: (node, shard, relay) => (node === 'a' && shard === 0 ? (a0 = gated(relay.owner(node, LEASE_MS))).store : undefined) });
    await a.own([0, 1]);
    new Server('s', 0, c.gateway).connect(); // no slot: tickets wait in line
    await settle(all);
    const commitsBefore = relays[0]!.commits.length;

    a0!.gate.closed = true;
    const players = ['t1', 't2', 't3'].map((id) => new Player(id));
    for (const p of players) a.gateway.find(findIn('bravo', p), p);
    await settle(all);
    // Taken by the core, its commit not yet written: no client told, no record in Redis yet.
    expect(a.cores.get(0)!.view.ticket('t1')).toBeDefined();
    expect(players.map((p) => p.updates.length + p.errors.length)).toEqual([0, 0, 0]);
    expect(relays[0]!.storedTickets()).toEqual([]);
    expect(a0!.gate.held).toHaveLength(1);

    a0!.gate.open();
    await settle(all);
    expect(players.map((p) => p.updates.map((u) => u.kind))).toEqual([['queued'], ['queued'], ['queued']]);
    // One commit held the three records; no inbox entry was written and no answer went on a stream.
    const commits = relays[0]!.commits.slice(commitsBefore);
    expect(commits.map((x) => records(x.writes))).toEqual([['t1', 't2', 't3']]);
    expect(commits.flatMap((x) => x.writes).filter((w) => w.kind === 'answer' || w.kind === 'ack')).toEqual([]);
    expect(relays[0]!.inbox).toEqual([]);
    expect(relays[0]!.out.get('a') ?? []).toEqual([]);
  });

  it('a tick of thousands of finds is stepped 500 at a time and committed in bounded slices, in arrival order', async () => {
    const { relays, a, c, all } = cluster();
    await a.own([0]);
    const server = new Server('s', 64_000, c.gateway); // a game ordered for each (its record notes where)
    server.connect();
    await settle(all);
    const commitsBefore = relays[0]!.commits.length;
    const players = Array.from({ length: 3_000 }, (_, i) => new Player(`t${i}`));
    for (const p of players) a.gateway.find(findIn('bravo', p), p);
    await settle(all);
    const sizes = relays[0]!.commits.slice(commitsBefore).map((x) => x.writes.length).filter((n) => n > 0);
    expect(sizes.length).toBeGreaterThanOrEqual(3);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(1_000);
    expect(relays[0]!.commits.slice(commitsBefore).flatMap((x) => records(x.writes))).toEqual(players.map((p) => p.ticketId));
    server.confirmAll();
    await settle(all);
    expect(players.filter((p) => p.assignments.length !== 1 || p.errors.length > 0).map((p) => p.ticketId)).toEqual([]);
  });

  it('the same find through a node that does not own the shard still crosses the relay, and both are answered alike', async () => {
    const { relays, a, c, all } = cluster();
    await a.own([0]);
    const server = new Server('s', 8, c.gateway); // 2 slots granted to each shard
    server.connect();
    await settle(all);
    const here = new Player('here');
    const there = new Player('there');
    a.gateway.find(findIn('bravo', here), here);
    c.gateway.find(findIn('bravo', there), there);
    await settle(all);
    server.confirmAll();
    await settle(all);
    expect([here, there].map((p) => p.assignments.map((x) => x.gameId))).toEqual([['g-p-here'], ['g-p-there']]);
    // c's client was answered on c's stream; a's own client on none.
    const answered = relays[0]!.commits.flatMap((x) => x.writes).flatMap((w) => (w.kind === 'answer' && w.message.k === 'update' ? [`${w.node}:${w.message.ticketId}`] : []));
    expect(answered).toEqual(['c:there']);
    // A local assignment is kept like a relayed one, for a client that resumes on another node.
    expect([...relays[0]!.assigned.keys()].sort()).toEqual(['here', 'there']);
    // c's client resumes on a, the owner: answered in process from the kept assignment, checked as a retry is.
    const again = new Player('there');
    a.gateway.find(findIn('bravo', again), again);
    await settle(all);
    const other = new Player('there');
    a.gateway.find({ ...findIn('bravo', other), party: [{ playerId: 'mallory', score: undefined }] }, other);
    await settle(all);
    expect(again.assignments.map((x) => x.gameId)).toEqual(['g-p-there']);
    expect(other.errors.map((e) => e.code)).toEqual(['ALREADY_EXISTS']);
  });

  it('a commit that fails ends the term: the client is not told queued, and its find goes to the next owner', async () => {
    const failing = failsNextCommit();
    const { timers, relays, a, b, c, all } = cluster({ ownerStore: failing.ownerStore });
    await a.own([0]);
    for (const n of all) await n.watch();
    const server = new Server('s', 0, c.gateway);
    server.connect();
    await settle(all);

    failing.armed = true;
    const p = new Player('t1');
    a.gateway.find(findIn('bravo', p), p);
    await settle(all);
    expect(p.updates).toEqual([]);
    expect(p.errors).toEqual([]);
    expect(a.cores.has(0)).toBe(false);
    expect(relays[0]!.storedTickets()).toEqual([]);
    // Told to its node, whose keeper gives the lease up: kept, it was renewed with nobody serving.
    expect(a.termsEnded).toEqual([{ shard: 0, token: expect.any(Number), reason: 'a step could not be written' }]);

    // The next term (b's, past a's lease) gets the find through the relay; a's gateway answers its client.
    await timers.advance(LEASE_MS + 1);
    await b.own([0]);
    for (const n of all) await n.watch();
    server.reconnectIfClosed();
    await settle(all);
    // (Queued again as each hand-over resends it: the same ticket, resumed.)
    expect(new Set(p.updates.map((u) => u.kind))).toEqual(new Set(['queued']));
    expect(p.errors).toEqual([]);
    expect(b.cores.get(0)!.view.ticket('t1')).toBeDefined();
  });

  it("a cancel whose commit fails frees no player (the next owner restores the ticket, players and all); the next owner's cancel frees it once written", async () => {
    const failing = failsNextCommit();
    const { timers, shared, a, b, c, all } = cluster({ ownerStore: failing.ownerStore });
    await a.own([0]);
    for (const n of all) await n.watch();
    const server = new Server('s', 0, c.gateway);
    server.connect();
    await settle(all);
    const p = new Player('t1');
    a.gateway.find({ ...findIn('bravo', p), party: [{ playerId: 'alice', score: undefined }] }, p);
    await settle(all);
    expect(p.updates.map((u) => u.kind)).toEqual(['queued']);
    expect(shared.holder('alice')).toBe('t1');

    failing.armed = true;
    const cancelled = a.gateway.cancel('t1').catch((error: unknown) => error);
    await settle(all);
    expect(await cancelled).toMatchObject({ code: 'UNAVAILABLE' });
    expect(a.cores.has(0)).toBe(false);
    // The core let alice go, but its commit failed: t1 is still stored, and alice still t1's.
    expect(shared.holder('alice')).toBe('t1');
    const other = new Player('t2');
    c.gateway.find({ ...findIn('delta', other), party: [{ playerId: 'alice', score: undefined }] }, other);
    await settle(all);
    expect(other.errors.map((e) => e.code)).toEqual(['ALREADY_EXISTS']);

    await timers.advance(LEASE_MS + 1);
    await b.own([0]);
    for (const n of all) await n.watch();
    server.reconnectIfClosed();
    await settle(all);
    expect(b.cores.get(0)!.view.ticket('t1')).toBeDefined();
    const again = a.gateway.cancel('t1');
    await settle(all);
    expect(await again).toBe(true);
    expect(shared.holder('alice')).toBeUndefined();
  });

  it('a kill -9 between the commit and the answer loses nothing: the next owner restores the ticket and the client resumes elsewhere', async () => {
    let a0: ReturnType<typeof killable> | undefined;
    const { timers, relays, a, b, c } = cluster({ ownerStore: (node, shard, relay) => (node === 'a' && shard === 0 ? (a0 = killable(relay.owner(node, LEASE_MS))).store : undefined) });
    await a.own([0]);
    for (const n of [a, b, c]) await n.watch();
    const server = new Server('s', 0, c.gateway);
    server.connect();
    await settle([a, b, c]);
    const told = new Player('told');
    a.gateway.find(findIn('bravo', told), told);
    await settle([a, b, c]);
    expect(told.updates.map((u) => u.kind)).toEqual(['queued']);

    a0!.state.armed = true;
    const untold = new Player('untold');
    a.gateway.find(findIn('bravo', untold), untold);
    await settle([a, b, c]);
    expect(a0!.state.dead).toBe(true);
    expect(untold.updates).toEqual([]);

    // a is gone; past its lease b owns the shard and restores both tickets, in their order.
    const live = [b, c];
    await timers.advance(LEASE_MS + 1);
    await b.own([0]);
    for (const n of live) await n.watch();
    server.reconnectIfClosed();
    await settle(live);
    expect(relays[0]!.storedTickets().map((r) => r.request.ticketId)).toEqual(['told', 'untold']);
    // Both clients resume on c with their ticket ids, keeping their places.
    const resumed = [new Player('told'), new Player('untold')];
    for (const p of resumed) c.gateway.find(findIn('bravo', p), p);
    await settle(live);
    expect(resumed.map((p) => p.updates.at(-1))).toMatchObject([
      { kind: 'queued', position: 1 },
      { kind: 'queued', position: 2 },
    ]);
    expect(resumed.flatMap((p) => p.errors)).toEqual([]);
    expect(b.cores.get(0)!.view.ticket('untold')).toBeDefined();
  });

  it('cancel and abandon of a local call stay in process; a cancel is answered after its commit and frees the player', async () => {
    const { relays, a, b, c, all } = cluster();
    await a.own([0, 1]);
    await b.own([2, 3]);
    new Server('s', 0, c.gateway).connect();
    await settle(all);
    const solo = (ticketId: string, factory: string) => {
      const p = new Player(ticketId);
      return { p, request: { ...findIn(factory, p), party: [{ playerId: 'alice', score: undefined }] } };
    };
    const first = solo('t1', 'bravo');
    a.gateway.find(first.request, first.p);
    await settle(all);
    const cancelled = a.gateway.cancel('t1');
    await settle(all);
    expect(await cancelled).toBe(true);
    expect(first.p.errors.map((e) => e.code)).toEqual(['CANCELLED']);
    expect(relays[0]!.storedTickets()).toEqual([]);
    expect(relays[0]!.inbox).toEqual([]);

    const second = solo('t2', 'delta'); // shard 1, also a's
    a.gateway.find(second.request, second.p);
    await settle(all);
    expect(second.p.updates.map((u) => u.kind)).toEqual(['queued']);
    a.gateway.abandon('t2', second.p);
    await settle(all);
    expect(a.cores.get(1)!.view.ticket('t2')).toBeUndefined();
    expect(relays[1]!.storedTickets()).toEqual([]);
    // alice is free again: a find in b's shard is taken.
    const third = solo('t3', 'echo');
    a.gateway.find(third.request, third.p);
    await settle(all);
    expect(third.p.errors).toEqual([]);
    expect(third.p.updates.at(-1)).toMatchObject({ kind: 'queued' });
  });

  it("a server on the owner's node is told in process: its orders only after their commit, its events straight to the core", async () => {
    let a0: ReturnType<typeof gated> | undefined;
    const { relays, a, all } = cluster({ ownerStore: (node, shard, relay) => (node === 'a' && shard === 0 ? (a0 = gated(relay.owner(node, LEASE_MS))).store : undefined) });
    await a.own([0]);
    const server = new Server('s', 8, a.gateway);
    server.connect();
    await settle(all);
    expect(a.cores.get(0)!.view.servers().map((x) => x.serverId)).toEqual(['s']);

    a0!.gate.closed = true;
    const p = new Player('t1');
    a.gateway.find(findIn('bravo', p), p);
    await settle(all);
    expect(server.creates()).toEqual([]); // ordered by the core, not yet committed
    a0!.gate.open();
    await settle(all);
    expect(server.creates().map((o) => o.playerIds)).toEqual([['p-t1']]);
    server.confirmAll();
    await settle(all);
    expect(p.assignments.map((x) => x.gameId)).toEqual(['g-p-t1']);
    // Shard 0 never saw an inbox entry or an answer on a stream.
    expect(relays[0]!.commits.flatMap((x) => x.writes).filter((w) => w.kind === 'answer' || w.kind === 'ack')).toEqual([]);
    expect(relays[0]!.inbox).toEqual([]);
  });

  it("when the owner's term ends its servers go to the next owner through the relay, their streams open; when the node's seat takes the shard again they come back in process", async () => {
    const failing = failsNextCommit();
    const { timers, relays, a, b, all } = cluster({ ownerStore: failing.ownerStore });
    // Time passes with every node's gateway beating (its heartbeat stays alive).
    const pass = async (ms: number) => {
      for (let left = ms; left > 0; left -= LEASE_MS / 4) {
        await timers.advance(Math.min(left, LEASE_MS / 4));
        for (const n of all) await n.watch();
      }
    };
    await a.own([0]);
    for (const n of all) await n.watch();
    const server = new Server('s', 8, a.gateway);
    server.connect();
    await settle(all);

    failing.armed = true;
    const first = new Player('t1');
    a.gateway.find(findIn('bravo', first), first);
    await settle(all);
    expect(a.cores.has(0)).toBe(false);
    // The server is announced to the next owner once, when the fence moves: a second hello would
    // replace the first and orphan the creations ordered on it.
    const hellos = () => relays[0]!.inbox.filter((e) => decode<InboxMessage>(e.text).k === 'hello').length;
    expect(hellos()).toBe(0);
    await pass(LEASE_MS + 1);
    await b.own([0]);
    for (const n of all) await n.watch();
    expect(hellos()).toBe(1);
    await settle(all);
    expect(server.connected).toBe(true);
    expect(b.cores.get(0)!.view.servers().map((x) => x.serverId)).toEqual(['s']);
    expect(server.creates().map((o) => o.playerIds)).toEqual([['p-t1']]);
    server.confirmAll();
    await settle(all);
    expect(first.assignments.map((x) => x.gameId)).toEqual(['g-p-t1']);

    // b's term lapses; a's seat takes the shard and the server moves back in process.
    await pass(LEASE_MS + 1);
    await a.own([0]);
    for (const n of all) await n.watch();
    await settle(all);
    expect(server.connected).toBe(true);
    expect(a.cores.get(0)!.view.servers().map((x) => x.serverId)).toEqual(['s']);
    const answersBefore = relays[0]!.out.get('a')?.length ?? 0;
    const second = new Player('t2');
    a.gateway.find(findIn('bravo', second), second);
    await settle(all);
    server.confirmAll();
    await settle(all);
    // The re-announced game lists p-t1: this fake server never reports its joins, and the seat the
    // game was created with is still held for it, so t2 gets a game of its own.
    expect(second.assignments.map((x) => x.gameId)).toEqual(['g-p-t2']);
    expect(relays[0]!.out.get('a')?.length ?? 0).toBe(answersBefore);
    expect(relays[0]!.inbox).toEqual([]);
  });

  it("a hello from another node claimed late does not take back a server that since said hello to the owner's node in process", async () => {
    const { timers, relays, a, b, c, all } = cluster();
    await b.own([0]);
    for (const n of all) await n.watch();
    // The server says hello through c; a stepped-down owner's blocked read takes shard 0's copy.
    const viaC = new Server('s', 8, c.gateway);
    viaC.connect();
    expect(await relays[0]!.owner('x', LEASE_MS).readInbox(10, 0)).toHaveLength(1);
    // b's seat reads newer requests meanwhile, then the server's node c dies: it says hello to b.
    const p1 = new Player('t1');
    c.gateway.find(findIn('bravo', p1), p1);
    await settle([b, c]);
    const viaB = new Server('s', 8, b.gateway);
    viaB.connect();
    await settle([b]);
    // A lease later b claims c's hello: older than the one b took in process, it is dropped.
    for (let beat = 0; beat < 4; beat++) {
      await timers.advance(LEASE_MS / 3);
      await b.own([0]);
      await b.watch();
    }
    await settle([b]);
    expect(b.cores.get(0)!.view.servers().map((x) => x.serverId)).toEqual(['s']);
    const p2 = new Player('t2');
    b.gateway.find(findIn('bravo', p2), p2);
    await settle([b]);
    expect(viaB.creates().flatMap((o) => o.playerIds)).toContain('p-t2');
  });

  it("a hello the node relayed to an earlier owner, claimed at the takeover, does not bring back games its servers ended since", async () => {
    const { timers, relays, a, b, all } = cluster();
    await a.own([0]);
    for (const n of all) await n.watch();
    const server = new Server('s', 8, b.gateway); // relayed to a, which owns shard 0
    server.connect();
    await settle(all);
    // b's earlier word about s, with a game since ended, left pending under a (its read took it).
    const stale = { serverId: 's', endpoint: 's:1', attributes: new Map(), templates: [], capacity: { maxGames: 2, maxStartsPerSecond: 0 }, runningGames: [{ gameId: 'ghost', factory: 'bravo', matchable: new Map(), playerIds: [], open: true, startedAt: 0 }] };
    await relays[0]!.gateway('b', LEASE_MS).send({ k: 'hello', node: 'b', conn: 1, hello: stale });
    // And a find after it, in the same pending batch: it must not take a seat in the ghost.
    await relays[0]!.gateway('b', LEASE_MS).send({ k: 'find', node: 'b', request: findIn('bravo', new Player('t1')) });
    expect(await relays[0]!.owner('a', LEASE_MS).readInbox(10, 0)).toHaveLength(2);
    // a dies; b takes shard 0, replays what a left pending, and announces s in process.
    for (let beat = 0; beat < 4; beat++) {
      await timers.advance(LEASE_MS / 3);
      await b.watch();
    }
    await b.own([0]);
    await b.watch();
    await settle([b]);
    const core = b.cores.get(0)!;
    expect(core.view.servers().map((x) => x.serverId)).toEqual(['s']);
    expect(core.view.gameServer('ghost')).toBeUndefined();
    expect(server.orders.filter((o) => o.kind === 'reserveSeats')).toEqual([]);
    expect(server.creates().map((o) => o.playerIds)).toEqual([['p-t1']]);
  });
});

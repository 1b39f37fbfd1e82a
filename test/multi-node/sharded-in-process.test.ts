import { describe, expect, it, vi } from 'vitest';
import { ShardsView } from '../../src/cluster/sharded/index.js';
import { shardOfFactory } from '../../src/sharding/index.js';
import { LEASE_MS, Player } from './in-process-cluster.js';
import { CONFIG, FACTORIES, SHARDS, Server, cluster, findIn, settle, type ShardedNode } from './sharded-fixture.js';

/** Node a owns shards 0 and 1 (bravo, delta), b owns 2 and 3 (echo, alpha), c none. */
async function ownedByAB() {
  const nodes = cluster();
  await nodes.a.own([0, 1]);
  await nodes.b.own([2, 3]);
  return nodes;
}

/** The same, with a server on c that has no slot: every ticket waits. */
async function waitingOnAB() {
  const nodes = await ownedByAB();
  new Server('s', 0, nodes.c.gateway).connect();
  await settle(nodes.all);
  return nodes;
}

/**
 * Factories sharded across nodes, in this process: every shard has its own relay (its own key
 * space, as `{s:<n>}` keys are in Redis) and its own owner, each node a gateway per shard behind
 * one ShardedGateway. A find on any node reaches its factory's owner; a server on a node that owns
 * nothing hosts factories of two owners, each shard seeing only its granted slots; an owner's
 * death pauses only its shards.
 */
describe('factories sharded across nodes, in process', () => {
  it('the test factories fall one in each shard', () => {
    expect(FACTORIES.map((f) => shardOfFactory(f, SHARDS))).toEqual([0, 1, 2, 3]);
  });

  it("finds on any node reach their factory's owner; a server on a third node hosts every owner's factories on its granted slots", async () => {
    const { a, b, c, all } = await ownedByAB();
    const server = new Server('s', 8, c.gateway);
    expect(server.connect().sort()).toEqual([...FACTORIES].sort());
    await settle(all);
    // Each shard's core sees the server with its share of the 8 slots, and no slot twice.
    const slots = [0, 1, 2, 3].map((shard) => (shard < 2 ? a : b).cores.get(shard)!.view.servers()[0]!.capacity.maxGames);
    expect(slots).toEqual([2, 2, 2, 2]);

    const players = FACTORIES.map((f) => new Player(`t-${f}`));
    players.forEach((p, i) => [a, b, c][i % 3]!.gateway.find(findIn(FACTORIES[i]!, p), p));
    await settle(all);
    expect(server.creates().map((o) => o.factory).sort()).toEqual([...FACTORIES].sort());
    server.confirmAll();
    await settle(all);
    expect(players.map((p) => p.assignments.map((x) => x.gameId))).toEqual(players.map((p) => [`g-p-${p.ticketId}`]));
    // Each owner ran only its own shards' tickets and games.
    for (const [shard, owner] of [[0, a], [1, a], [2, b], [3, b]] as const) {
      const core = owner.cores.get(shard)!;
      expect(core.view.gameServer(`g-p-t-${FACTORIES[shard]}`)).toBe('s');
      for (const other of FACTORIES.filter((_, i) => i !== shard)) expect(core.view.gameServer(`g-p-t-${other}`)).toBeUndefined();
    }
    expect(c.cores.size).toBe(0);
    // Each node shows its own shards: factories where they belong, the server's grants added back.
    const view = (n: ShardedNode) => new ShardsView(() => new Map([...n.cores].map(([shard, core]) => [shard, core.view])), (f) => shardOfFactory(f, SHARDS), () => CONFIG.templates);
    expect(view(a).factoryNames().sort()).toEqual(['bravo', 'delta']);
    expect(view(b).factoryNames().sort()).toEqual(['alpha', 'echo']);
    expect(view(a).servers()).toMatchObject([{ serverId: 's', capacity: { maxGames: 4 }, games: 2 }]);
    expect(view(a).snapshot()).toMatchObject({ servers: 1, factories: 2, games: 2 });
    expect(view(c).snapshot()).toMatchObject({ servers: 0, factories: 0, games: 0 });
    const stats = (n: ShardedNode) => view(n).queryStats({ factory: '', template: 'bravo', partition: new Map(), predicates: [], mode: 'all' }, 0);
    expect(stats(a)).toMatchObject({ factories: 1, games: 1 });
    expect(stats(b)).toMatchObject({ factories: 0, games: 0 });
    expect(() => view(c).queryStats({ factory: 'bravo', template: '', partition: new Map(), predicates: [], mode: 'all' }, 0)).toThrow(/another node/);
  });

  it("an owner's death pauses only its shards: the others keep assigning, and its finds wait and keep their order", async () => {
    const { timers, a, b, c, all } = await ownedByAB();
    for (const n of all) await n.watch();
    const server = new Server('s', 8, c.gateway);
    server.connect();
    await settle(all);
    // a dies (it is never moved again).
    const live = [b, c];
    const bravo = [1, 2].map((i) => new Player(`bravo-${i}`));
    for (const p of bravo) c.gateway.find(findIn('bravo', p), p);
    const echo = new Player('echo-1');
    c.gateway.find(findIn('echo', echo), echo);
    await settle(live);
    server.confirmAll();
    await settle(live);
    expect(echo.assignments).toHaveLength(1);
    expect(bravo.map((p) => p.assignments.length + p.errors.length)).toEqual([0, 0]);

    // Past a's lease, b takes its shards; gateways see the owners move and resend; the server reconnects.
    await timers.advance(LEASE_MS + 1);
    await b.own([0, 1, 2, 3]);
    for (const n of live) await n.watch();
    server.reconnectIfClosed();
    await settle(live);
    expect(server.creates().map((o) => o.playerIds[0])).toEqual(['p-bravo-1', 'p-bravo-2']);
    server.confirmAll();
    await settle(live);
    expect(bravo.map((p) => p.assignments.map((x) => x.gameId))).toEqual([['g-p-bravo-1'], ['g-p-bravo-2']]);
    expect(bravo.flatMap((p) => p.errors)).toEqual([]);
  });

  it("cancel through a node that does not hold the call asks only the shard its id's claim names, none for an unknown id; the owner check still holds", async () => {
    const { a, b, c, all } = await ownedByAB();
    const p = new Player('t-delta');
    a.gateway.find({ ...findIn('delta', p), caller: { role: 'player', subject: 'alice', playerIds: ['p-t-delta'] } }, p);
    await settle(all);
    const asked = c.gateways.map((g) => vi.spyOn(g, 'cancel'));
    const unknown = c.gateway.cancel('t-nobody', { role: 'player', subject: 'mallory', playerIds: ['mallory'] });
    await settle(all);
    expect(await unknown).toBe(false);
    expect(asked.map((spy) => spy.mock.calls.length)).toEqual([0, 0, 0, 0]);
    const denied = c.gateway.cancel('t-delta', { role: 'player', subject: 'mallory', playerIds: ['mallory'] }).then(
      () => undefined,
      (e: unknown) => e,
    );
    await settle(all);
    expect(await denied).toMatchObject({ code: 'PERMISSION_DENIED' });
    const cancelled = c.gateway.cancel('t-delta', { role: 'player', subject: 'alice', playerIds: ['p-t-delta'] });
    await settle(all);
    expect(await cancelled).toBe(true);
    expect(p.errors.map((e) => e.code)).toEqual(['CANCELLED']);
    // Only delta's shard was asked, once for mallory and once for alice.
    const delta = c.gateway.shardOf('delta');
    expect(asked.map((spy, shard) => (shard === delta ? 2 : 0) - spy.mock.calls.length)).toEqual([0, 0, 0, 0]);
  });

  it("a second call for a ticket on the node holding its first, served in process or relayed: another party is refused at once, nothing claimed; the owner's same request takes over", async () => {
    const { a, b, c, shared, all } = await waitingOnAB();
    for (const [node, factory] of [[a, 'bravo'], [c, 'echo']] as const) {
      // bravo is a's own shard (in process); echo is b's (relayed from c).
      const first = new Player(`t-${factory}`);
      node.gateway.find(findIn(factory, first), first);
      await settle(all);
      expect(first.updates.map((u) => u.kind)).toEqual(['queued']);
      const thief = new Player(`t-${factory}`);
      expect(() => node.gateway.find({ ...findIn(factory, thief), party: [{ playerId: 'mallory', score: undefined }] }, thief)).toThrow(expect.objectContaining({ code: 'ALREADY_EXISTS' }));
      expect(shared.holder('mallory')).toBeUndefined();
      const again = new Player(`t-${factory}`);
      node.gateway.find(findIn(factory, again), again);
      await settle(all);
      expect(first.errors.map((e) => e.code)).toEqual(['CANCELLED']);
      expect(again.updates.map((u) => u.kind)).toEqual(['queued']);
      expect(again.errors).toEqual([]);
    }
  });

  it("a live ticket's id in another shard is refused as a reused id, whatever the party and node: no second ticket under it, and its owner's cancel through any node holds", async () => {
    const { a, b, c, all } = await waitingOnAB();
    const alice = { role: 'player' as const, subject: 'alice', playerIds: ['alice'] };
    const first = new Player('t');
    a.gateway.find({ ...findIn('delta', first), party: [{ playerId: 'alice', score: undefined }], caller: alice }, first); // shard 1, a's
    await settle(all);
    expect(first.updates.map((u) => u.kind)).toEqual(['queued']);
    // Mallory names alice's ticket id for echo (shard 2, b's) through b; alice herself names it for bravo (shard 0).
    const mallory = new Player('t');
    b.gateway.find({ ...findIn('echo', mallory), party: [{ playerId: 'mallory', score: undefined }], caller: { role: 'player', subject: 'mallory', playerIds: ['mallory'] } }, mallory);
    const twice = new Player('t');
    c.gateway.find({ ...findIn('bravo', twice), party: [{ playerId: 'alice', score: undefined }], caller: alice }, twice);
    await settle(all);
    for (const refused of [mallory, twice]) {
      expect(refused.errors.map((e) => [e.code, e.message])).toEqual([['ALREADY_EXISTS', 'ticket_id: "t" is already used by a different request; choose a new ticket id']]);
    }
    expect(b.cores.get(2)!.view.ticket('t')).toBeUndefined();
    expect(a.cores.get(0)!.view.ticket('t')).toBeUndefined();
    // Only one shard knows "t": alice's cancel through a node that does not hold the call is hers.
    const cancelled = c.gateway.cancel('t', alice);
    await settle(all);
    expect(await cancelled).toBe(true);
    expect(first.errors.map((e) => e.code)).toEqual(['CANCELLED']);
  });

  it("a namesake refused in the live ticket's own shard does not free its id: the same id in another shard is still refused", async () => {
    const { a, b, c, shared, all } = await waitingOnAB();
    const alice = new Player('t');
    a.gateway.find({ ...findIn('delta', alice), party: [{ playerId: 'alice', score: undefined }] }, alice); // shard 1, a's
    await settle(all);
    expect(alice.updates.map((u) => u.kind)).toEqual(['queued']);
    // Mallory names "t" for delta too, through c: the claims take it for a retry, delta's core refuses it.
    const here = new Player('t');
    c.gateway.find({ ...findIn('delta', here), party: [{ playerId: 'mallory', score: undefined }] }, here);
    await settle(all);
    expect(here.errors.map((e) => e.code)).toEqual(['ALREADY_EXISTS']);
    expect(shared.holder('mallory')).toBeUndefined();
    // Then for echo (shard 2, b's): the id is still alice's ticket's.
    const there = new Player('t');
    b.gateway.find({ ...findIn('echo', there), party: [{ playerId: 'mallory', score: undefined }] }, there);
    await settle(all);
    expect(there.errors.map((e) => [e.code, e.message])).toEqual([['ALREADY_EXISTS', 'ticket_id: "t" is already used by a different request; choose a new ticket id']]);
    expect(b.cores.get(2)!.view.ticket('t')).toBeUndefined();
    expect(alice.errors).toEqual([]);
  });

  it('one live ticket per player across shards: a second find in another shard is refused until the first is answered', async () => {
    const { a, b, c, all } = await waitingOnAB();
    const solo = (ticketId: string, factory: string) => {
      const p = new Player(ticketId);
      return { p, request: { ...findIn(factory, p), party: [{ playerId: 'alice', score: undefined }] } };
    };
    const first = solo('t1', 'bravo'); // shard 0, owner a
    c.gateway.find(first.request, first.p);
    await settle(all);
    expect(first.p.errors).toEqual([]);
    expect(first.p.updates.at(-1)).toMatchObject({ kind: 'queued' });
    const second = solo('t2', 'echo'); // shard 2, owner b
    b.gateway.find(second.request, second.p);
    await settle(all);
    expect(second.p.errors.map((e) => e.code)).toEqual(['ALREADY_EXISTS']);
    expect(b.cores.get(2)!.view.ticket('t2')).toBeUndefined();
    // The first is cancelled: its owner releases alice, and she may search elsewhere.
    const cancelled = c.gateway.cancel('t1');
    await settle(all);
    expect(await cancelled).toBe(true);
    const third = solo('t3', 'echo');
    b.gateway.find(third.request, third.p);
    await settle(all);
    expect(third.p.errors).toEqual([]);
    expect(third.p.updates.at(-1)).toMatchObject({ kind: 'queued' });
  });

  it('a retry answered from the kept assignment, relayed or in process, or refused against it, leaves no one claimed: each may find again at once', async () => {
    const { a, b, c, shared, all } = await ownedByAB();
    const server = new Server('s', 8, c.gateway);
    server.connect();
    await settle(all);
    const alice = (ticketId: string, factory: string) => {
      const p = new Player(ticketId);
      return { p, request: { ...findIn(factory, p), party: [{ playerId: 'alice', score: undefined }] } };
    };
    const first = alice('t1', 'bravo');
    c.gateway.find(first.request, first.p);
    await settle(all);
    server.confirmAll();
    await settle(all);
    expect(first.p.assignments).toHaveLength(1);
    // Her client missed the answer and retries the same ticket, through another node.
    const retry = alice('t1', 'bravo');
    b.gateway.find(retry.request, retry.p);
    await settle(all);
    expect(retry.p.assignments).toEqual(first.p.assignments);
    expect(shared.holder('alice')).toBeUndefined();
    // And through the owner's own node, in process.
    const again = alice('t1', 'bravo');
    a.gateway.find(again.request, again.p);
    await settle(all);
    expect(again.p.assignments).toEqual(first.p.assignments);
    expect(shared.holder('alice')).toBeUndefined();
    // Mallory names the answered ticket with her own party: refused, and not left holding her.
    const mallory = new Player('t1');
    b.gateway.find({ ...findIn('bravo', mallory), party: [{ playerId: 'mallory', score: undefined }] }, mallory);
    await settle(all);
    expect(mallory.errors.map((e) => e.code)).toEqual(['ALREADY_EXISTS']);
    expect(shared.holder('mallory')).toBeUndefined();
    // The game over, she finds another.
    const next = alice('t2', 'echo');
    b.gateway.find(next.request, next.p);
    await settle(all);
    expect(next.p.errors).toEqual([]);
  });
});

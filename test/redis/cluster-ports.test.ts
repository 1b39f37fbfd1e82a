import { describe, expect, it } from 'vitest';
import { RedisArrivalSequence } from '../../src/redis/arrival-sequence.js';
import { RedisFactoryLease } from '../../src/redis/factory-lease.js';
import { RedisOrderOutbox } from '../../src/redis/order-outbox.js';
import { RedisPlayerIndex } from '../../src/redis/player-index.js';
import { RedisTicketBook } from '../../src/redis/ticket-book.js';
import { hasRedis, redisTargets } from './redis-targets.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let unique = 0;
const fresh = (name: string) => `${name}-${++unique}`;

describe.each(redisTargets())('cluster-wide ports on $name', (target) => {
  const needRedis = (ctx: { skip: (note?: string) => void }) => {
    if (!hasRedis) ctx.skip('redis-server is not installed');
  };

  it('factory lease: one holder at a time; a new holder gets a newer fencing token', async (ctx) => {
    needRedis(ctx);
    const factory = fresh('lease');
    const a = await RedisFactoryLease.open(target.client(), 'node-a', 60_000);
    const b = await RedisFactoryLease.open(target.client(), 'node-b', 60_000);
    const first = (await a.acquire(factory)) as { held: true; token: number };
    expect(first.held).toBe(true);
    expect(await a.acquire(factory)).toEqual(first); // ours: extended, same token
    const refused = await b.acquire(factory);
    expect(refused.held).toBe(false);
    expect(await a.renew(factory, first.token)).toBe(true);
    expect(await b.renew(factory, first.token)).toBe(false);
    expect(await a.release(factory, first.token)).toBe(true);
    const second = (await b.acquire(factory)) as { held: true; token: number };
    expect(second.held).toBe(true);
    expect(second.token).toBeGreaterThan(first.token);
    expect(await a.renew(factory, first.token)).toBe(false);
  });

  it('a paused owner whose lease expired cannot propose, assign or requeue: its token is stale', async (ctx) => {
    needRedis(ctx);
    const factory = fresh('paused');
    const client = target.client();
    const book = await RedisTicketBook.open(client);
    const a = await RedisFactoryLease.open(client, 'node-a', 5);
    const b = await RedisFactoryLease.open(client, 'node-b', 60_000);
    const tokenA = (await a.acquire(factory)) as { token: number };
    await book.intake(factory, 't1', '{}');
    await book.intake(factory, 't2', '{}');
    const entries = await book.read(factory, 'node-a', 10);
    expect(await book.propose(factory, tokenA.token, 1_000, entries)).toEqual({ ok: true });
    await sleep(30); // a's lease (5 ms) runs out, as in SIGSTOP past the lease
    const tokenB = (await b.acquire(factory)) as { held: boolean; token: number };
    expect(tokenB.held).toBe(true);
    expect(tokenB.token).toBeGreaterThan(tokenA.token);
    expect(await book.assign(factory, tokenA.token, 'game-from-a', ['t1', 't2'])).toEqual({ ok: false, stale: true });
    expect(await book.requeueExpired(factory, tokenA.token, 5_000)).toBeUndefined();
    expect(await book.state(factory, 't1')).toBe('proposed');
    expect(await book.assign(factory, tokenB.token, 'game-from-b', ['t1', 't2'])).toEqual({ ok: true });
    expect((await book.intake(factory, 't1', '{}')).assignment).toBe('game-from-b');
  });

  it('tickets: intake is idempotent by id, proposals are all-or-none, assignment happens once', async (ctx) => {
    needRedis(ctx);
    const factory = fresh('tickets');
    const client = target.client();
    const book = await RedisTicketBook.open(client);
    const token = ((await (await RedisFactoryLease.open(client, 'n', 60_000)).acquire(factory)) as { token: number }).token;
    expect(await book.intake(factory, 'a', 'A')).toEqual({ created: true, state: 'waiting', priority: 1, assignment: undefined });
    expect(await book.intake(factory, 'b', 'B')).toMatchObject({ created: true, priority: 2 });
    expect(await book.intake(factory, 'a', 'A again')).toEqual({ created: false, state: 'waiting', priority: 1, assignment: undefined });
    const read = await book.read(factory, 'n', 10);
    expect(read.map((e) => [e.ticketId, e.priority])).toEqual([['a', 1], ['b', 2]]);
    expect(await book.propose(factory, token, 1_000, [read[0]!])).toEqual({ ok: true });
    expect(await book.propose(factory, token, 1_000, read)).toEqual({ ok: false, stale: false, ticketId: 'a', state: 'proposed' });
    expect(await book.state(factory, 'b')).toBe('waiting'); // none of the second proposal took effect
    expect(await book.assign(factory, token, 'g1', ['a'])).toEqual({ ok: true });
    expect(await book.assign(factory, token, 'g2', ['a'])).toEqual({ ok: false, stale: false, ticketId: 'a', state: 'assigned' });
    expect(await book.cancel(factory, 'a')).toBe('assigned');
    expect(await book.state(factory, 'a')).toBe('assigned');
    expect(await book.cancel(factory, 'b')).toBe('waiting');
    expect(await book.cancel(factory, 'never')).toBeUndefined();
    // The assigned ticket's intake entry was acknowledged; b's is still pending (the owner skips it).
    const pending = (await client.xpending(`gf:{${factory}}:intake`, 'owner')) as [number];
    expect(pending[0]).toBe(1);
  });

  it('proposals past their deadline return to the line at their original priority', async (ctx) => {
    needRedis(ctx);
    const factory = fresh('requeue');
    const client = target.client();
    const book = await RedisTicketBook.open(client);
    const token = ((await (await RedisFactoryLease.open(client, 'n', 60_000)).acquire(factory)) as { token: number }).token;
    await book.intake(factory, 'x', '');
    await book.intake(factory, 'y', '');
    const read = await book.read(factory, 'n', 10);
    await book.propose(factory, token, 100, [read[0]!]);
    await book.propose(factory, token, 300, [read[1]!]);
    expect(await book.requeueExpired(factory, token, 200)).toEqual(['x']);
    expect(await book.state(factory, 'x')).toBe('waiting');
    expect(await book.state(factory, 'y')).toBe('proposed');
    expect((await book.read(factory, 'n', 10)).map((e) => [e.ticketId, e.priority])).toEqual([['x', 1]]);
  });

  it('a new owner claims the intake entries the dead owner read but never finished', async (ctx) => {
    needRedis(ctx);
    const factory = fresh('takeover');
    const book = await RedisTicketBook.open(target.client());
    await book.intake(factory, 'p', '');
    await book.intake(factory, 'q', '');
    expect(await book.read(factory, 'dead-node', 10)).toHaveLength(2);
    expect(await book.read(factory, 'new-owner', 10)).toEqual([]);
    const claimed = await book.read(factory, 'new-owner', 10, 0);
    expect(claimed.map((e) => e.ticketId)).toEqual(['p', 'q']);
  });

  it('players: a party is claimed all or none, one live ticket per player', async (ctx) => {
    needRedis(ctx);
    const players = await RedisPlayerIndex.open(target.client());
    const [p1, p2, p3] = [fresh('p'), fresh('p'), fresh('p')];
    expect(await players.claim('t1', [p1, p2])).toBeUndefined();
    expect(await players.claim('t2', [p3, p2])).toEqual({ playerId: p2, ticketId: 't1' });
    expect(await players.holder(p3)).toBeUndefined();
    expect(await players.claim('t1', [p1, p2])).toBeUndefined(); // a resume
    expect(await players.releaseCount('t2', [p1])).toBe(0);
    expect(await players.releaseCount('t1', [p1, p2])).toBe(2);
    expect(await players.claim('t2', [p3, p2])).toBeUndefined();
    expect(await players.holder(p2)).toBe('t2');
    await expect(players.claim('t3', [])).rejects.toThrow(/playerIds/);
  });

  it('arrival sequence: concurrent callers on one factory get distinct increasing numbers', async (ctx) => {
    needRedis(ctx);
    const sequence = await RedisArrivalSequence.forFactory(target.client(), fresh('arrivals'));
    const got = await Promise.all(Array.from({ length: 50 }, () => sequence.next()));
    expect(new Set(got).size).toBe(50);
    expect(Math.min(...got)).toBe(1);
    expect(Math.max(...got)).toBe(50);
  });

  it('orders: delivered once per order id; a dead node\'s pending and unread orders are taken over', async (ctx) => {
    needRedis(ctx);
    const client = target.client();
    const [nodeA, nodeB] = [fresh('node-a'), fresh('node-b')];
    const a = await RedisOrderOutbox.open(client, nodeA);
    const b = await RedisOrderOutbox.open(client, nodeB);
    const first = await a.deliver(nodeB, { orderId: 'o1', serverId: 's1', payload: 'create' });
    expect(await a.deliver(nodeB, { orderId: 'o1', serverId: 's1', payload: 'create' })).toEqual({ entryId: first.entryId, duplicate: true });
    await a.deliver(nodeB, { orderId: 'o2', serverId: 's2', payload: 'seats' });
    expect((await b.read(1)).map((o) => o.orderId)).toEqual(['o1']); // read, then B dies before acking
    const taken = await a.takeOver(nodeB, 0, 10);
    expect(taken.map((o) => [o.orderId, o.serverId, o.payload])).toEqual([
      ['o1', 's1', 'create'],
      ['o2', 's2', 'seats'],
    ]);
    await a.ack(taken.map((o) => o.entryId), nodeB);
    expect(await a.takeOver(nodeB, 0, 10)).toEqual([]);
    const pending = (await client.xpending(`gf:{node:${nodeB}}:orders`, 'orders')) as [number];
    expect(pending[0]).toBe(0);
  });
});

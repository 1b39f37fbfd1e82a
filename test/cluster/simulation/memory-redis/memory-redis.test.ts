/**
 * What only the memory Redis does (the simulator's controls): the clock it is given, replies
 * delivered when the scheduler says, partitions, crashes that keep what a persistence mode keeps.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONNECTION_CLOSED, MemoryRedis, NOT_CONNECTED, type MemoryRedisClient } from '../../../../src/cluster/simulation/memory-redis/index.js';
import { ShardLeases, StaleShardOwner } from '../../../../src/redis/shards/index.js';
import type { RedisClient } from '../../../../src/redis/script-set.js';

const T0 = 1_800_000_000_000;

function setUp() {
  const clock = { now: T0 };
  const server = new MemoryRedis({ now: () => clock.now });
  return { clock, server };
}

const settled = (p: Promise<unknown>) => p.then((v) => ({ ok: v }), (e: Error) => ({ error: e.message }));

describe('the memory Redis', () => {
  it('keys expire on its clock: lazily on access, and on a sweep', async () => {
    const { clock, server } = setUp();
    const r = server.client();
    await r.set('a', '1', 'PX', 100);
    await r.set('b', '1', 'PX', 50);
    clock.now += 100; // Redis: a key lives while now <= its time
    expect(await r.pttl('a')).toBe(0);
    expect(await r.get('a')).toBe('1');
    clock.now += 1;
    expect(await r.get('a')).toBeNull();
    expect(server.sweep()).toBe(1); // b, never read since it lapsed
    expect(await r.dbsize()).toBe(0);
  });

  it('TIME is the clock in seconds and microseconds; a script sees one time throughout', async () => {
    const { clock, server } = setUp();
    clock.now = T0 + 123.456;
    const r = server.client();
    expect(await r.time()).toEqual([String(T0 / 1000), '123456']);
    expect(await r.eval("local a = redis.call('TIME'); local b = redis.call('TIME'); return a[2] == b[2] and 1 or 0", 0)).toBe(1);
  });

  it('delivers each reply when the hook says, in order per client, so a scheduler can interleave clients', async () => {
    const { server } = setUp();
    const held: (() => void)[] = [];
    const a = server.client({ deliver: (settle) => held.push(settle) }, 'a');
    const b = server.client({ deliver: (settle) => held.push(settle) }, 'b');
    held.splice(0); // their 'ready' events
    const order: string[] = [];
    const first = a.incr('n').then((v) => order.push(`a:${v}`));
    const second = b.incr('n').then((v) => order.push(`b:${v}`));
    const third = a.incr('n').then((v) => order.push(`a:${v}`));
    expect(held).toHaveLength(3); // every command ran on arrival; no reply is out yet
    held[1]!(); // b's reply first
    held[0]!(); // then a's first; a's replies keep their order whichever settle runs
    held[2]!();
    await Promise.all([first, second, third]);
    expect(order).toEqual(['b:2', 'a:1', 'a:3']);
  });

  it('a request can be held on the way too: it runs when the hook sends it, after what others did meanwhile', async () => {
    const { server } = setUp();
    const sends: (() => void)[] = [];
    const slow = server.client({ transmit: (send) => sends.push(send) }, 'slow');
    const fast = server.client();
    const late = slow.set('k', 'slow');
    await fast.set('k', 'fast');
    sends.shift()!();
    await late;
    expect(await fast.get('k')).toBe('slow');
  });

  it('a cut client fails its calls and loses replies not yet delivered; healed, it works again', async () => {
    const { server } = setUp();
    const held: (() => void)[] = [];
    const r = server.client({ deliver: (settle) => held.push(settle) });
    held.splice(0).forEach((s) => s());
    const events: string[] = [];
    r.on('close', () => events.push('close')).on('ready', () => events.push('ready'));
    const written = settled(r.set('k', 'v'));
    r.cut();
    const refused = settled(r.get('k'));
    held.splice(0).forEach((s) => s());
    // The write reached Redis before the cut, but its reply was lost: the caller cannot know.
    expect(await written).toEqual({ error: CONNECTION_CLOSED });
    expect(await refused).toEqual({ error: NOT_CONNECTED });
    r.heal();
    const read = r.get('k');
    held.splice(0).forEach((s) => s());
    expect(await read).toBe('v');
    expect(events).toEqual(['close', 'ready']);
  });

  it('MULTI/EXEC runs whole; a command Redis would not queue refuses the transaction', async () => {
    const { server } = setUp();
    const r = server.client();
    expect(await r.multi().set('a', '1').incr('a').hset('a', 'f', 'v').exec()).toEqual([[null, 'OK'], [null, 2], [expect.objectContaining({ message: expect.stringMatching(/^WRONGTYPE/) })]]);
    await expect(r.multi().set('b', '1').call('NOPE').exec()).rejects.toThrow(/EXECABORT/);
    expect(await r.exists('b')).toBe(0);
  });

  it('while down every call fails as ioredis does on a refused connection; clients see close and ready', async () => {
    const { server } = setUp();
    const r = server.client();
    await r.set('k', 'v');
    const events: string[] = [];
    r.on('close', () => events.push('close')).on('reconnecting', () => events.push('reconnecting')).on('ready', () => events.push('ready'));
    server.crash('all');
    expect(r.status).toBe('reconnecting');
    await expect(r.get('k')).rejects.toThrow(NOT_CONNECTED);
    server.recover();
    expect(await r.get('k')).toBe('v');
    expect(events).toEqual(['close', 'reconnecting', 'ready']);
  });

  it("restarts keep what the persistence mode keeps: all (AOF always), none, or all but the last window's writes (everysec)", async () => {
    const { clock, server } = setUp();
    const r = server.client();
    await r.set('old', '1');
    await r.hset('h', 'a', '1');
    await r.set('px', 'v', 'PX', 10_000);
    clock.now += 2_000;
    await r.set('recent', '1');
    await r.hset('h', 'b', '2');
    await r.eval("redis.call('INCR', 'counter'); redis.call('INCR', 'counter')", 0); // one script: kept or lost whole
    clock.now += 500;
    server.restart({ keep: { lostLastMs: 1_000 } });
    expect(await r.mget('old', 'recent', 'counter', 'px')).toEqual(['1', null, null, 'v']);
    expect(await r.hgetall('h')).toEqual({ a: '1' });
    expect(await r.pttl('px')).toBe(7_500); // the expiry is absolute, as AOF writes it
    await r.set('after', '1');
    server.restart({ keep: 'all' });
    expect(await r.mget('old', 'after')).toEqual(['1', '1']);
    server.restart({ keep: 'none' });
    expect(await r.dbsize()).toBe(0);
    expect(() => server.restart({ keep: { lostLastMs: 60_000 } })).toThrow(RangeError);
  });

  it('the adapters run unchanged: a defined script reloads itself after a restart lost the script cache; a stale owner is refused after a restart without persistence', async () => {
    const { clock, server } = setUp();
    const client = server.client() as unknown as RedisClient;
    const leases = await ShardLeases.open(client, 'a', 5_000);
    const term = await leases.acquire(3);
    if (!term.held) throw new Error('a free shard');
    await leases.storeTicket(3, term.token, 't1', 'queued');
    clock.now += 1_000;
    server.restart({ keep: 'all' });
    expect(await leases.renew(3, term.token)).toBe(true); // EVALSHA -> NOSCRIPT -> EVAL
    server.restart({ keep: 'none' });
    clock.now += 1;
    const other = await ShardLeases.open(server.client() as unknown as RedisClient, 'b', 5_000);
    const next = await other.acquire(3);
    if (!next.held) throw new Error('the shard is free after a restart without persistence');
    expect(next.token).toBeGreaterThan(term.token);
    await expect(leases.storeTicket(3, term.token, 't1', 'stale')).rejects.toBeInstanceOf(StaleShardOwner);
  });

  it('publish reaches subscribers through their delivery hook; a restart drops them until the client resubscribes on reconnect', async () => {
    const { server } = setUp();
    const publisher = server.client();
    const subscriber: MemoryRedisClient = server.client();
    const heard: string[] = [];
    subscriber.on('message', (channel: string, message: string) => heard.push(`${channel}:${message}`));
    await subscriber.subscribe('news');
    expect(await publisher.publish('news', 'one')).toBe(1);
    server.restart({ keep: 'none' });
    expect(await publisher.publish('news', 'two')).toBe(1);
    await Promise.resolve();
    expect(heard).toEqual(['news:one', 'news:two']);
  });

  it('lets the simulator read the data outside any client, while down too, and nothing else', async () => {
    const { server } = setUp();
    await server.client().hset('h', 'f', 'v');
    server.crash('all');
    expect(server.inspect('HGETALL', 'h')).toEqual(['f', 'v']);
    expect(() => server.inspect('SET', 'k', 'v')).toThrow(RangeError);
    expect(() => server.inspect('GET', 'h')).toThrow(/WRONGTYPE/);
  });

  it('replays exactly: the same calls on the same clock give the same replies, tokens and stream ids included', async () => {
    const run = async () => {
      const { clock, server } = setUp();
      const client = server.client() as unknown as RedisClient;
      const leases = await ShardLeases.open(client, 'a', 1_000);
      const seen: unknown[] = [];
      for (let i = 0; i < 5; i++) {
        clock.now += 7 * i;
        seen.push(await leases.acquire(i % 2), await client.xadd('s', '*', 'i', String(i)), await client.time());
        if (i === 2) server.restart({ keep: { lostLastMs: 10 } });
      }
      return seen;
    };
    expect(await run()).toEqual(await run());
  });

  it('takes time from its clock only: no Date, timer or random source inside', () => {
    const folder = new URL('../../../../src/cluster/simulation/memory-redis/', import.meta.url);
    const files = (dir: URL): URL[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(new URL(`${e.name}/`, dir)) : e.name.endsWith('.ts') ? [new URL(e.name, dir)] : []));
    for (const file of files(folder)) {
      const code = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
      expect(code, file.pathname).not.toMatch(/Date\.now|new Date|setTimeout|setInterval|setImmediate|Math\.random|performance\.now/);
    }
  });
});

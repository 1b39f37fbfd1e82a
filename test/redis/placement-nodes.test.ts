import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisPlacement } from '../../src/redis/redis-placement.js';
import { hasRedis } from './redis-targets.js';
import { RedisServer } from './redis-server.js';

/** Several coordinator nodes, each with its own connection, on one Redis. */
describe('RedisPlacement shared by several nodes', () => {
  let server: RedisServer | undefined;
  const clients: Redis[] = [];
  beforeAll(async () => {
    if (!hasRedis) return;
    server = await RedisServer.start();
  });
  afterAll(async () => {
    for (const c of clients) c.disconnect();
    await server?.stop();
  });
  const node = async (prefix: string) => {
    const client = new Redis(server!.port, '127.0.0.1');
    clients.push(client);
    return RedisPlacement.open({ client, policy: 'fill', now: () => 0, prefix });
  };

  it('servers announced on one node are claimed from another; concurrent places never over-claim', async (ctx) => {
    if (!hasRedis) return ctx.skip('redis-server is not installed');
    const [a, b, c] = [await node('gf:{p1}'), await node('gf:{p1}'), await node('gf:{p1}')];
    await a.addServer('s1', ['f'], { maxGames: 4, maxStartsPerSecond: 0 }, 0);
    await a.addServer('s2', ['f'], { maxGames: 6, maxStartsPerSecond: 0 }, 0);
    const answers = await Promise.all(Array.from({ length: 60 }, (_, i) => (i % 2 === 0 ? b : c).place('f', `r${i}`, i)));
    const claimed = answers.filter((p) => 'serverId' in p);
    expect(claimed).toHaveLength(10);
    expect(claimed.filter((p) => 'serverId' in p && p.serverId === 's1')).toHaveLength(4);
    // One line, in original priority, whatever order the two nodes' calls reached Redis in.
    const queued = answers.flatMap((p, i) => ('position' in p ? [i] : []));
    expect(queued).toHaveLength(50);
    const line = await a.head('f', 60);
    expect(line).toEqual([...queued].sort((x, y) => x - y).map((i) => `r${i}`));
    expect(await Promise.all(line.map((id) => c.position(id)))).toEqual(line.map((_, k) => k + 1));
    expect(await c.freeSlots()).toBe(0);
  });

  it('FIFO across nodes: the line is one, whichever node queued or drains', async (ctx) => {
    if (!hasRedis) return ctx.skip('redis-server is not installed');
    const [a, b] = [await node('gf:{p2}'), await node('gf:{p2}')];
    for (let i = 0; i < 6; i++) await (i % 2 === 0 ? a : b).place('f', `r${i}`, i);
    expect(await b.head('f', 6)).toEqual(['r0', 'r1', 'r2', 'r3', 'r4', 'r5']);
    expect(await a.position('r3')).toBe(4);
    await b.addServer('s', ['f'], { maxGames: 3, maxStartsPerSecond: 0 }, 0);
    const [fromA, fromB] = await Promise.all([a.drain(), b.drain()]);
    const served = [...fromA.placed, ...fromB.placed].map((p) => p.requestId).sort();
    expect(served).toEqual(['r0', 'r1', 'r2']); // each request placed once, by one of the two
    expect(await a.position('r3')).toBe(1);
  });
});

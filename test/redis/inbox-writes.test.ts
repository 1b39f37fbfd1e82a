import { describe, expect, it } from 'vitest';
import { InboxWrites } from '../../src/redis/relay/inbox-writes.js';
import { shardRelayKeys } from '../../src/redis/relay/relay-keys.js';
import { defineScripts } from '../../src/redis/script-set.js';
import { entriesOfRead } from '../../src/redis/stream-reply.js';
import { hasRedis, redisTargets } from './redis-targets.js';

/** A sharded node's requests of one tick to its shards' owners go out together, each inbox in the node's order. */
describe.each(redisTargets())('inbox writes on $name', (target) => {
  it("a tick's requests reach each shard's inbox in the order made; a find whose assignment is kept is answered from it and not forwarded", async (ctx) => {
    if (!hasRedis) return ctx.skip('redis-server is not installed');
    const client = target.client();
    await defineScripts(client);
    const writes = new InboxWrites(client);
    const [one, two] = [shardRelayKeys(40 + target.name.length), shardRelayKeys(50 + target.name.length)];
    await client.set(one.assigned('done'), '{"k":"kept"}');

    const answers = await Promise.all([
      writes.send(one, 'hello'),
      writes.forwardFind(two, 'fresh', 'find fresh'),
      writes.forwardFind(one, 'done', 'find done'),
      writes.send(two, 'event'),
      writes.send(one, 'bye'),
    ]);
    expect(answers).toEqual([undefined, undefined, '{"k":"kept"}', undefined, undefined]);
    const inbox = async (keys: typeof one) => entriesOfRead(await client.call('XREAD', 'STREAMS', keys.inbox, '0-0')).map(([, fields]) => fields[1]);
    expect(await inbox(one)).toEqual(['hello', 'bye']);
    expect(await inbox(two)).toEqual(['find fresh', 'event']);
  });
});

import { GameServer } from '@gamefactory/game-server-sdk';
import { Matchmaker, type Assignment } from '@gamefactory/matchmaking-client';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { redisBinaryPresent, RedisServer } from '../redis/redis-server.js';
import { NodeProcess } from '../multi-node/node-process.js';
import { ownedShards } from '../multi-node/shard-log.js';
import { until } from '../support/until.js';

const NARROW = `
placement: { policy: fill, createTimeoutMs: 10000, maxQueuedPerFactory: 1000, ticketTtlSeconds: 600 }
factories:
  - name: duel
    competitive:
      teams: 2
      teamSize: 1
      batch: { maxTickets: 1000, intervalMs: 200 }
      expansion: [{ afterSeconds: 0, maxScoreGap: 50 }]
`;
const WIDER = `${NARROW.replace('maxScoreGap: 50 }]', 'maxScoreGap: 50 }, { afterSeconds: 1, maxScoreGap: 1000 }]')}  - name: coop
    partitioning: { mode: [story, raid] }
    cooperative: { maxPlayers: 2 }
`;

/**
 * Reload in the sharded mode (the default with --redis), node by node: every node runs matchers
 * for its own shards, so each node's reload reaches every core it runs (not one of them), its
 * finds resolve the new templates, and a server connected before the reload serves the factories
 * the new templates make, in whichever shard they fall.
 */
describe('reloading every node of a sharded cluster', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gamefactory-sharded-reload-'));
  const config = join(dir, 'factories.yaml');
  writeFileSync(config, NARROW);
  const nodes: NodeProcess[] = [];
  let redis: RedisServer | undefined;
  afterAll(async () => {
    await Promise.all(nodes.map((n) => n.stop()));
    await redis?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('each node applies the file to all its shards; new templates are served by servers connected before', { timeout: 180_000 }, async () => {
    expect(redisBinaryPresent(), 'redis-server is needed (apt-get install -y redis-server)').toBe(true);
    redis = await RedisServer.start();
    const env = { GAMEFACTORY_CONFIG: config, GAMEFACTORY_INSECURE: 'true', GAMEFACTORY_CLUSTER_MODE: 'sharded' };
    const a = await NodeProcess.start(redis.url, env);
    nodes.push(a);
    await until(() => ownedShards(a.log).size === 64, 30_000, 'a takes every shard');
    const b = await NodeProcess.start(redis.url, env);
    nodes.push(b);
    await until(() => ownedShards(b.log).size === 32 && ownedShards(a.log).size === 32, 30_000, 'the shards spread 32/32');

    const server = new GameServer({
      addresses: [a.address, b.address],
      serverId: 'gs1',
      endpoint: '127.0.0.1:7001',
      capacity: { maxGames: 100 },
      createGame: () => {},
      reconnect: { initialDelayMs: 50, maxDelayMs: 500 },
    });
    await server.start();
    const players = new Matchmaker({ addresses: [b.address, a.address] });
    const find = (id: string, template: string, score?: number, partition: Record<string, string> = {}, via = players): Promise<Assignment> =>
      via.find({ ticketId: id, template, party: [score === undefined ? id : { playerId: id, score }], partition }).assignment;

    // 300 points apart: under the running windows they never pair.
    let paired = false;
    const far = Promise.all([find('far-a', 'duel', 20_000), find('far-b', 'duel', 20_300)]).then((pair) => ((paired = true), pair));
    await new Promise((r) => setTimeout(r, 1500));
    expect(paired).toBe(false);
    writeFileSync(config, WIDER);
    for (const node of [a, b]) {
      const from = node.log.length;
      node.signal('SIGHUP');
      await node.waitFor(/"msg":"configuration reloaded"/, 30_000, from);
    }
    // Whichever node owns duel's shard, its core took the wider window.
    const [x, y] = await Promise.race([far, new Promise<never>((_, reject) => setTimeout(() => reject(new Error('the far pair was not paired within 30 s of the reload')), 30_000))]);
    expect(x.gameId).toBe(y.gameId);
    // The new template through either node, served by the server connected before the reload.
    for (const [i, node] of [a, b].entries()) {
      const via = new Matchmaker({ addresses: node.address });
      for (const mode of ['story', 'raid']) expect((await find(`coop-${mode}-${i}`, 'coop', undefined, { mode }, via)).serverId).toBe('gs1');
      via.close();
    }
    players.close();
    server.close();
  });
});

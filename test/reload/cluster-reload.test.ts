import { GameServer } from '@gamefactory/game-server-sdk';
import { Matchmaker, type Assignment } from '@gamefactory/matchmaking-client';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { redisBinaryPresent, RedisServer } from '../redis/redis-server.js';
import { NodeProcess } from '../multi-node/node-process.js';

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
    partitioning: { mode: [story] }
    cooperative: { maxPlayers: 2 }
`;

/**
 * Reload in a cluster of real nodes on a real Redis, node by node as docs/configuration.md tells
 * an operator: a node that does not hold the matcher takes the file and changes nothing yet; the
 * matcher's node applies it for the whole cluster; after the matcher's node dies, the node that
 * takes over runs the reloaded configuration.
 */
describe('reloading every node of a cluster', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gamefactory-cluster-reload-'));
  const config = join(dir, 'factories.yaml');
  writeFileSync(config, NARROW);
  const nodes: NodeProcess[] = [];
  let redis: RedisServer | undefined;
  afterAll(async () => {
    await Promise.all(nodes.map((n) => n.stop()));
    await redis?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('applies where the matcher runs, and survives a failover', { timeout: 180_000 }, async () => {
    expect(redisBinaryPresent(), 'redis-server is needed (apt-get install -y redis-server)').toBe(true);
    redis = await RedisServer.start();
    const env = { GAMEFACTORY_CONFIG: config, GAMEFACTORY_INSECURE: 'true' };
    const a = await NodeProcess.start(redis.url, env);
    nodes.push(a);
    await a.waitFor(/this node now runs the matcher/, 30_000);
    const b = await NodeProcess.start(redis.url, env);
    nodes.push(b);

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
    const assigned = new Set<string>();
    const find = (id: string, template: string, score?: number, partition: Record<string, string> = {}): Promise<Assignment> =>
      players.find({ ticketId: id, template, party: [score === undefined ? id : { playerId: id, score }], partition }).assignment.then((x) => {
        assigned.add(id);
        return x;
      });

    // 300 points apart: under the running windows they never pair.
    const far = Promise.all([find('far-a', 'duel', 20_000), find('far-b', 'duel', 20_300)]);
    writeFileSync(config, WIDER);
    // The node without the matcher first: it takes the file, the matcher's windows stay as they were.
    const fromB = b.log.length;
    b.signal('SIGHUP');
    await b.waitFor(/"msg":"configuration reloaded"/, 30_000, fromB);
    const fromA = a.log.length;
    expect(assigned.size).toBe(0);
    // Then the matcher's node: the whole cluster runs the new file.
    a.signal('SIGHUP');
    await a.waitFor(/"changes":\["template \\"duel\\": competitive.expansion changed","template \\"coop\\" added"\],"msg":"configuration reloaded"/, 30_000, fromA);
    const [x, y] = await far;
    expect(x.gameId).toBe(y.gameId);
    // The server connected before the reload serves the new template, asked through the other node.
    expect((await find('coop-1', 'coop', undefined, { mode: 'story' })).serverId).toBe('gs1');

    // The matcher's node dies; the node that takes over builds its core from the file it reloaded.
    await a.stop();
    await b.waitFor(/this node now runs the matcher/, 60_000);
    const [c, d] = await Promise.all([find('late-a', 'duel', 40_000), find('late-b', 'duel', 40_400)]);
    expect(c.gameId).toBe(d.gameId);
    expect((await find('coop-2', 'coop', undefined, { mode: 'story' })).factory).toBe('coop/mode=story');
    players.close();
    server.close();
  });
});

import { credentials, type ServiceError } from '@grpc/grpc-js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCoordinatorProcess, type RunningCoordinator } from '../../src/app/coordinator-process.js';
import { parseConfig } from '../../src/config/load.js';
import { silentLog } from '../../src/coordinator/ports.js';
import { RatingsClient, type GetRatingResponse } from '../../src/generated/gamefactory/v1/ratings.js';
import { MatchmakerClient } from '../../src/generated/gamefactory/v1/matchmaker.js';
import { eventually } from '../integration/harness.js';
import { RedisServer, redisBinaryPresent } from '../redis/redis-server.js';
import { findGame } from '../support/find-game.js';
import { GameServerConnection } from '../support/game-server-connection.js';

/**
 * Ratings in cluster mode live in the shared Redis: a result reported by a game server through
 * one node (the matcher owner records it) is what every other node's Ratings service answers.
 */
const YAML = `
placement: { policy: fill, createTimeoutMs: 5000, ticketTtlSeconds: 60 }
servers: { keepaliveIntervalMs: 1000 }
ladders:
  - name: duel-ranked
    system: glicko2
    minGameSeconds: 0
factories:
  - name: duel
    competitive:
      teams: 2
      teamSize: 1
      batch: { maxTickets: 100, intervalMs: 50 }
      expansion: [{ afterSeconds: 0, maxScoreGap: 100 }]
      ladder: duel-ranked
`;

const hasRedis = redisBinaryPresent();

describe.runIf(hasRedis || process.env.CI === 'true').each(['relay', 'sharded'] as const)('ratings in cluster mode (%s)', (clusterMode) => {
  let redis: RedisServer;
  const nodes: RunningCoordinator[] = [];
  const dirs: string[] = [];
  const closers: (() => void)[] = [];

  beforeAll(async () => {
    redis = await RedisServer.start();
    for (let i = 0; i < 2; i++) {
      const dataDir = mkdtempSync(join(tmpdir(), 'gf-cluster-ratings-'));
      dirs.push(dataDir);
      nodes.push(await startCoordinatorProcess({ config: parseConfig(YAML), listen: '127.0.0.1:0', metricsListen: '127.0.0.1:0', dataDir, log: silentLog, redis: redis.url, clusterMode }));
    }
  }, 30_000);
  afterAll(async () => {
    for (const close of closers) close();
    await Promise.all(nodes.map((n) => n.stop()));
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    await redis?.stop();
  });

  it('a result reported through one node (the relay: the owner) is answered by the other node', async () => {
    // Sharded, every node runs cores (the duel's shard is on one of them); relayed, one does.
    await eventually(() => (clusterMode === 'sharded' ? nodes.every((n) => n.currentCore() !== undefined) : nodes.some((n) => n.currentCore() !== undefined)), 10_000);
    const owner = nodes.find((n) => n.currentCore() !== undefined)!;
    const other = nodes.find((n) => n !== owner)!;
    const address = (n: RunningCoordinator) => `127.0.0.1:${n.grpcPort}`;

    const server = new GameServerConnection(address(owner), { serverId: 's1', endpoint: 's1.example:7777', maxGames: 10 }, { autoJoin: true });
    closers.push(() => server.close());
    await server.connect();
    const clients = nodes.map((n) => new MatchmakerClient(address(n), credentials.createInsecure()));
    closers.push(() => clients.forEach((c) => c.close()));
    const [a, b] = await Promise.all([
      findGame(clients[0]!, { ticketId: 'ta', template: 'duel', party: ['pa'] }),
      findGame(clients[1]!, { ticketId: 'tb', template: 'duel', party: ['pb'] }),
    ]);
    const gameId = a.assignment.gameId;
    expect(b.assignment.gameId).toBe(gameId);
    // Results are timed by the coordinator's clock: the game must really last the ladder's 1 s minimum.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    server.endGame(gameId);
    server.reportResult({ gameId, teams: [{ playerIds: ['pa'], rank: 0 }, { playerIds: ['pb'], rank: 1 }], durationSeconds: 60, leftEarly: [] });
    await eventually(() => server.resultAcks.some((ack) => ack.gameId === gameId), 10_000);
    expect(server.resultAcks.find((ack) => ack.gameId === gameId)).toMatchObject({ applied: true, reason: '' });

    const ratings = new RatingsClient(address(other), credentials.createInsecure());
    closers.push(() => ratings.close());
    const get = (playerId: string) =>
      new Promise<GetRatingResponse>((resolve, reject) =>
        ratings.getRating({ ladder: 'duel-ranked', playerId }, (e: ServiceError | null, r: GetRatingResponse) => (e ? reject(e) : resolve(r))),
      );
    let winner: GetRatingResponse | undefined;
    await eventually(() => {
      void get('pa').then((r) => (winner = r), () => undefined);
      return (winner?.rating?.games ?? 0) === 1;
    }, 10_000);
    const loser = await get('pb');
    expect(loser.rating?.games).toBe(1);
    expect(winner!.rating!.mean).toBeGreaterThan(loser.rating!.mean);
  });
});

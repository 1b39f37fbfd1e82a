import { credentials } from '@grpc/grpc-js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findGame } from '../support/find-game.js';
import { GameServerConnection } from '../support/game-server-connection.js';
import { startCoordinatorProcess, type RunningCoordinator } from '../../src/app/coordinator-process.js';
import { parseConfig } from '../../src/config/load.js';
import { silentLog } from '../../src/coordinator/ports.js';
import { MatchmakerClient } from '../../src/generated/gamefactory/v1/matchmaker.js';
import { eventually, DIABLO_YAML } from '../integration/harness.js';
import { RedisServer, redisBinaryPresent } from '../redis/redis-server.js';

/**
 * One builder for the core: the core a cluster node builds when it takes the matcher has the
 * same ratings store, worker threads and event hub (which metrics and the operator page follow)
 * as the core of an embedded process, and /metrics and the operator page show what it does.
 */
const hasRedis = redisBinaryPresent();
const PARTITION = { difficulty: 'hard', hardcore: false, version: 'v201' };

async function start(redis?: string): Promise<{ running: RunningCoordinator; close(): Promise<void> }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'gamefactory-owner-'));
  const running = await startCoordinatorProcess({ config: parseConfig(DIABLO_YAML), listen: '127.0.0.1:0', metricsListen: '127.0.0.1:0', dataDir, log: silentLog, redis, clusterMode: 'relay' });
  return {
    running,
    async close() {
      await running.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A game server and one FindGame through the process; then what /metrics and the operator page say. */
async function findThrough(running: RunningCoordinator) {
  const address = `127.0.0.1:${running.grpcPort}`;
  const server = new GameServerConnection(address, { serverId: 'owner-s', endpoint: 'owner-s:7777', attributes: { ...PARTITION }, templates: ['diablo'], maxGames: 4 }, { autoJoin: true });
  const client = new MatchmakerClient(address, credentials.createInsecure());
  try {
    await server.connect();
    const result = await findGame(client, { ticketId: 'owner-t1', template: 'diablo', party: ['owner-p1'], partition: PARTITION });
    expect(result.assignment.serverId).toBe('owner-s');
    const http = `http://127.0.0.1:${running.metricsPort}`;
    await eventually(() => running.coordinator.view.snapshot().games === 1);
    const metrics = await (await fetch(`${http}/metrics`)).text();
    // The operator page samples the core once a tick.
    let factories: string[] = [];
    for (let i = 0; i < 100 && factories.length === 0; i++) {
      const overview = (await (await fetch(`${http}/api/overview`)).json()) as { factories: { rows: { name: string }[] } };
      factories = overview.factories.rows.map((f) => f.name);
      if (factories.length === 0) await new Promise((r) => setTimeout(r, 50));
    }
    return { metrics, factories };
  } finally {
    client.close();
    server.close();
  }
}

/** The core this process runs was built with the process's environment, and what it does shows. */
async function expectOneBuilder(running: RunningCoordinator): Promise<void> {
  const core = running.currentCore()!;
  expect(core.parts.ratings).toBe(running.environment.ratings);
  expect(core.parts.workers).toBe(running.environment.workers);
  expect(core.parts.workers).toBeDefined(); // a competitive template: worker threads
  expect(core.parts.events).toBe(running.environment.events);
  const { metrics, factories } = await findThrough(running);
  expect(metrics).toMatch(/gamefactory_find_game_total\{factory="diablo\/difficulty=hard\/hardcore=false\/version=v201",outcome="assigned"\} 1/);
  expect(metrics).toMatch(/gamefactory_running_games 1/);
  expect(factories).toContain('diablo/difficulty=hard/hardcore=false/version=v201');
}

describe('the core is built by one builder, wherever it runs', () => {
  it('embedded: the process core has the process environment; metrics and the operator page read it', async () => {
    const p = await start();
    try {
      await expectOneBuilder(p.running);
    } finally {
      await p.close();
    }
  });

  it('cluster: the matcher owner builds its core with the same environment; its metrics and operator page show that core', async (ctx) => {
    if (!hasRedis) return ctx.skip('redis-server is not installed');
    const redis = await RedisServer.start();
    const p = await start(redis.url);
    try {
      await eventually(() => p.running.currentCore() !== undefined, 10_000);
      await expectOneBuilder(p.running);
    } finally {
      await p.close();
      await redis.stop();
    }
  });
});

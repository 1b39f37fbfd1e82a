import { status, type ServiceError } from '@grpc/grpc-js';
import type { GameOrder } from '@gamefactory/game-server-sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findGame, findGameRequest } from '../support/find-game.js';
import { TestCoordinator } from './harness.js';

const YAML = `
placement: { createTimeoutMs: 10000, ticketTtlSeconds: 60 }
factories:
  - name: duel
    competitive:
      teams: 2
      teamSize: 1
      batch: { maxTickets: 1000, intervalMs: 200 }
      expansion: [{ afterSeconds: 0, maxScoreGap: 500 }]
      performanceSd: 150
      playerLimits: { waitBudgetMs: { min: 2000, max: 60000 }, maxLatencyMs: { min: 20, max: 500 } }
`;

/**
 * The quality figure and the per-player limits through a real coordinator on loopback: the
 * assignment and the server's CreateGame carry the game's predicted balance, /metrics shows its
 * distribution, a queued update estimates the wait from games near the ticket's score, and a
 * ticket's own limits outside the template's bounds are refused naming the field.
 */
describe('competitive match quality over gRPC', () => {
  let coordinator: TestCoordinator;
  beforeEach(async () => {
    coordinator = await TestCoordinator.start(YAML);
  });
  afterEach(async () => {
    await coordinator.stop();
  });

  it("carries each game's predicted balance on the assignments and the CreateGame, and counts it in /metrics", async () => {
    const orders: GameOrder[] = [];
    await coordinator.server({ serverId: 'arena', maxGames: 10 }, { autoJoin: true, decide: (order) => (orders.push(order), 'create' as const) });
    const client = coordinator.client();
    const [a, b] = await Promise.all([
      findGame(client, { ticketId: 'a', template: 'duel', party: [{ playerId: 'pa', score: 1600 }] }),
      findGame(client, { ticketId: 'b', template: 'duel', party: [{ playerId: 'pb', score: 1500 }] }),
    ]);
    // Phi(100 / (sqrt 2 x 150)) = 0.6813; quality exp(-100^2 / (4 x 150^2)) = 0.8948.
    for (const { assignment } of [a, b]) {
      expect(assignment.quality?.favouriteWinProbability).toBeCloseTo(0.6813, 4);
      expect(assignment.quality?.matchQuality).toBeCloseTo(0.8948, 4);
      expect(assignment.quality?.gapSigma).toBeGreaterThan(0);
    }
    expect(orders[0]?.quality?.favouriteWinProbability).toBeCloseTo(0.6813, 4);
    const metrics = await coordinator.running.metrics.registry.metrics();
    expect(metrics).toMatch(/gamefactory_competitive_favourite_win_probability_bucket\{le="0.7",factory="duel"\} 1/);
    expect(metrics).toMatch(/gamefactory_competitive_match_quality_count\{factory="duel"\} 1/);
  });

  it('estimates a queued ticket\'s wait from the games near its score', async () => {
    await coordinator.server({ serverId: 'arena', maxGames: 10 }, { autoJoin: true });
    const client = coordinator.client();
    // A first pair waits for its batch (200 ms after the first arrived)...
    await Promise.all([
      findGame(client, { ticketId: 'a', template: 'duel', party: [{ playerId: 'pa', score: 1500 }] }),
      findGame(client, { ticketId: 'b', template: 'duel', party: [{ playerId: 'pb', score: 1510 }] }),
    ]);
    // ...so a newcomer near their score is told about as much.
    const [c] = await Promise.all([
      findGame(client, { ticketId: 'c', template: 'duel', party: [{ playerId: 'pc', score: 1505 }] }),
      findGame(client, { ticketId: 'd', template: 'duel', party: [{ playerId: 'pd', score: 1495 }] }),
    ]);
    const estimate = c.queued[0]?.estimatedWaitMs ?? 0;
    expect(estimate).toBeGreaterThan(50);
    expect(estimate).toBeLessThan(1000);
  });

  it("refuses a ticket's own limits outside the template's bounds, naming the field", async () => {
    await coordinator.server({ serverId: 'arena', maxGames: 10 }, { autoJoin: true });
    const client = coordinator.client();
    const refused = (extra: object) =>
      new Promise<ServiceError>((resolve) => {
        const call = client.findGame({ ...findGameRequest({ ticketId: `t${Math.random()}`, template: 'duel', party: [{ playerId: `p${Math.random()}`, score: 1500 }] }), ...extra });
        call.on('data', () => undefined);
        call.on('error', resolve);
      });
    const budget = await refused({ waitBudgetMs: 500 });
    expect(budget.code).toBe(status.INVALID_ARGUMENT);
    expect(budget.details).toMatch(/wait_budget_ms: 500 is outside this factory's bounds 2000..60000/);
    const ceiling = await refused({ maxLatencyMs: 5 });
    expect(ceiling.code).toBe(status.INVALID_ARGUMENT);
    expect(ceiling.details).toMatch(/max_latency_ms/);
  });
});

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GameServer } from '@gamefactory/game-server-sdk';
import { FindError, Matchmaker, status } from '@gamefactory/matchmaking-client';
import { TestCoordinator } from '../integration/harness.js';

const YAML = `
placement: { policy: fill, createTimeoutMs: 5000, maxQueuedPerFactory: 1000, ticketTtlSeconds: 60 }
factories:
  - name: duel
    partitioning: { region: [eu] }
    competitive:
      teams: 2
      teamSize: 1
      batch: { maxTickets: 2, intervalMs: 50 }
      expansion: [{ afterSeconds: 0, maxScoreGap: 1000 }]
      playerLimits: { waitBudgetMs: { min: 1000, max: 60000 }, maxLatencyMs: { min: 1, max: 500 } }
`;
const EU = { region: 'eu' };

/** The client carries a party's own limits (wait_budget_ms, max_latency_ms) to a real coordinator. */
describe('matchmaking client: a party\'s own limits', () => {
  let coordinator: TestCoordinator;
  const opened: { close(): void }[] = [];

  beforeEach(async () => {
    coordinator = await TestCoordinator.start(YAML);
  });
  afterEach(async () => {
    for (const o of opened.splice(0)) o.close();
    await coordinator.stop();
  });

  it('are checked by the coordinator (refused outside playerLimits, naming the field) and matched within them', async () => {
    const server = new GameServer({ addresses: coordinator.address, serverId: 'eu-1', endpoint: 'eu-1:7777', attributes: EU, capacity: { maxGames: 4 }, createGame: () => {} });
    const mm = new Matchmaker({ addresses: coordinator.address });
    opened.push(server, mm);
    await server.start();

    const short = await mm.find({ party: [{ playerId: 'a', score: 1500 }], partition: EU, waitBudgetMs: 5 }).assignment.catch((e: unknown) => e);
    expect(short).toBeInstanceOf(FindError);
    expect((short as FindError).code).toBe(status.INVALID_ARGUMENT);
    expect((short as FindError).message).toMatch(/wait_budget_ms/);
    const far = await mm.find({ party: [{ playerId: 'a', score: 1500 }], partition: EU, maxLatencyMs: 9000 }).assignment.catch((e: unknown) => e);
    expect((far as FindError).message).toMatch(/max_latency_ms/);

    const [p, q] = await Promise.all([
      mm.find({ party: [{ playerId: 'p', score: 1500 }], partition: EU, waitBudgetMs: 20_000, maxLatencyMs: 200 }).assignment,
      mm.find({ party: [{ playerId: 'q', score: 1510 }], partition: EU, waitBudgetMs: 30_000 }).assignment,
    ]);
    expect(p.gameId).toBe(q.gameId);
  }, 20_000);
});

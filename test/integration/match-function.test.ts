import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Matchmaker } from '@gamefactory/matchmaking-client';
import type { ProposeGamesRequest, ProposedGame } from '@gamefactory/protocol/v1/match_function';
import { proposeGames, startMatchFunction, type RunningMatchFunction } from '../../packages/match-function-example/src/index.js';
import { TestCoordinator } from './harness.js';

/**
 * Match functions end to end: a real coordinator on loopback, four MatchFunction services over
 * gRPC (the example package's server), one per factory: the example's logic, one that never
 * answers, one that returns a ticket twice, one that returns a ticket it was not offered. Every
 * ticket gets its game; the bad functions' batches are formed by the built-in matcher and counted
 * by reason, and the good function's factory never falls back.
 */
const factory = (name: string, port: number, timeoutMs = 2000) => `
  - name: ${name}
    competitive:
      teams: 2
      teamSize: 1
      batch: { maxTickets: 100, intervalMs: 50 }
      expansion: [{ afterSeconds: 0, maxScoreGap: 100 }]
      matchFunction: { address: "127.0.0.1:${port}", timeoutMs: ${timeoutMs} }`;

describe('match functions over gRPC', () => {
  const functions: RunningMatchFunction[] = [];
  const asked: ProposeGamesRequest[] = [];
  let coordinator: TestCoordinator;
  let mm: Matchmaker;

  beforeAll(async () => {
    const start = (propose: (r: ProposeGamesRequest) => readonly ProposedGame[] | Promise<readonly ProposedGame[]>) =>
      startMatchFunction({ listen: '127.0.0.1:0', propose }).then((f) => (functions.push(f), f.port));
    const good = await start((request) => {
      asked.push(request);
      return proposeGames(request);
    });
    const slow = await start(() => new Promise<never>(() => {}));
    const twice = await start((r) => [{ teams: [{ ticketIds: [r.tickets[0]!.ticketId] }, { ticketIds: [r.tickets[0]!.ticketId] }], map: '', region: '' }]);
    const foreign = await start((r) => [{ teams: [{ ticketIds: [r.tickets[0]!.ticketId] }, { ticketIds: ['not-offered'] }], map: '', region: '' }]);
    coordinator = await TestCoordinator.start(`
placement: { policy: fill, createTimeoutMs: 5000, ticketTtlSeconds: 120 }
servers: { keepaliveIntervalMs: 1000 }
factories:${factory('good', good)}${factory('slow', slow, 300)}${factory('twice', twice)}${factory('foreign', foreign)}
`);
    await coordinator.server({ serverId: 'arena', maxGames: 100 });
    mm = new Matchmaker({ addresses: coordinator.address });
  });
  afterAll(async () => {
    mm?.close();
    await coordinator?.stop();
    for (const f of functions) await f.stop();
  });

  const duel = (template: string) =>
    Promise.all([
      mm.find({ template, party: [{ playerId: `${template}-a`, score: 1500 }] }).assignment,
      mm.find({ template, party: [{ playerId: `${template}-b`, score: 1520 }] }).assignment,
    ]);
  const metrics = async () => (await fetch(`http://127.0.0.1:${coordinator.running.metricsPort}/metrics`)).text();
  /** Fallbacks counted for a factory and reason (each batch counts once; the first may hold one ticket only). */
  const fallbacks = async (name: string, reason: string) =>
    Number(new RegExp(`gamefactory_match_function_fallbacks_total\\{factory="${name}",reason="${reason}"\\} (\\d+)`).exec(await metrics())?.[1] ?? 0);

  it('a function that answers: its game is placed, nothing falls back', async () => {
    const [a, b] = await duel('good');
    expect(a.gameId).toBe(b.gameId);
    expect(asked.some((r) => r.factory === 'good' && r.tickets.length === 2 && r.teams === 2 && r.teamSize === 1)).toBe(true);
    expect(await metrics()).not.toMatch(/gamefactory_match_function_fallbacks_total\{factory="good"/);
  });

  it('a function that times out: the built-in matcher forms the batch, counted as timeout', async () => {
    const [a, b] = await duel('slow');
    expect(a.gameId).toBe(b.gameId);
    expect(await fallbacks('slow', 'timeout')).toBeGreaterThanOrEqual(1);
  });

  it.each(['twice', 'foreign'])('a function that returns a ticket %s is refused, counted, and the built-in matcher places the batch', async (template) => {
    const [a, b] = await duel(template);
    expect(a.gameId).toBe(b.gameId);
    expect(await fallbacks(template, 'refused')).toBeGreaterThanOrEqual(1);
    expect(await fallbacks(template, 'timeout')).toBe(0);
  });
});

import { describe, expect, it } from 'vitest';
import { findGame } from '../support/find-game.js';
import { wireValue } from '@gamefactory/protocol';
import { PredicateMode, type MatchmakerClient, type QueryStatsResponse } from '../../src/generated/gamefactory/v1/matchmaker.js';
import { matchingCases, type MatchingCase } from '../cooperative/matching-cases.js';
import { TestCoordinator, eventually } from './harness.js';

/**
 * The table that defines cooperative matching (test/cooperative/matching-cases.ts), run again
 * over gRPC: the case's games are re-announced by a game server in its hello, finds are FindGame
 * calls, stats are QueryStats calls.
 */
function yamlFor(c: MatchingCase): string {
  return `
factories:
  - name: coop
    partitioning: { region: [eu] }
    matchable: [${c.matchableKeys.join(', ')}]
    cooperative: { maxPlayers: ${c.maxPlayers}, order: ${c.order}, reservationMs: 60000 }
`;
}

const MODES = { all: PredicateMode.PREDICATE_MODE_MATCH_ALL, any: PredicateMode.PREDICATE_MODE_MATCH_ANY, none: PredicateMode.PREDICATE_MODE_MATCH_NONE };

function stats(client: MatchmakerClient, request: Parameters<MatchmakerClient['queryStats']>[0]): Promise<QueryStatsResponse> {
  return new Promise((resolve, reject) => client.queryStats(request, (err, res) => (err ? reject(err) : resolve(res!))));
}

describe('the cooperative matching cases, over gRPC', () => {
  it.each(matchingCases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const coordinator = await TestCoordinator.start(yamlFor(c));
    try {
      const realNow = Date.now();
      const host = await coordinator.server(
        {
          serverId: 'host',
          maxGames: 100,
          runningGames: c.games.map((g) => ({
            gameId: g.gameId,
            factory: 'coop/region=eu',
            matchable: g.attributes,
            playerIds: [...g.playerIds],
            open: g.open ?? true,
            startedAt: realNow - (c.now - g.startedAt),
          })),
        },
        { autoJoin: false },
      );
      const client = coordinator.client();
      let ticket = 0;
      for (const probe of c.probes) {
        if (probe.kind === 'find') {
          const { assignment } = await findGame(client, {
            ticketId: `t${ticket++}`,
            party: probe.party,
            partition: { region: 'eu' },
            matchable: probe.query,
          });
          if (probe.expect === null) {
            expect(assignment.created, probe.why).toBe(true);
            // In process, "no match" reserves nothing; here a game was created. End it, so the
            // later probes see the same games as in process.
            const games = coordinator.running.coordinator.view.snapshot().games;
            host.endGame(assignment.gameId);
            await eventually(() => coordinator.running.coordinator.view.snapshot().games === games - 1);
          } else {
            expect(assignment.gameId, probe.why).toBe(probe.expect);
          }
        } else {
          const answer = await stats(client, {
            factory: 'coop/region=eu',
            template: '',
            partitionAttributes: {},
            predicates: probe.predicates.map(([key, value]) => ({ key, value: wireValue(value) })),
            mode: MODES[probe.mode],
          });
          const e = probe.expect;
          expect(Number(answer.games), probe.why).toBe(e.games);
          expect(Number(answer.openGames), probe.why).toBe(e.openGames);
          expect(Number(answer.players), probe.why).toBe(e.players);
          expect(Number(answer.openSlots), probe.why).toBe(e.openSlots);
          // Durations run on the real clock here: allow for the time the test itself took.
          const slack = Date.now() - realNow + 5;
          for (const [got, want] of [
            [answer.minDurationMs, e.minDurationMs],
            [answer.maxDurationMs, e.maxDurationMs],
            [answer.averageDurationMs, e.averageDurationMs],
          ] as const) {
            expect(Number(got), probe.why).toBeGreaterThanOrEqual(want - 5);
            expect(Number(got), probe.why).toBeLessThanOrEqual(want + slack);
          }
        }
      }
    } finally {
      await coordinator.stop();
    }
  });
});

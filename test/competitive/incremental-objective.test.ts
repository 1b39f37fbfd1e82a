import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { BatchEntry } from '../../src/competitive/batch-entry.js';
import type { TeamScoreAggregation } from '../../src/competitive/competitive-config.js';
import type { BatchPlace } from '../../src/competitive/game-assembly.js';
import { GameObjective, OBJECTIVE_WEIGHTS, type TeamSummary } from '../../src/competitive/game-objective.js';
import { hillClimb } from '../../src/competitive/hill-climber.js';
import { seededRandom } from '../../src/competitive/index.js';
import { teamScore } from '../../src/competitive/team-score.js';
import { VenueChoice } from '../../src/competitive/venue-choice.js';
import { party } from './fixtures.js';

/**
 * The hill-climber costs a game from per-team summaries and, after a move, summarises again only
 * the two teams the move touched. These properties hold that incremental cost to a cost computed
 * from scratch over the game's members, written out here independently of the summaries.
 */

const MAPS = ['m0', 'm1', 'm2'];
const REGIONS = ['r0', 'r1'];
const SIGMA = 0.7;

interface Shape {
  readonly teams: number;
  readonly teamSize: number;
  readonly teamScore: TeamScoreAggregation;
  readonly maps: readonly string[];
  readonly regions: readonly string[];
}

/** The game's cost from its members alone (GameObjective's documented formula). */
function referenceCost(shape: Shape, venue: VenueChoice, teams: readonly (readonly BatchEntry[])[]): number {
  const members = teams.flat();
  const playerScores = members.flatMap((entry) => entry.ticket.players.map((player) => player.score));
  const ticketScores = members.map((entry) => entry.score);
  const teamScores = teams.map((team) => teamScore(team, shape.teamScore));
  const scoreGap = members.length === 0 ? 0 : Math.max(...playerScores) - Math.min(...playerScores);
  const imbalance = teams.length === 0 ? 0 : Math.max(...teamScores) - Math.min(...teamScores);
  const maxTicket = Math.max(...ticketScores);
  const minTicket = Math.min(...ticketScores);
  let excess = 0;
  for (const entry of members) {
    const reach = Math.max(maxTicket - entry.score, entry.score - minTicket);
    if (reach > entry.maxScoreGap) excess += reach - entry.maxScoreGap;
  }
  const full = teams.length === shape.teams && teams.every((team) => team.reduce((n, e) => n + e.size, 0) === shape.teamSize);
  const map = venue.chooseMap(members);
  const region = venue.chooseRegion(members);
  const players = playerScores.length;
  const w = OBJECTIVE_WEIGHTS;
  let cost =
    (w.teamImbalance * imbalance) / SIGMA +
    (w.spread * scoreGap) / SIGMA +
    (region === undefined ? 0 : region.worstLatencyMs / w.latencyMsPerSigma) +
    (map === undefined || players === 0 ? 0 : (w.unmetMapPreference * map.unmetPreferences) / players);
  if (!(full && excess === 0 && map !== undefined && region !== undefined)) cost += w.notViable + excess / SIGMA;
  return cost;
}

const close = (actual: number, expected: number): void => {
  expect(Math.abs(actual - expected)).toBeLessThanOrEqual(1e-9 * (1 + Math.abs(expected)));
};

const arbitraryShape: fc.Arbitrary<Shape> = fc.record({
  teams: fc.integer({ min: 2, max: 3 }),
  teamSize: fc.integer({ min: 1, max: 4 }),
  teamScore: fc.constantFrom<TeamScoreAggregation>('mean', 'max', 'weighted'),
  maps: fc.constantFrom([], MAPS),
  regions: fc.constantFrom([], REGIONS),
});

/** A ticket as a batch entry: scores on a coarse grid (ties are common) or anywhere, windows narrow to unbounded. */
const arbitraryEntry = (maxParty: number): fc.Arbitrary<BatchEntry> =>
  fc
    .record({
      scores: fc.array(fc.oneof(fc.integer({ min: -6, max: 6 }).map((k) => k / 2), fc.double({ min: -1e4, max: 1e4, noNaN: true })), {
        minLength: 1,
        maxLength: maxParty,
      }),
      gap: fc.oneof(fc.constant(Infinity), fc.constant(0), fc.double({ min: 0, max: 8, noNaN: true })),
      wait: fc.integer({ min: 0, max: 60_000 }),
      latency: fc.dictionary(fc.constantFrom(...REGIONS), fc.oneof(fc.integer({ min: 0, max: 300 }), fc.constant(Infinity)), { maxKeys: 2 }),
      preferred: fc.subarray(MAPS),
      vetoed: fc.subarray(MAPS, { maxLength: 1 }),
    })
    .map(({ scores, gap, wait, latency, preferred, vetoed }) => {
      const ticket = party('t', scores, { latency, preferred, vetoed });
      const score = scores.reduce((s, x) => s + x, 0) / scores.length;
      return { ticket, index: 0, size: scores.length, score, waitMs: wait, maxScoreGap: gap, maxLatencyMs: Infinity };
    });

/** Places of a batch: games whose teams hold up to teamSize players each (not always full), and bench places. */
const arbitraryBatch = (shape: Shape): fc.Arbitrary<BatchPlace[]> => {
  const entry = arbitraryEntry(Math.min(2, shape.teamSize));
  const team = fc.array(entry, { minLength: 1, maxLength: shape.teamSize });
  const game = fc
    .array(team, { minLength: shape.teams, maxLength: shape.teams })
    .map((teams): BatchPlace => ({ bench: false, teams, cost: 0 }));
  const bench = entry.map((one): BatchPlace => ({ bench: true, teams: [[one]], cost: 0 }));
  return fc.array(fc.oneof({ weight: 4, arbitrary: game }, { weight: 1, arbitrary: bench }), { minLength: 1, maxLength: 8 });
};

/** Swaps as (team, team, member, member) numbers, each taken modulo what it indexes. */
const arbitrarySwaps = fc.array(fc.tuple(fc.nat(), fc.nat(), fc.nat(), fc.nat()), { minLength: 1, maxLength: 20 });

const arbitraryCase = arbitraryShape.chain((shape) => fc.tuple(fc.constant(shape), arbitraryBatch(shape), fc.integer()));

describe('incremental hill-climb objective', () => {
  it('costs a game from its teams’ summaries as a from-scratch evaluation of its members does', () => {
    fc.assert(
      fc.property(arbitraryCase, ([shape, places]) => {
        const venue = new VenueChoice(shape.maps, shape.regions);
        const objective = new GameObjective(shape, venue, SIGMA);
        for (const place of places) {
          if (place.bench) continue;
          const summaries = place.teams.map((team) => {
            const summary = objective.newSummary();
            objective.summarize(team, summary);
            return summary;
          });
          close(objective.cost(place.teams, summaries), referenceCost(shape, venue, place.teams));
          close(objective.evaluate(place.teams).cost, referenceCost(shape, venue, place.teams));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('re-summarising only the two teams a swap touches gives the cost of re-evaluating the whole game', () => {
    fc.assert(
      fc.property(arbitraryCase, arbitrarySwaps, ([shape, places], swaps) => {
        const venue = new VenueChoice(shape.maps, shape.regions);
        const objective = new GameObjective(shape, venue, SIGMA);
        const games = places.filter((place) => !place.bench);
        if (games.length === 0) return;
        const game = games[0] as BatchPlace;
        const summaries = game.teams.map((team) => {
          const summary = objective.newSummary();
          objective.summarize(team, summary);
          return summary;
        });
        for (const [p, q, i, j] of swaps) {
          const ta = p % game.teams.length;
          const tb = q % game.teams.length;
          if (ta === tb) continue;
          const teamA = game.teams[ta] as BatchEntry[];
          const teamB = game.teams[tb] as BatchEntry[];
          const ia = i % teamA.length;
          const ib = j % teamB.length;
          const x = teamA[ia] as BatchEntry;
          teamA[ia] = teamB[ib] as BatchEntry;
          teamB[ib] = x;
          // Summaries are reused (overwritten), as the climber's spares are.
          objective.summarize(teamA, summaries[ta] as TeamSummary);
          objective.summarize(teamB, summaries[tb] as TeamSummary);
          close(objective.cost(game.teams, summaries), referenceCost(shape, venue, game.teams));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('after a climb every place’s tracked cost is its from-scratch cost, and no ticket is lost or split', () => {
    fc.assert(
      fc.property(arbitraryCase, ([shape, places, seed]) => {
        const venue = new VenueChoice(shape.maps, shape.regions);
        const objective = new GameObjective(shape, venue, SIGMA);
        const before = places.flatMap((place) => place.teams.flat()).length;
        const tickets = new Set(places.flatMap((place) => place.teams.flat()));
        const placeCost = (place: BatchPlace): number =>
          place.bench ? objective.benchCost(place.teams[0]?.[0] as BatchEntry) : referenceCost(shape, venue, place.teams);
        const startCost = places.reduce((sum, place) => sum + placeCost(place), 0);
        hillClimb(places, objective, { now: () => 0, deadline: 1, random: seededRandom(seed) });
        let endCost = 0;
        for (const place of places) {
          const expected = placeCost(place);
          close(place.cost, expected);
          endCost += expected;
          if (place.bench) expect(place.teams).toHaveLength(1);
        }
        const after = places.flatMap((place) => place.teams.flat());
        expect(after).toHaveLength(before);
        expect(new Set(after)).toEqual(tickets);
        expect(endCost).toBeLessThanOrEqual(startCost + 1e-9 * (1 + Math.abs(startCost)));
      }),
      { numRuns: 300 },
    );
  });
});

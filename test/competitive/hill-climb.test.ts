import { describe, expect, it } from 'vitest';
import { toBatchEntry, type BatchEntry } from '../../src/competitive/batch-entry.js';
import type { BatchPlace } from '../../src/competitive/game-assembly.js';
import { GameObjective } from '../../src/competitive/game-objective.js';
import { hillClimb } from '../../src/competitive/hill-climber.js';
import { ExpansionSchedule, seededRandom } from '../../src/competitive/index.js';
import { VenueChoice } from '../../src/competitive/venue-choice.js';
import { config, party, solo, steps } from './fixtures.js';

const schedule = new ExpansionSchedule(steps([0, Infinity]));
const entry = (id: string, ...scores: number[]): BatchEntry =>
  toBatchEntry(scores.length === 1 ? solo(id, scores[0] as number) : party(id, scores), schedule, 0);
const game = (...teams: BatchEntry[][]): BatchPlace => ({ bench: false, teams, cost: 0 });
const ids = (place: BatchPlace | undefined): string[][] =>
  (place?.teams ?? []).map((team) => team.map((e) => e.ticket.ticketId).sort()).sort();
const forever = { now: () => 0, deadline: 1 };

describe('hill climbing', () => {
  it('balances a deliberately lopsided 2v2', () => {
    const c = config({ teamSize: 2 });
    const objective = new GameObjective(c, new VenueChoice([], []), 1);
    const places = [game([entry('a', 9), entry('b', 8)], [entry('c', 1), entry('d', 2)])];
    const before = objective.evaluate(places[0]!.teams);
    expect(before.teamImbalance).toBe(7);
    const report = hillClimb(places, objective, { ...forever, random: seededRandom(7) });
    const after = objective.evaluate(places[0]!.teams);
    expect(after.teamImbalance).toBe(0);
    expect(ids(places[0])).toEqual([['a', 'c'], ['b', 'd']]);
    expect(report).toMatchObject({ converged: true });
    expect(report.improvements).toBeGreaterThan(0);
  });

  it('swaps players between games to tighten both', () => {
    const c = config({ teams: 2, teamSize: 1 });
    const objective = new GameObjective(c, new VenueChoice([], []), 1);
    const places = [game([entry('a', 0)], [entry('b', 100)]), game([entry('c', 1)], [entry('d', 101)])];
    hillClimb(places, objective, { ...forever, random: seededRandom(3) });
    expect(places.map(ids).sort()).toEqual([[['a'], ['c']], [['b'], ['d']]].sort());
  });

  it('trades a party for two solos to balance teams, without splitting it', () => {
    const c = config({ teamSize: 3 });
    const objective = new GameObjective(c, new VenueChoice([], []), 1);
    // Team 1 holds the strong pair and a strong solo; the weak solos sit together.
    const places = [game([entry('pair', 10, 10), entry('s1', 9)], [entry('s2', 1), entry('s3', 1), entry('s4', 9)])];
    hillClimb(places, objective, { ...forever, random: seededRandom(11) });
    // Best reachable: the pair with a weak solo (mean 7) against 9, 9, 1 (mean 6.33).
    expect(objective.evaluate(places[0]!.teams).teamImbalance).toBeCloseTo(2 / 3);
    const pairTeam = places[0]!.teams.find((team) => team.some((e) => e.ticket.ticketId === 'pair'));
    expect(pairTeam?.map((e) => e.ticket.players.length).sort()).toEqual([1, 2]);
    expect(pairTeam?.find((e) => e.size === 1)?.score).toBe(1);
  });

  it('brings a benched ticket into a game in place of an outlier', () => {
    const c = config({ teamSize: 1 });
    const objective = new GameObjective(c, new VenueChoice([], []), 1);
    const places: BatchPlace[] = [
      game([entry('a', 0)], [entry('outlier', 50)]),
      { bench: true, teams: [[entry('near', 1)]], cost: 0 },
    ];
    hillClimb(places, objective, { ...forever, random: seededRandom(5) });
    expect(ids(places[0])).toEqual([['a'], ['near']]);
    expect(ids(places[1])).toEqual([['outlier']]);
  });

  it('stops when the time budget is spent', () => {
    const c = config({ teamSize: 5 });
    const objective = new GameObjective(c, new VenueChoice([], []), 1);
    const teams = [0, 1].map((t) => [0, 1, 2, 3, 4].map((i) => entry(`p${t}${i}`, t * 10 + i)));
    let clock = 0;
    const report = hillClimb([game(...teams)], objective, { now: () => (clock += 1), deadline: 5, random: seededRandom(1) });
    expect(report.converged).toBe(false);
    expect(report.attempts).toBeLessThanOrEqual(32 * 5);
  });
});

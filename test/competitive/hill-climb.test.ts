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

describe('settled places', () => {
  const objective = new GameObjective(config({ teamSize: 2 }), new VenueChoice([], []), 1);
  /** A 2v2 of four equal scores: cost 0, settled. */
  const even = (k: number, score: number): BatchPlace => game([entry(`${k}a`, score), entry(`${k}b`, score)], [entry(`${k}c`, score), entry(`${k}d`, score)]);

  it('draws no move when every game is already within SETTLED_COST', () => {
    const places = Array.from({ length: 50 }, (_, k) => even(k, k * 100));
    const report = hillClimb(places, objective, { ...forever, random: seededRandom(2) });
    expect(report).toEqual({ attempts: 0, improvements: 0, converged: true });
  });

  it('balances the one unsettled game among settled ones, in far fewer moves than a patience over all places', () => {
    const places = Array.from({ length: 200 }, (_, k) => even(k, k * 100));
    places[100] = game([entry('a', 10_009), entry('b', 10_008)], [entry('c', 10_001), entry('d', 10_002)]);
    const before = places.map((p) => objective.evaluate(p.teams).cost).reduce((s, c) => s + c, 0);
    const report = hillClimb(places, objective, { ...forever, random: seededRandom(4) });
    expect(objective.evaluate(places[100]!.teams).teamImbalance).toBe(0);
    expect(places.map((p) => objective.evaluate(p.teams).cost).reduce((s, c) => s + c, 0)).toBeLessThan(before);
    expect(report.converged).toBe(true);
    // Before places were settled, the climb ended only after 32 failures per place in a row.
    expect(report.attempts).toBeLessThan(32 * places.length);
  });

  it('a bench ticket that has waited is unsettled, and takes a fresh ticket\'s seat in a settled game', () => {
    const c = config({ teamSize: 1 });
    const waited = new GameObjective(c, new VenueChoice([], []), 1);
    const fresh = toBatchEntry(solo('fresh', 5), schedule, 0);
    const old = toBatchEntry(solo('old', 5, { enqueuedAt: -30_000 }), schedule, 0);
    const places: BatchPlace[] = [game([entry('a', 5)], [fresh]), { bench: true, teams: [[old]], cost: 0 }];
    hillClimb(places, waited, { ...forever, random: seededRandom(9) });
    // The game costs 0 with either fresh ticket benched instead; 30 s on the bench cost 0.6.
    expect(ids(places[0]).flat()).toContain('old');
    expect(['a', 'fresh']).toContain(ids(places[1]).flat()[0]);
  });
});

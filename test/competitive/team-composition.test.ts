import { describe, expect, it } from 'vitest';
import { toBatchEntry, type BatchEntry } from '../../src/competitive/batch-entry.js';
import { assembleGames } from '../../src/competitive/game-assembly.js';
import { ExpansionSchedule } from '../../src/competitive/index.js';
import { packTeams } from '../../src/competitive/team-packing.js';
import { teamScore } from '../../src/competitive/team-score.js';
import { party, solo, steps } from './fixtures.js';

const schedule = new ExpansionSchedule(steps([0, Infinity]));
const entry = (id: string, ...scores: number[]): BatchEntry =>
  toBatchEntry(scores.length === 1 ? solo(id, scores[0] as number) : party(id, scores), schedule, 0);

describe('team score aggregation', () => {
  const team = [entry('duo', 10, 4), entry('s', 1)];
  it('mean', () => expect(teamScore(team, 'mean')).toBe(5));
  it('max', () => expect(teamScore(team, 'max')).toBe(10));
  it('weighted: rank weights 3, 2, 1 for three players, best first', () => {
    expect(teamScore(team, 'weighted')).toBeCloseTo((3 * 10 + 2 * 4 + 1 * 1) / 6);
  });
});

describe('team packing', () => {
  it('finds the packing greedy misses: 3+3 and 2+2+2 into two teams of 6', () => {
    const parties = [entry('a', 1, 1, 1), entry('b', 1, 1, 1), entry('c', 1, 1), entry('d', 1, 1), entry('e', 1, 1)];
    const teams = packTeams(parties, 2, 6);
    expect(teams?.map((t) => t.reduce((s, e) => s + e.size, 0))).toEqual([6, 6]);
  });
  it('refuses parties that cannot fill the teams exactly', () => {
    expect(packTeams([entry('a', 1, 1), entry('b', 1, 1), entry('c', 1, 1)], 2, 3)).toBeUndefined();
  });
});

/** Entries as a sorted batch numbers them: index = position. */
const batch = (...entries: BatchEntry[]): BatchEntry[] => entries.map((e, index) => ({ ...e, index }));

describe('game assembly', () => {
  it('forms a game as soon as the tickets so far can make one, from the lowest-scored parties it needs', () => {
    const sorted = batch(entry('s1', 1), entry('s2', 2), entry('s3', 3), entry('duo', 4, 4), entry('s4', 5), entry('s5', 6), entry('s6', 7));
    const places = assembleGames(sorted, 2, 2);
    const games = places.filter((p) => !p.bench).map((p) => p.teams.flat().map((e) => e.ticket.ticketId).sort());
    expect(games).toEqual([
      ['duo', 's1', 's2'],
      ['s3', 's4', 's5', 's6'],
    ]);
    expect(places.filter((p) => p.bench)).toEqual([]);
  });

  it('benches what cannot make a full game, in score order', () => {
    const places = assembleGames(batch(entry('s1', 1), entry('duo', 2, 2), entry('s2', 3)), 2, 3);
    expect(places.filter((p) => p.bench).map((p) => p.teams[0]?.[0]?.ticket.ticketId)).toEqual(['s1', 'duo', 's2']);
  });

  it('three trios in a row do not keep later solos and duos out of a 5v5 (issue 10, defect 10)', () => {
    const sorted = batch(
      entry('t1', 1, 1, 1),
      entry('t2', 2, 2, 2),
      entry('t3', 3, 3, 3),
      entry('s1', 4),
      entry('s2', 5),
      entry('d1', 6, 6),
      entry('s3', 7),
      entry('s4', 8),
      entry('s5', 9),
      entry('d2', 10, 10),
    );
    const places = assembleGames(sorted, 2, 5);
    const games = places.filter((p) => !p.bench);
    expect(games).toHaveLength(1);
    for (const team of games[0]!.teams) expect(team.reduce((n, e) => n + e.size, 0)).toBe(5);
    const benched = places.filter((p) => p.bench).map((p) => p.teams[0]![0]!.size);
    expect(benched.reduce((a, b) => a + b, 0)).toBe(18 - 10); // the old walk formed no game at all here
  });

  it('a party whose window cannot reach the newer parties goes to the bench instead of into their game', () => {
    const narrow = new ExpansionSchedule(steps([0, 10]));
    const e = (id: string, score: number): BatchEntry => toBatchEntry(solo(id, score), narrow, 0);
    const places = assembleGames(batch(e('far', 0), e('a', 100), e('b', 101), e('c', 102), e('d', 103)), 2, 2);
    expect(places.filter((p) => !p.bench).map((p) => p.teams.flat().map((x) => x.ticket.ticketId).sort())).toEqual([['a', 'b', 'c', 'd']]);
    expect(places[0]!.bench && places[0]!.teams[0]![0]!.ticket.ticketId).toBe('far');
  });
});

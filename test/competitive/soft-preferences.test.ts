import { describe, expect, it } from 'vitest';
import { SortedBatch, type BatchEntry } from '../../src/competitive/batch-entry.js';
import { encodeSlice, solveSlice, solveEntries, type SliceContext } from '../../src/competitive/batch-slices.js';
import type { CompetitiveTicket, SoftPreference } from '../../src/competitive/index.js';
import { ExpansionSchedule } from '../../src/competitive/index.js';
import { sortedBatchEntries } from '../../src/competitive/batch-entry.js';
import { GameObjective } from '../../src/competitive/game-objective.js';
import { SoftPreferences } from '../../src/competitive/soft-preferences.js';
import { VenueChoice } from '../../src/competitive/venue-choice.js';
import { config, matcher, pairsOf, solo, steps } from './fixtures.js';

const language: SoftPreference[] = [{ attribute: 'language', weight: 0.3 }];

function speaking(id: string, score: number, lang?: string): CompetitiveTicket {
  return { ...solo(id, score), ...(lang !== undefined && { softAttributes: new Map([['language', lang]]) }) };
}

function entries(tickets: CompetitiveTicket[]): BatchEntry[] {
  return sortedBatchEntries(tickets, new ExpansionSchedule(steps([0, Infinity])), 0);
}

describe('soft preferences (Destiny thesis, soft filters)', () => {
  it('cost weight x the fraction of players off the most common value; silent players do not count', () => {
    const soft = new SoftPreferences(language);
    expect(soft.cost(entries([speaking('a', 0, 'en'), speaking('b', 0, 'en'), speaking('c', 0, 'fr')]))).toBeCloseTo(0.1, 12);
    expect(soft.cost(entries([speaking('a', 0, 'en'), speaking('b', 0), speaking('c', 0, 'en')]))).toBe(0);
    expect(soft.cost(entries([speaking('a', 0), speaking('b', 0)]))).toBe(0);
  });

  it('in 1v1, orders otherwise equal pairings: b pairs with the neighbour that speaks its language', () => {
    const tickets = () => [speaking('a', 0, 'en'), speaking('b', 10, 'fr'), speaking('c', 20, 'fr')];
    const plain = matcher(config());
    const preferring = matcher(config({ softPreferences: language }));
    for (const t of tickets()) plain.add(t);
    for (const t of tickets()) preferring.add(t);
    expect(pairsOf(plain.formGames(1000))).toEqual(['a+b']);
    expect(pairsOf(preferring.formGames(1000))).toEqual(['b+c']);
  });

  it('never excludes: two players with different languages still play', () => {
    const m = matcher(config({ softPreferences: language }));
    m.add(speaking('a', 0, 'en'));
    m.add(speaking('b', 1, 'fr'));
    expect(pairsOf(m.formGames(1000))).toEqual(['a+b']);
  });

  it('adds to a team game cost exactly weight x fraction, and leaves viability alone', () => {
    const c = config({ teamSize: 2 });
    const [a, b, x, y] = entries([speaking('a', 0, 'en'), speaking('b', 1, 'en'), speaking('x', 2, 'en'), speaking('y', 3, 'fr')]);
    const teams = [[a, y], [b, x]] as BatchEntry[][];
    const venue = new VenueChoice([], []);
    const plain = new GameObjective(c, venue, 1).evaluate(teams);
    const soft = new GameObjective(c, venue, 1, new SoftPreferences(language)).evaluate(teams);
    expect(soft.viable).toBe(plain.viable);
    expect(soft.cost - plain.cost).toBeCloseTo(0.3 / 4, 12);
  });

  it('a slice solved from its encoding (worker threads) weighs soft attributes the same', () => {
    const list = entries([speaking('a', 0, 'en'), speaking('b', 10, 'fr'), speaking('c', 20, 'fr')]);
    const context: SliceContext = { teams: 2, teamSize: 1, teamScore: 'mean', maps: [], regions: [], sigma: 1, softPreferences: language };
    const local = solveEntries(list, context, 1, 0, () => 0);
    const remote = solveSlice(encodeSlice(SortedBatch.of(list), 0, list.length, context, 1, 0), () => 0);
    expect(Array.from(remote.members)).toEqual(Array.from(local.members));
    expect(Array.from(local.members).sort()).toEqual([1, 2]);
  });
});

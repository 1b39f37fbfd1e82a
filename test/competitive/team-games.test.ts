import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CompetitiveTicket, FormedGame } from '../../src/competitive/index.js';
import { config, matcher, party, solo, steps } from './fixtures.js';

function playersPerTeam(game: FormedGame, tickets: Map<string, CompetitiveTicket>): number[] {
  return game.teams.map((team) => team.reduce((sum, id) => sum + (tickets.get(id)?.players.length ?? NaN), 0));
}

describe('team games and free-for-all', () => {
  it('forms balanced 5v5 games from score order', () => {
    const c = config({ teamSize: 5, teamScore: 'mean' });
    const m = matcher(c);
    const tickets = new Map<string, CompetitiveTicket>();
    for (let i = 0; i < 20; i++) {
      const t = solo(`p${i}`, i);
      tickets.set(t.ticketId, t);
      m.add(t);
    }
    const games = m.formGames(0);
    expect(games).toHaveLength(2);
    for (const game of games) {
      expect(playersPerTeam(game, tickets)).toEqual([5, 5]);
      // Consecutive scores: the low ten play together, and the high ten.
      expect(game.quality.scoreGap).toBe(9);
      expect(game.quality.teamImbalance).toBeLessThanOrEqual(0.2);
    }
  });

  it('keeps parties whole in 5v5 with mixed party sizes', () => {
    const c = config({ teamSize: 5, teamScore: 'weighted' });
    const m = matcher(c);
    const tickets = new Map<string, CompetitiveTicket>();
    const add = (t: CompetitiveTicket): void => {
      tickets.set(t.ticketId, t);
      m.add(t);
    };
    add(party('trio', [30, 10, 12]));
    add(party('duo', [20, 22]));
    add(party('duo2', [15, 16]));
    for (let i = 0; i < 3; i++) add(solo(`s${i}`, 14 + i * 3));
    const [game, ...rest] = m.formGames(0);
    expect(rest).toEqual([]);
    expect(game && playersPerTeam(game, tickets)).toEqual([5, 5]);
    expect(game?.teams.flat().sort()).toEqual([...tickets.keys()].sort());
  });

  it('plays free-for-all: 8 teams of one, score neighbours together', () => {
    const m = matcher(config({ teams: 8, teamSize: 1, expansion: steps([0, 10]) }));
    for (let i = 0; i < 17; i++) m.add(solo(`p${i}`, i < 8 ? i : 100 + i));
    const games = m.formGames(0);
    expect(games).toHaveLength(2);
    for (const game of games) expect(game.teams.map((t) => t.length)).toEqual([1, 1, 1, 1, 1, 1, 1, 1]);
    expect(games.map((g) => g.teams.flat().sort()).sort()[0]).toEqual(['p0', 'p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7']);
    expect(m.size).toBe(1);
  });

  it('starts only viable games and sends the rest back', () => {
    const m = matcher(config({ teamSize: 2, expansion: steps([0, 1], [10_000, Infinity]) }));
    for (const [id, s] of [['a', 0], ['b', 0.5], ['c', 50], ['d', 51]] as const) m.add(solo(id, s));
    expect(m.formGames(0)).toEqual([]);
    expect(m.size).toBe(4);
    expect(m.formGames(10_000)).toHaveLength(1);
  });

  it('is reproducible with the same seed', () => {
    const run = (seed: number): string[][][] => {
      const m = matcher(config({ teamSize: 3, teamScore: 'max' }), seed);
      for (let i = 0; i < 60; i++) m.add(solo(`p${i}`, (i * 37) % 61));
      return m.formGames(0).map((g) => g.teams);
    };
    expect(run(42)).toEqual(run(42));
  });

  it('stops climbing when the budget runs out', () => {
    const m = matcher(config({ teamSize: 5, hillClimbBudgetMs: 2 }), 1, 1);
    for (let i = 0; i < 40; i++) m.add(solo(`p${i}`, (i * 7) % 40));
    m.formGames(0);
    expect(m.lastBatch()).toMatchObject({ tickets: 40, converged: false });
  });

  it('never splits a party, never double-books a ticket, and fills every team exactly', () => {
    const arbitraryParty = fc.record({
      scores: fc.array(fc.double({ min: -3, max: 3, noNaN: true }), { minLength: 1, maxLength: 3 }),
      wait: fc.integer({ min: 0, max: 60_000 }),
    });
    fc.assert(
      fc.property(
        fc.constantFrom({ teams: 2, teamSize: 3 }, { teams: 2, teamSize: 5 }, { teams: 3, teamSize: 3 }, { teams: 4, teamSize: 4 }),
        fc.array(arbitraryParty, { maxLength: 60 }),
        fc.integer(),
        (shape, parties, seed) => {
          const m = matcher(config({ ...shape, expansion: steps([0, 1], [20_000, 3], [40_000, Infinity]) }), seed);
          const tickets = new Map<string, CompetitiveTicket>();
          parties.forEach((p, i) => {
            const t = party(`t${i}`, p.scores.slice(0, shape.teamSize), { enqueuedAt: -p.wait });
            tickets.set(t.ticketId, t);
            m.add(t);
          });
          const games = m.formGames(0);
          const seen = new Set<string>();
          for (const game of games) {
            expect(playersPerTeam(game, tickets)).toEqual(new Array(shape.teams).fill(shape.teamSize));
            for (const id of game.teams.flat()) {
              expect(seen.has(id)).toBe(false);
              seen.add(id);
            }
          }
          expect(m.size).toBe(tickets.size - seen.size);
        },
      ),
      { numRuns: 60 },
    );
  });
});

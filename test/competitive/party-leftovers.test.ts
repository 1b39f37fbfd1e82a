import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CompetitiveConfig, CompetitiveTicket, FormedGame } from '../../src/competitive/index.js';
import { seededRandom } from '../../src/competitive/index.js';
import { ANY, config, matcher, party, steps } from './fixtures.js';

// Issue 10, defect 10: in a 5v5 with parties of 1-3, leftovers that could still form games (e.g.
// 17 solos, 8 duos and 9 trios: six games) waited until their deadline once windows were open.

/**
 * The reference: can some of these parties (sizes) fill `teams` teams of exactly `teamSize`?
 * Independent of the matcher's search: choose how many parties of each size the game takes, then
 * bin-pack that multiset into the teams by plain backtracking.
 */
function canFormGame(sizes: readonly number[], teams: number, teamSize: number): boolean {
  const available = new Map<number, number>();
  for (const s of sizes) available.set(s, (available.get(s) ?? 0) + 1);
  const kinds = [...available.keys()].sort((a, b) => b - a);
  const chosen: number[] = [];
  const packs = (items: readonly number[]): boolean => {
    const fill = new Array<number>(teams).fill(0);
    const place = (i: number): boolean => {
      if (i === items.length) return fill.every((f) => f === teamSize);
      for (let t = 0; t < teams; t++) {
        if (fill[t]! + items[i]! > teamSize) continue;
        if (t > 0 && fill.slice(0, t).includes(fill[t]!)) continue; // equal fills are interchangeable
        fill[t]! += items[i]!;
        if (place(i + 1)) return true;
        fill[t]! -= items[i]!;
      }
      return false;
    };
    return place(0);
  };
  const choose = (k: number, players: number): boolean => {
    if (players === teams * teamSize) return packs(chosen);
    if (k === kinds.length) return false;
    const size = kinds[k]!;
    const most = Math.min(available.get(size)!, Math.floor((teams * teamSize - players) / size));
    for (let n = most; n >= 0; n--) {
      for (let j = 0; j < n; j++) chosen.push(size);
      const ok = choose(k + 1, players + n * size);
      chosen.length -= n;
      if (ok) return true;
    }
    return false;
  };
  return choose(0, 0);
}

interface Run {
  readonly games: FormedGame[];
  readonly leftovers: CompetitiveTicket[];
}

/** Adds every ticket at 0, then runs a batch a second until windows are open and a batch forms nothing. */
function runUntilSettled(c: CompetitiveConfig, tickets: readonly CompetitiveTicket[], openAtMs: number, seed = 1): Run {
  const m = matcher(c, seed);
  for (const t of tickets) m.add(t);
  const games: FormedGame[] = [];
  for (let now = 0; ; now += 1000) {
    const formed = m.formGames(now);
    games.push(...formed);
    if (now >= openAtMs && formed.length === 0) break;
    if (now > openAtMs + 60_000) throw new Error('batches never settle');
  }
  const placed = new Set(games.flatMap((g) => g.teams.flat()));
  return { games, leftovers: tickets.filter((t) => !placed.has(t.ticketId)) };
}

function expectWellFormed(run: Run, tickets: readonly CompetitiveTicket[], teams: number, teamSize: number): void {
  const byId = new Map(tickets.map((t) => [t.ticketId, t]));
  const seen = new Set<string>();
  for (const game of run.games) {
    expect(game.teams).toHaveLength(teams);
    for (const team of game.teams) {
      expect(team.reduce((n, id) => n + byId.get(id)!.players.length, 0)).toBe(teamSize);
      for (const id of team) {
        expect(seen.has(id)).toBe(false);
        seen.add(id);
      }
    }
  }
}

function partiesOf(sizes: readonly number[], seed: number): CompetitiveTicket[] {
  const random = seededRandom(seed);
  return sizes.map((size, i) => party(`t${i}`, Array.from({ length: size }, () => Math.round(1000 + 1000 * random()))));
}

describe('party leftovers once windows are open', () => {
  it('no game that the leftovers could fill is left unformed (random party mixes)', () => {
    fc.assert(
      fc.property(
        fc.record({
          teams: fc.integer({ min: 2, max: 4 }),
          teamSize: fc.integer({ min: 2, max: 6 }),
          sizes: fc.array(fc.integer({ min: 1, max: 4 }), { maxLength: 70 }),
          seed: fc.integer({ min: 1, max: 1 << 30 }),
        }),
        ({ teams, teamSize, sizes, seed }) => {
          const clipped = sizes.map((s) => Math.min(s, teamSize));
          const tickets = partiesOf(clipped, seed);
          const c = config({ teams, teamSize, expansion: steps([0, 50], [5_000, 300], [15_000, ANY]), hillClimbBudgetMs: 0 });
          const run = runUntilSettled(c, tickets, 15_000, seed);
          expectWellFormed(run, tickets, teams, teamSize);
          expect(canFormGame(run.leftovers.map((t) => t.players.length), teams, teamSize)).toBe(false);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('17 solos, 8 duos and 9 trios left in a 5v5 form their six games', () => {
    const sizes = [...Array<number>(17).fill(1), ...Array<number>(8).fill(2), ...Array<number>(9).fill(3)];
    for (const seed of [1, 2, 3, 4, 5]) {
      const random = seededRandom(seed);
      const shuffled = sizes.map((s) => ({ s, k: random() })).sort((a, b) => a.k - b.k).map((x) => x.s);
      const tickets = partiesOf(shuffled, seed);
      const c = config({ teamSize: 5, expansion: steps([0, 50], [5_000, 300], [15_000, ANY]) });
      const run = runUntilSettled(c, tickets, 15_000, seed);
      expectWellFormed(run, tickets, 2, 5);
      expect(run.games).toHaveLength(6);
      expect(run.leftovers).toEqual([]);
    }
  });

  it('300 players in parties of 1-3 that can fill 30 5v5 games fill them by the time windows are open', () => {
    for (const seed of [11, 12, 13]) {
      const random = seededRandom(seed);
      // 60 teams, each cut at random into parties of 1-3 players, then shuffled.
      const sizes: number[] = [];
      for (let team = 0; team < 60; team++) {
        for (let seats = 5; seats > 0; ) {
          const size = Math.min(seats, 1 + Math.floor(random() * 3));
          sizes.push(size);
          seats -= size;
        }
      }
      const shuffled = sizes.map((s) => ({ s, k: random() })).sort((a, b) => a.k - b.k).map((x) => x.s);
      const tickets = partiesOf(shuffled, seed);
      const c = config({ teamSize: 5, expansion: steps([0, 50], [5_000, 300], [15_000, ANY]) });
      const run = runUntilSettled(c, tickets, 15_000, seed);
      expectWellFormed(run, tickets, 2, 5);
      expect(canFormGame(run.leftovers.map((t) => t.players.length), 2, 5)).toBe(false);
      expect(run.games.length).toBe(30);
    }
  });
});

import { describe, expect, it } from 'vitest';
import { combineStats, emptyStats, factoryInPartition } from '../../src/cluster/stats/combine-stats.js';
import { parseConfig } from '../../src/config/load.js';
import type { StatsAnswer } from '../../src/coordinator/stats-query.js';

const CONFIG = parseConfig(`
factories:
  - name: diablo
    partitioning: { difficulty: [normal, hard], hardcore: [false, true], version: [v201, v202] }
    cooperative: { maxPlayers: 4 }
  - name: diablo-x
    partitioning: { version: [v201] }
    cooperative: { maxPlayers: 4 }
  - { name: duel, cooperative: { maxPlayers: 2 } }
`);
const [diablo, diabloX, duel] = CONFIG.templates;

const answer = (over: Partial<StatsAnswer>): StatsAnswer => ({ ...emptyStats(), ...over });

describe('combineStats: QueryStats over disjoint sets of factories', () => {
  it('sums counts, keeps the extreme durations, weighs the mean duration by games', () => {
    const total = combineStats([
      answer({ factories: 2, games: 2, openGames: 1, players: 5, openSlots: 3, minDurationMs: 100, maxDurationMs: 300, averageDurationMs: 200, openGamesByOpenSlots: [0, 0, 1], waitingTickets: 4 }),
      answer({ factories: 1, games: 0, waitingTickets: 1 }),
      answer({ factories: 3, games: 6, openGames: 2, players: 20, openSlots: 2, minDurationMs: 50, maxDurationMs: 250, averageDurationMs: 100, openGamesByOpenSlots: [2], waitingTickets: 0 }),
    ]);
    expect(total).toEqual({
      factories: 6,
      games: 8,
      openGames: 3,
      players: 25,
      openSlots: 5,
      minDurationMs: 50,
      maxDurationMs: 300,
      averageDurationMs: (2 * 200 + 6 * 100) / 8,
      openGamesByOpenSlots: [2, 0, 1],
      waitingTickets: 5,
      competitive: undefined,
    });
  });

  it('a part without games does not pull the shortest duration to 0', () => {
    const total = combineStats([answer({ factories: 1 }), answer({ factories: 1, games: 1, minDurationMs: 70, maxDurationMs: 70, averageDurationMs: 70 })]);
    expect(total).toMatchObject({ games: 1, minDurationMs: 70, maxDurationMs: 70, averageDurationMs: 70 });
  });

  it('merges competitive quality as one core does: means weighted by games formed, the worst p99', () => {
    const total = combineStats([
      answer({ factories: 1, competitive: { gamesFormed: 10, meanGapSigma: 0.1, p99GapSigma: 0.3, scoreMean: 1500, scoreStdDev: 200 } }),
      answer({ factories: 1 }),
      answer({ factories: 1, competitive: { gamesFormed: 30, meanGapSigma: 0.2, p99GapSigma: 0.25, scoreMean: 1700, scoreStdDev: 100 } }),
      answer({ factories: 1, competitive: { gamesFormed: 0, meanGapSigma: 0, p99GapSigma: 0, scoreMean: 0, scoreStdDev: 0 } }),
    ]);
    expect(total.competitive!.gamesFormed).toBe(40);
    expect(total.competitive!.meanGapSigma).toBeCloseTo(0.175, 12);
    expect(total.competitive!.scoreMean).toBeCloseTo(1650, 9);
    expect(total.competitive!.scoreStdDev).toBeCloseTo(125, 9);
    expect(total.competitive!.p99GapSigma).toBe(0.3);
  });

  it('combining in any grouping gives the same answer (a node combines its shards, the asker combines the nodes)', () => {
    const parts = [
      answer({ factories: 1, games: 3, players: 7, minDurationMs: 10, maxDurationMs: 90, averageDurationMs: 40, openGamesByOpenSlots: [1, 1] }),
      answer({ factories: 2, games: 1, players: 2, minDurationMs: 5, maxDurationMs: 5, averageDurationMs: 5, openGamesByOpenSlots: [0, 0, 3] }),
      answer({ factories: 1, competitive: { gamesFormed: 4, meanGapSigma: 0.4, p99GapSigma: 0.9, scoreMean: 10, scoreStdDev: 1 } }),
      answer({ factories: 1, competitive: { gamesFormed: 12, meanGapSigma: 0.2, p99GapSigma: 0.5, scoreMean: 20, scoreStdDev: 3 } }),
    ];
    const flat = combineStats(parts);
    const grouped = combineStats([combineStats(parts.slice(0, 3)), combineStats(parts.slice(3))]);
    expect(grouped.factories).toBe(flat.factories);
    expect(grouped.averageDurationMs).toBeCloseTo(flat.averageDurationMs, 9);
    expect(grouped.competitive!.meanGapSigma).toBeCloseTo(flat.competitive!.meanGapSigma, 12);
    expect({ ...grouped, averageDurationMs: 0, competitive: undefined }).toEqual({ ...flat, averageDurationMs: 0, competitive: undefined });
  });

  it('nothing to combine is the empty answer', () => {
    expect(combineStats([])).toEqual(emptyStats());
  });
});

describe('factoryInPartition: a factory name read against a template and partition values', () => {
  const p = (entries: Record<string, string>) => new Map(Object.entries(entries));
  it('axes left out match any value; given ones must be equal', () => {
    const name = 'diablo/difficulty=hard/hardcore=false/version=v201';
    expect(factoryInPartition(diablo!, name, p({}))).toBe(true);
    expect(factoryInPartition(diablo!, name, p({ difficulty: 's:hard' }))).toBe(true);
    expect(factoryInPartition(diablo!, name, p({ difficulty: 's:hard', hardcore: 'b:false', version: 's:v201' }))).toBe(true);
    expect(factoryInPartition(diablo!, name, p({ difficulty: 's:normal' }))).toBe(false);
    expect(factoryInPartition(diablo!, name, p({ version: 's:v202' }))).toBe(false);
  });
  it('another template, even one whose name starts the same, is not this one', () => {
    expect(factoryInPartition(diablo!, 'diablo-x/version=v201', p({}))).toBe(false);
    expect(factoryInPartition(diabloX!, 'diablo/difficulty=hard/hardcore=false/version=v201', p({}))).toBe(false);
    expect(factoryInPartition(duel!, 'duel', p({}))).toBe(true);
    expect(factoryInPartition(duel!, 'duel/x=1', p({}))).toBe(false);
  });
});

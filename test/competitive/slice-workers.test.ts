import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CompetitiveMatcher,
  SliceWorkerPool,
  seededRandom,
  solveSlice,
  type CompetitiveConfig,
  type CompetitiveTicket,
  type SliceResult,
  type SliceSolver,
  type SliceTask,
} from '../../src/competitive/index.js';
import { config, pairsOf, party, solo, steps } from './fixtures.js';

/** A solver that holds every slice until released, solving it in process then. */
class HeldSolver implements SliceSolver {
  private readonly held: (() => void)[] = [];
  solve(task: SliceTask): Promise<SliceResult> {
    return new Promise((resolve) => this.held.push(() => resolve(solveSlice(task, () => 0))));
  }
  get waiting(): number {
    return this.held.length;
  }
  release(): void {
    for (const go of this.held.splice(0)) go();
  }
}

const maps = ['docks', 'canyon', 'ruins'];
const regions = ['eu', 'us'];

/** Tickets with scores, parties, latencies and map choices drawn from one seed. */
function mixedTickets(n: number, seed: number, partySizes: readonly number[]): CompetitiveTicket[] {
  const random = seededRandom(seed);
  const tickets: CompetitiveTicket[] = [];
  for (let k = 0; k < n; k++) {
    const size = partySizes[Math.floor(random() * partySizes.length)] ?? 1;
    const base = Math.round(random() * 400) / 10;
    const scores = Array.from({ length: size }, () => base + Math.round(random() * 20) / 10);
    const latency: Record<string, number> = {};
    if (random() < 0.6) {
      latency.eu = Math.round(random() * 150);
      if (random() < 0.7) latency.us = Math.round(random() * 150);
    }
    const pick = random();
    const preferred = pick < 0.3 ? ['docks'] : pick < 0.5 ? ['canyon'] : [];
    const vetoed = pick > 0.8 ? ['ruins'] : pick > 0.4 && pick < 0.5 ? ['docks'] : [];
    const options = { enqueuedAt: -Math.floor(random() * 30_000), latency, preferred, vetoed };
    tickets.push(size === 1 ? solo(`t${k}`, scores[0] as number, options) : party(`t${k}`, scores, options));
  }
  return tickets;
}

function twoMatchers(c: CompetitiveConfig, tickets: readonly CompetitiveTicket[]): [CompetitiveMatcher, CompetitiveMatcher] {
  // The budget is generous and the clock is real: every climb converges, so results cannot depend on timing.
  const make = (): CompetitiveMatcher => new CompetitiveMatcher(c, { now: () => performance.now(), random: seededRandom(42) });
  const pair: [CompetitiveMatcher, CompetitiveMatcher] = [make(), make()];
  for (const m of pair) for (const t of tickets) m.add(t);
  return pair;
}

describe('competitive batches solved on worker threads', () => {
  let pool: SliceWorkerPool;
  beforeAll(async () => {
    pool = new SliceWorkerPool({ size: 2 });
    await pool.ready();
  });
  afterAll(async () => {
    await pool.close();
  });

  it('forms the same 1v1 games on workers as in process, over several slices', async () => {
    const c = config({
      maps,
      regions,
      expansion: steps([0, 0.05, 80], [10_000, 0.2, 120], [20_000, 1]),
    });
    const [inProcess, onWorkers] = twoMatchers(c, mixedTickets(9_000, 1, [1]));
    let slices = 0;
    const counting: SliceSolver = { solve: (task) => ((slices += 1), pool.solve(task)) };
    for (const at of [0, 15_000]) {
      const expected = inProcess.formGames(at);
      const actual = await onWorkers.formGamesOn(at, counting);
      expect(expected.length).toBeGreaterThan(100);
      expect(actual).toEqual(expected);
      expect(onWorkers.size).toBe(inProcess.size);
      expect(onWorkers.lastBatch()).toEqual(inProcess.lastBatch());
      expect(onWorkers.nextBatchAt()).toBe(inProcess.nextBatchAt());
    }
    expect(slices).toBeGreaterThan(2);
  });

  it('forms the same 5v5 games on workers as in process, parties and venues included', async () => {
    const c = config({
      teamSize: 5,
      teamScore: 'weighted',
      maps,
      regions,
      hillClimbBudgetMs: 60_000,
      expansion: steps([0, 4, 100], [10_000, 10]),
    });
    const [inProcess, onWorkers] = twoMatchers(c, mixedTickets(900, 2, [1, 1, 1, 2, 3]));
    const expected = inProcess.formGames(0);
    const actual = await onWorkers.formGamesOn(0, pool);
    expect(expected.length).toBeGreaterThan(10);
    expect(actual).toEqual(expected);
    expect(onWorkers.lastBatch()).toMatchObject({ converged: true, games: expected.length });
    expect(onWorkers.lastBatch()?.climbAttempts).toBe(inProcess.lastBatch()?.climbAttempts);
  });

  // formGames solves the batch's own entries, formGamesOn the typed-array stand-ins rebuilt on the
  // worker: over a run of mixed batches both must leave the matcher in the same state.
  it('forms the same games, reports and stats on workers as in process over a run of mixed batches', async () => {
    const c = config({
      teams: 3,
      teamSize: 2,
      teamScore: 'max',
      maps,
      regions,
      hillClimbBudgetMs: 60_000,
      expansion: steps([0, 3, 90], [10_000, 6, 130], [20_000, 40]),
    });
    const tickets = mixedTickets(1_600, 3, [1, 1, 2]);
    const [inProcess, onWorkers] = twoMatchers(c, tickets.slice(0, 1_000));
    for (const [at, arrivals] of [[0, tickets.slice(1_000)], [12_000, []], [30_000, []]] as const) {
      const expected = inProcess.formGames(at);
      const actual = await onWorkers.formGamesOn(at, pool);
      expect(actual).toEqual(expected);
      expect(onWorkers.lastBatch()).toEqual(inProcess.lastBatch());
      expect(onWorkers.stats()).toEqual(inProcess.stats());
      expect(onWorkers.size).toBe(inProcess.size);
      expect(onWorkers.nextBatchAt()).toBe(inProcess.nextBatchAt());
      for (const m of [inProcess, onWorkers]) for (const t of arrivals) m.add(t);
    }
    expect(inProcess.stats().gamesFormed).toBeGreaterThan(200);
    expect(inProcess.lastBatch()?.converged).toBe(true);
  });

  it('drops a game whose ticket was cancelled while the batch was out, and keeps its partner waiting', async () => {
    const m = new CompetitiveMatcher(config(), { now: () => 0, random: seededRandom(1) });
    for (const [id, score] of [['a', 1], ['b', 1.1], ['c', 5], ['d', 5.2]] as const) m.add(solo(id, score));
    const batch = m.formGamesOn(0, pool);
    expect(m.remove('a')).toBe(true);
    m.add(solo('late', 9, { enqueuedAt: 0 }));
    const games = await batch;
    expect(pairsOf(games)).toEqual(['c+d']);
    expect(m.size).toBe(2); // b, whose partner left, and the late arrival
    expect(m.lastBatch()).toMatchObject({ tickets: 4, games: 1, dropped: 1 });
    expect(m.stats().gamesFormed).toBe(1);
    // The late arrival counts as an arrival since the batch: b and late pair next.
    expect(m.nextBatchAt()).toBe(1_000);
    expect(pairsOf(m.formGames(1_000))).toEqual(['b+late']);
  });

  it('drops a game whose ticket was cancelled and re-queued under the same id', async () => {
    const m = new CompetitiveMatcher(config(), { now: () => 0, random: seededRandom(1) });
    m.add(solo('a', 1));
    m.add(solo('b', 2));
    const solver = new HeldSolver();
    const batch = m.formGamesOn(0, solver);
    m.remove('a');
    m.add(solo('a', 1, { enqueuedAt: 500 }));
    solver.release();
    expect(await batch).toEqual([]);
    expect(m.size).toBe(2);
  });

  it('lets only one batch out at a time', async () => {
    const m = new CompetitiveMatcher(config(), { now: () => 0, random: seededRandom(1) });
    for (const [id, score] of [['a', 1], ['b', 2], ['c', 3], ['d', 4]] as const) m.add(solo(id, score));
    const solver = new HeldSolver();
    const first = m.formGamesOn(0, solver);
    expect(m.batchOut).toBe(true);
    expect(m.nextBatchAt()).toBeUndefined();
    expect(() => m.formGames(0)).toThrow(/already out/);
    await expect(m.formGamesOn(0, solver)).rejects.toThrow(/already out/);
    expect(solver.waiting).toBe(1);
    solver.release();
    expect(await first).toHaveLength(2);
    expect(m.batchOut).toBe(false);
    m.add(solo('e', 5));
    expect(m.formGames(1_000)).toEqual([]);
  });

  it('leaves the pool as it was when the solver fails, so the batch can run again', async () => {
    const m = new CompetitiveMatcher(config(), { now: () => 0, random: seededRandom(1) });
    m.add(solo('a', 1));
    m.add(solo('b', 2));
    const failing: SliceSolver = { solve: () => Promise.reject(new Error('boom')) };
    await expect(m.formGamesOn(0, failing)).rejects.toThrow('boom');
    expect(m.batchOut).toBe(false);
    expect(m.size).toBe(2);
    expect(pairsOf(m.formGames(0))).toEqual(['a+b']);
  });

  it('rejects a slice the worker cannot solve, and keeps serving', async () => {
    await expect(pool.solve({ count: 1 } as unknown as SliceTask)).rejects.toThrow(/slice worker/);
    const m = new CompetitiveMatcher(config(), { now: () => 0, random: seededRandom(1) });
    m.add(solo('a', 1));
    m.add(solo('b', 2));
    expect(pairsOf(await m.formGamesOn(0, pool))).toEqual(['a+b']);
  });

  it('closes cleanly: pending slices reject, later ones too', async () => {
    const own = new SliceWorkerPool({ size: 1 });
    const m = new CompetitiveMatcher(config(), { now: () => 0, random: seededRandom(1) });
    m.add(solo('a', 1));
    m.add(solo('b', 2));
    const batch = expect(m.formGamesOn(0, own)).rejects.toThrow(/closed/);
    await own.close();
    await batch;
    expect(m.size).toBe(2);
    await expect(m.formGamesOn(0, own)).rejects.toThrow(/closed/);
    await own.close(); // idempotent
  });
});

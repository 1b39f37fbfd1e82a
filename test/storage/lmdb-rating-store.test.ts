import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_ELO, eloSystem, standing } from '../../src/ratings/index.js';
import { LmdbStore } from '../../src/storage/lmdb-store.js';

const elo = eloSystem(DEFAULT_ELO);
const byRating = (_: string, r: { mean: number }) => standing('elo', r as never);
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function game(winner: string, loser: string, ratings: ReadonlyMap<string, ReturnType<typeof elo.initial>>) {
  return elo.update({ teams: [[winner], [loser]], ranks: [0, 1], day: 1 }, ratings);
}

describe('LmdbRatingStore (real LMDB in a temp dir)', () => {
  it('records a game once, ranks and pages the board, keeps history, and survives a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gf-ratings-'));
    dirs.push(dir);
    let lmdb = LmdbStore.open(dir);
    let store = lmdb.openRatings(byRating);

    const first = game('a', 'b', new Map());
    expect(await store.recordResult({ ladder: 'duel', gameId: 'g1', at: 1000, ratings: first })).toBe(true);
    // A repeated report is acknowledged but not applied again.
    expect(await store.recordResult({ ladder: 'duel', gameId: 'g1', at: 2000, ratings: game('a', 'b', first) })).toBe(false);
    expect(store.get('duel', 'a')!.mean).toBe(1516);
    const second = game('c', 'a', new Map([['a', store.get('duel', 'a')!]]));
    expect(await store.recordResult({ ladder: 'duel', gameId: 'g2', at: 3000, ratings: second })).toBe(true);
    // The same game id on another ladder is a different result.
    expect(store.hasResult('other', 'g1')).toBe(false);

    const expectBoard = () => {
      const board = store.leaderboard('duel', 0, 10);
      const order = [...board].sort((x, y) => y.standing - x.standing);
      expect(board.map((e) => e.player)).toEqual(order.map((e) => e.player));
      expect(board.map((e) => e.rank)).toEqual([1, 2, 3]);
      expect(board[0]!.player).toBe('c');
      expect(store.rank('duel', 'b')).toBe(3);
      expect(store.rank('duel', 'nobody')).toBeUndefined();
      expect(store.size('duel')).toBe(3);
      expect(store.leaderboard('duel', 1, 1).map((e) => e.player)).toEqual([board[1]!.player]);
      const history = store.history('duel', 'a', 10);
      expect(history.map((h) => h.gameId)).toEqual(['g2', 'g1']);
      expect(history[1]!.after.mean).toBe(1516);
      expect(history[0]!.before.mean).toBe(1516);
      expect(store.history('duel', 'a', 1).map((h) => h.gameId)).toEqual(['g2']);
    };
    expectBoard();

    await lmdb.close();
    lmdb = LmdbStore.open(dir);
    store = lmdb.openRatings(byRating);
    expectBoard();
    expect(store.hasResult('duel', 'g1')).toBe(true);
    expect(await store.recordResult({ ladder: 'duel', gameId: 'g2', at: 4000, ratings: second })).toBe(false);
    await lmdb.close();
  });

  it('two reports of one game in flight at once apply it once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gf-ratings-'));
    dirs.push(dir);
    const lmdb = LmdbStore.open(dir);
    const store = lmdb.openRatings(byRating);
    const ratings = game('a', 'b', new Map());
    const both = await Promise.all([
      store.recordResult({ ladder: 'duel', gameId: 'g', at: 1, ratings }),
      store.recordResult({ ladder: 'duel', gameId: 'g', at: 2, ratings }),
    ]);
    expect(both.filter(Boolean)).toHaveLength(1);
    expect(store.history('duel', 'a', 10)).toHaveLength(1);
    await lmdb.close();
  });
});

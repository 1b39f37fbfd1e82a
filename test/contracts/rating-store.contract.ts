import { expect } from 'vitest';
import { DEFAULT_ELO, eloSystem, standing } from '../../src/ratings/index.js';
import type { RatingStore } from '../../src/ratings/rating-store.js';
import type { PlayerRating } from '../../src/ratings/rating-system.js';
import type { ContractCase } from './contract.js';

/**
 * One rating store as several coordinator nodes see it. A store kept in one process (in memory,
 * LMDB) has a single node: `node()` answers the same store. A shared store (Redis) opens another
 * node's view on the same data each time, and `settle` waits until a view has seen what the others
 * wrote (its mirror following).
 */
export interface RatingStoreNodes {
  node(): Promise<RatingStore>;
  settle(store: RatingStore): Promise<void>;
}

const elo = eloSystem(DEFAULT_ELO);
export const byStanding = (_: string, r: PlayerRating) => standing('elo', r);

/** The ratings after `winner` beat `loser`, from what `store` holds now. */
function game(store: RatingStore, ladder: string, winner: string, loser: string): ReadonlyMap<string, PlayerRating> {
  const before = new Map<string, PlayerRating>();
  for (const p of [winner, loser]) {
    const r = store.get(ladder, p);
    if (r) before.set(p, r);
  }
  return elo.update({ teams: [[winner], [loser]], ranks: [0, 1], day: 1 }, before);
}

const rated = (mean: number): PlayerRating => ({ ...elo.initial(), mean });

/** What every RatingStore adapter must do. */
export const ratingStoreCases: readonly ContractCase<RatingStoreNodes>[] = [
  {
    name: 'a game is applied once per ladder and game id; the same id on another ladder is another result',
    async run(make) {
      const store = await (await make()).node();
      const first = game(store, 'duel', 'a', 'b');
      expect(await store.recordResult({ ladder: 'duel', gameId: 'g1', at: 1000, ratings: first })).toBe(true);
      expect(store.hasResult('duel', 'g1')).toBe(true);
      expect(await store.recordResult({ ladder: 'duel', gameId: 'g1', at: 2000, ratings: game(store, 'duel', 'a', 'b') })).toBe(false);
      expect(store.get('duel', 'a')!.mean).toBe(1516);
      expect(store.hasResult('other', 'g1')).toBe(false);
      expect(await store.recordResult({ ladder: 'other', gameId: 'g1', at: 3000, ratings: game(store, 'other', 'b', 'a') })).toBe(true);
      expect(store.get('other', 'b')!.mean).toBe(1516);
      expect(store.get('duel', 'b')!.mean).toBe(1484);
    },
  },
  {
    name: 'rank, size and leaderboard pages follow standing, best first, ties by player id',
    async run(make) {
      const store = await (await make()).node();
      await store.put('duel', 'carol', rated(1600));
      await store.put('duel', 'bob', rated(1500));
      await store.put('duel', 'alice', rated(1500));
      await store.put('duel', 'dave', rated(1400));
      expect(store.size('duel')).toBe(4);
      expect(store.leaderboard('duel', 0, 10).map((e) => [e.player, e.rank])).toEqual([
        ['carol', 1],
        ['alice', 2],
        ['bob', 3],
        ['dave', 4],
      ]);
      expect(store.leaderboard('duel', 1, 2).map((e) => e.player)).toEqual(['alice', 'bob']);
      expect(store.leaderboard('duel', 0, 1)[0]!.standing).toBe(byStanding('duel', rated(1600)));
      expect(store.rank('duel', 'dave')).toBe(4);
      expect(store.rank('duel', 'nobody')).toBeUndefined();
      await store.put('duel', 'dave', rated(1700));
      expect(store.rank('duel', 'dave')).toBe(1);
      expect(store.get('duel', 'dave')!.mean).toBe(1700);
      expect(store.size('empty')).toBe(0);
      expect(store.leaderboard('empty', 0, 10)).toEqual([]);
    },
  },
  {
    name: "history: a player's games newest first, at most limit, with the rating before and after",
    async run(make) {
      const store = await (await make()).node();
      await store.recordResult({ ladder: 'duel', gameId: 'g1', at: 1000, ratings: game(store, 'duel', 'a', 'b') });
      await store.recordResult({ ladder: 'duel', gameId: 'g2', at: 2000, ratings: game(store, 'duel', 'c', 'a') });
      const history = store.history('duel', 'a', 10);
      expect(history.map((h) => h.gameId)).toEqual(['g2', 'g1']);
      expect(history[1]!.after.mean).toBe(1516);
      expect(history[0]!.before.mean).toBe(1516);
      expect(history[0]!.at).toBe(2000);
      expect(store.history('duel', 'a', 1).map((h) => h.gameId)).toEqual(['g2']);
      expect(store.history('duel', 'nobody', 10)).toEqual([]);
    },
  },
  {
    name: 'two reports of one game in flight at once apply it once',
    async run(make) {
      const store = await (await make()).node();
      const ratings = game(store, 'duel', 'a', 'b');
      const both = await Promise.all([
        store.recordResult({ ladder: 'duel', gameId: 'g', at: 1, ratings }),
        store.recordResult({ ladder: 'duel', gameId: 'g', at: 2, ratings }),
      ]);
      expect(both.filter(Boolean)).toHaveLength(1);
      expect(store.history('duel', 'a', 10)).toHaveLength(1);
    },
  },
  {
    name: 'a result recorded through one node is seen on every node, and no node applies it again',
    async run(make) {
      const nodes = await make();
      const [first, second] = [await nodes.node(), await nodes.node()];
      expect(await first.recordResult({ ladder: 'duel', gameId: 'g1', at: 1000, ratings: game(first, 'duel', 'a', 'b') })).toBe(true);
      await nodes.settle(second);
      expect(second.get('duel', 'a')!.mean).toBe(1516);
      expect(second.rank('duel', 'b')).toBe(2);
      expect(second.hasResult('duel', 'g1')).toBe(true);
      expect(second.history('duel', 'b', 10).map((h) => h.gameId)).toEqual(['g1']);
      expect(await second.recordResult({ ladder: 'duel', gameId: 'g1', at: 1001, ratings: game(second, 'duel', 'a', 'b') })).toBe(false);
      await nodes.settle(first);
      expect(first.get('duel', 'a')!.mean).toBe(1516);
    },
  },
  {
    name: 'two nodes racing to record the same game apply it once',
    async run(make) {
      const nodes = await make();
      const [first, second] = [await nodes.node(), await nodes.node()];
      const both = await Promise.all([
        first.recordResult({ ladder: 'duel', gameId: 'g', at: 1, ratings: game(first, 'duel', 'a', 'b') }),
        second.recordResult({ ladder: 'duel', gameId: 'g', at: 2, ratings: game(second, 'duel', 'a', 'b') }),
      ]);
      expect(both.filter(Boolean)).toHaveLength(1);
      await Promise.all([nodes.settle(first), nodes.settle(second)]);
      expect(first.get('duel', 'a')).toEqual(second.get('duel', 'a'));
      expect(first.history('duel', 'a', 10)).toHaveLength(1);
    },
  },
  {
    name: 'a node that starts later sees every rating, rank and recorded game',
    async run(make) {
      const nodes = await make();
      const first = await nodes.node();
      await first.put('duel', 'seeded', rated(1800));
      await first.recordResult({ ladder: 'duel', gameId: 'g1', at: 1000, ratings: game(first, 'duel', 'a', 'b') });
      const later = await nodes.node();
      await nodes.settle(later);
      expect(later.leaderboard('duel', 0, 10)).toEqual(first.leaderboard('duel', 0, 10));
      expect(later.size('duel')).toBe(3);
      expect(later.hasResult('duel', 'g1')).toBe(true);
      expect(await later.recordResult({ ladder: 'duel', gameId: 'g1', at: 5, ratings: game(later, 'duel', 'a', 'b') })).toBe(false);
    },
  },
];

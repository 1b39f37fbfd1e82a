import { defineCase } from '../case.js';
import { DEFAULT_GLICKO2, DEFAULT_TRUESKILL, glicko2System, trueskillSystem, type PlayerRating } from '../../../src/ratings/index.js';
import { RankedLadder } from '../../../src/ratings/ranked-ladder.js';

/**
 * Ratings budgets (issue 12): a rating update is O(players in the game), so O(1) in the ladder's
 * size; rank look-up and re-ranking a player are O(log n). Like placement.case.ts, calls cycle
 * over HOT players spread by `pick`, so the working set is HOT tree paths at every size and what
 * grows with n is the depth walked, not cache misses.
 */
const HOT = 64;
const pick = (i: number, n: number): number => (Math.imul(i + 1, 2654435761) >>> 0) % n;

function ladderOf(n: number): { ladder: RankedLadder; ratings: Map<string, PlayerRating>; hot: string[] } {
  let seed = 1;
  const random = () => ((seed = Math.imul(seed, 48271) % 2147483647) & 0x7fffffff) / 2147483647;
  const ladder = new RankedLadder(random);
  const ratings = new Map<string, PlayerRating>();
  for (let k = 0; k < n; k++) {
    const r: PlayerRating = { mean: 1000 + ((k * 7919) % 1000), deviation: 80, volatility: 0.06, games: 10, lastPlayedDay: 1, rankPoints: (k * 7919) % 10_000 };
    ratings.set(`player-${k}`, r);
    ladder.set(`player-${k}`, r.rankPoints!);
  }
  const hot = Array.from({ length: Math.min(HOT, n) }, (_, j) => `player-${pick(j, n)}`);
  return { ladder, ratings, hot };
}

const glicko2 = glicko2System(DEFAULT_GLICKO2);
const trueskill = trueskillSystem(DEFAULT_TRUESKILL);

export default [
  defineCase({
    name: 'ratings: rank look-up on an n-player ladder',
    budget: 'O(log n)',
    minLog2: 10,
    maxLog2: 16,
    setup: ladderOf,
    run: ({ ladder, hot }, i) => ladder.rank(hot[i % hot.length]!),
  }),
  defineCase({
    name: 'ratings: a 1v1 Glicko-2 update among n rated players',
    budget: 'O(1)',
    minLog2: 10,
    maxLog2: 16,
    setup: ladderOf,
    run: ({ ratings, hot }, i) =>
      glicko2.update({ teams: [[hot[i % hot.length]!], [hot[(i + 1) % hot.length]!]], ranks: [0, 1], day: 2 }, ratings).size,
  }),
  defineCase({
    name: 'ratings: a 2v2 TrueSkill update among n rated players',
    budget: 'O(1)',
    minLog2: 10,
    maxLog2: 16,
    setup: ladderOf,
    run: ({ ratings, hot }, i) => {
      const p = (k: number) => hot[(i + k) % hot.length]!;
      return trueskill.update({ teams: [[p(0), p(1)], [p(2), p(3)]], ranks: [1, 0], day: 2 }, ratings).size;
    },
  }),
  defineCase({
    name: 'ratings: re-rank a player after a game on an n-player ladder',
    budget: 'O(log n)',
    minLog2: 10,
    maxLog2: 16,
    setup: ladderOf,
    run: ({ ladder, hot }, i) => {
      const player = hot[i % hot.length]!;
      ladder.set(player, (ladder.standingOf(player)! + 37) % 10_000);
      return ladder.size;
    },
  }),
];

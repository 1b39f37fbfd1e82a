/**
 * Ratings (issue 12): rating updates per second for each system, and rank look-ups per second on
 * a 1M-player ladder, against a baseline measured in the same run: counting the players ahead
 * with a scan of the standings (what a store without an order-statistic index would do).
 */
import { DEFAULT_ELO, DEFAULT_GLICKO2, DEFAULT_TRUESKILL, eloSystem, glicko2System, trueskillSystem, type PlayerRating, type RatingSystem } from '../../src/ratings/index.js';
import { RankedLadder } from '../../src/ratings/ranked-ladder.js';
import type { BenchOptions, BenchRow, BenchSuite } from './bench-suite.js';

const OURS = 'gamefactory';

function rate(label: number, seconds: number): number {
  return label / seconds;
}

function time(run: () => void): number {
  const start = performance.now();
  run();
  return (performance.now() - start) / 1000;
}

function updates(system: RatingSystem, teamSize: number, games: number): number {
  const players = 1000;
  const ratings = new Map<string, PlayerRating>();
  let seed = 7;
  const next = () => (seed = (Math.imul(seed, 48271) % 2147483647) & 0x7fffffff) % players;
  const seconds = time(() => {
    for (let g = 0; g < games; g++) {
      const teams = [0, 1].map((t) => Array.from({ length: teamSize }, (_, k) => `p${(next() + t * 7 + k) % players}-${t}`));
      const after = system.update({ teams, ranks: g % 5 === 0 ? [0, 0] : [0, 1], day: g >> 10 }, ratings);
      for (const [p, r] of after) ratings.set(p, r);
    }
  });
  return rate(games, seconds);
}

const suite: BenchSuite = {
  name: 'ratings',
  async run(options: BenchOptions): Promise<BenchRow[]> {
    const rows: BenchRow[] = [];
    const games = options.quick ? 2_000 : 50_000;
    const systems: [string, RatingSystem][] = [
      ['elo', eloSystem(DEFAULT_ELO)],
      ['glicko2', glicko2System(DEFAULT_GLICKO2)],
      ['trueskill', trueskillSystem(DEFAULT_TRUESKILL)],
    ];
    for (const teamSize of [1, 5]) {
      for (const [name, system] of systems) {
        rows.push({ group: `rating updates ${teamSize}v${teamSize} (games/s)`, subject: name, metric: 'games/s', value: updates(system, teamSize, games), higherIsBetter: true });
      }
    }

    const n = options.quick ? 10_000 : 1_000_000;
    const ladder = new RankedLadder();
    const standings = new Float64Array(n);
    for (let k = 0; k < n; k++) {
      standings[k] = (Math.imul(k + 1, 2654435761) >>> 0) % 10_000;
      ladder.set(`player-${k}`, standings[k]!);
    }
    const lookups = options.quick ? 10_000 : 200_000;
    let sink = 0;
    const ours = time(() => {
      for (let i = 0; i < lookups; i++) sink += ladder.rank(`player-${(Math.imul(i + 1, 40503) >>> 0) % n}`)!;
    });
    const scans = options.quick ? 20 : 50;
    const scan = time(() => {
      for (let i = 0; i < scans; i++) {
        const k = (Math.imul(i + 1, 40503) >>> 0) % n;
        const mine = standings[k]!;
        let ahead = 0;
        for (let j = 0; j < n; j++) if (standings[j]! > mine || (standings[j] === mine && j < k)) ahead++;
        sink += ahead;
      }
    });
    if (sink < 0) throw new Error('unreachable');
    const group = 'rank look-up (look-ups/s)';
    rows.push({ group, subject: OURS, n, metric: 'ops/s', value: rate(lookups, ours), higherIsBetter: true });
    rows.push({ group, subject: 'scan of standings', n, metric: 'ops/s', value: rate(scans, scan), higherIsBetter: true });
    return rows;
  },
};

export default suite;

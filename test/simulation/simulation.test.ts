import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { runCompetitive } from '../../src/simulation/competitive-run.js';
import { createPopulation } from '../../src/simulation/population.js';
import { RandomPairingQueue } from '../../src/simulation/queues/random-pairing-queue.js';
import { SkillBucketQueue } from '../../src/simulation/queues/skill-bucket-queue.js';
import type { QueuedTicket } from '../../src/simulation/queues/simulated-queue.js';
import { parseScenario } from '../../src/simulation/scenario.js';
import { runSimulation } from '../../src/simulation/simulation.js';

const CONFIG = parseConfig(`
factories:
  - name: duel
    competitive:
      teams: 2
      teamSize: 1
      batch: { maxTickets: 1000, intervalMs: 500 }
      expansion:
        - { afterSeconds: 0, maxScoreGap: 100, maxLatencyMs: 150 }
        - { afterSeconds: 10, maxScoreGap: 300, maxLatencyMs: 300 }
        - { afterSeconds: 40 }
      regions: [us-east, eu-west]
      locality:
        regions:
          us-east: { latitude: 39, longitude: -77 }
          eu-west: { latitude: 53, longitude: -6 }
  - name: coop
    cooperative: { maxPlayers: 4 }
`);

const SCENARIO = `
seed: 7
factory: duel
population:
  players: 400
  skill: { mean: 1500, sd: 200 }
  performanceSd: 150
  regions:
    - { name: us-east, weight: 1, latitude: 39, longitude: -90 }
    - { name: eu-west, weight: 1, latitude: 50, longitude: 5, languages: { fr: 1 } }
arrivals: { perSecond: 5, dailyCurve: { amplitude: 0.5, peakHour: 0 } }
sessions: { gamesMean: 3, gameSeconds: 60 }
durationHours: 0.1
frontier: { rates: [20], tickets: 100 }
cooperative: { factory: coop, perSecond: 1, sessionMinutes: 5, hours: 0.5, matchable: { act: [1, 2] } }
`;

describe('gamefactory simulate', () => {
  it('gives the same report, to the last digit, for the same seed; another seed differs', () => {
    const scenario = parseScenario(SCENARIO);
    const first = runSimulation({ scenario, config: CONFIG });
    const again = runSimulation({ scenario, config: CONFIG });
    expect(JSON.stringify(again)).toBe(JSON.stringify(first));
    expect(first.main.games).toBeGreaterThan(0);
    expect(first.ratings.map((r) => r.system)).toEqual(['elo', 'glicko2', 'trueskill']);
    expect(first.ratings[0]?.errorByGames.length).toBeGreaterThan(0);
    expect(first.main.matchedOn).toBe('true skill'); // the test config's duel names no ladder
    expect(first.cooperative?.gamesSampled).toBeGreaterThan(0);
    const other = runSimulation({ scenario: { ...scenario, seed: 8 }, config: CONFIG });
    expect(JSON.stringify(other.main)).not.toBe(JSON.stringify(first.main));
    // Three whole runs, each through every operating point of the frontier: minutes on a busy
    // 2-core machine, so this test gets more than the default 30 s (a limit, not a speed check).
  }, 180_000);

  it('a tiny scenario matches the hand-computed figures: two players, random pairing, one game', () => {
    // Two players, one game each session (gamesMean 1): the first session starts, the second
    // joins, the pair plays. Waits are the second's arrival minus the first's, and 0 for the
    // second (rounded up to the check tick); the gap is |skill difference| / sd.
    const scenario = parseScenario(SCENARIO.replace('players: 400', 'players: 2').replace('gamesMean: 3', 'gamesMean: 1'));
    const population = createPopulation(scenario, 1);
    const locality = { msPerKm: 0.02, baseMs: 10, regionLocations: new Map([['us-east', { latitude: 39, longitude: -77 }]]) };
    const arrived: QueuedTicket[] = [];
    const queue = new RandomPairingQueue();
    const recording = {
      name: 'recording',
      arrive: (t: QueuedTicket) => (arrived.push(t), queue.arrive(t)),
      check: () => queue.check(),
      get waiting() {
        return queue.waiting;
      },
    };
    const log = runCompetitive({ scenario, population, queue: recording, perSecond: 5, durationMs: 10_000, teams: 2, teamSize: 1, locality });
    expect(log.games).toBe(1);
    const [a, b] = arrived as [QueuedTicket, QueuedTicket];
    const tick = Math.ceil(b.enqueuedAt / 250) * 250;
    expect(log.waitsMs).toEqual([tick - a.enqueuedAt, tick - b.enqueuedAt]);
    const [p, q] = population as [(typeof population)[0], (typeof population)[0]];
    expect(log.gapsSigma).toEqual([Math.abs(p.trueSkill - q.trueSkill) / 200]);
    expect(log.ticketsQueued).toBe(2);
    // Both players are busy until their game ends (60 s +- 50%), so no third ticket can arrive.
    expect(log.unmatched).toBe(0);
  });

  it('skill buckets follow the design doc: Pawn20 and Grunt17 meet in cycle 4, not before', () => {
    const queue = new SkillBucketQueue({ bucketWidth: 1, rangeStepMs: 1000, rangeMax: 10 });
    const ticket = (id: string, score: number, enqueuedAt: number): QueuedTicket => ({
      id,
      players: [],
      playerScores: [score],
      score,
      uncertainty: 0,
      enqueuedAt,
      latencyMs: new Map(),
      location: { latitude: 0, longitude: 0 },
      language: 'en',
      bestLatencyMs: 0,
    });
    queue.arrive(ticket('Pawn20', 20, 0));
    expect(queue.check(0)).toEqual([]);
    queue.arrive(ticket('Grunt17', 17, 1000));
    expect(queue.check(1000)).toEqual([]);
    expect(queue.check(2000)).toEqual([]);
    expect(queue.check(3000)).toEqual([]); // Pawn20 reaches 17, but Grunt17's range (2) does not reach back
    expect(queue.check(4000)).toEqual([{ teams: [['Pawn20'], ['Grunt17']] }]);
  });
});

describe('gamefactory simulate: the ready check', () => {
  it('shows what declines cost in waits: none broken at 100%, some at 90%, each wait longer', () => {
    const scenario = { ...parseScenario(SCENARIO), frontier: { rates: [20], tickets: 2000 } };
    const report = runSimulation({ scenario, config: CONFIG });
    const [none, all, ninety] = report.readyCheck;
    expect([none!.acceptance, all!.acceptance, ninety!.acceptance]).toEqual([undefined, 1, 0.9]);
    expect(all!.brokenMatches).toBe(0);
    expect(ninety!.brokenMatches).toBeGreaterThan(0);
    // Answering takes up to 5 s (2.5 s on average) before a game starts; a broken match costs more.
    expect(all!.meanWaitS).toBeGreaterThan(none!.meanWaitS + 1);
    expect(ninety!.meanWaitS).toBeGreaterThan(all!.meanWaitS);
  }, 300_000);
});

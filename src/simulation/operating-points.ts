import type { CompetitiveConfig, ExpansionStep, PairWindow } from '../competitive/index.js';
import { GamefactoryQueue } from './queues/gamefactory-queue.js';
import { LenienceQueue } from './queues/lenience-queue.js';
import { RandomPairingQueue } from './queues/random-pairing-queue.js';
import type { SimulatedQueue } from './queues/simulated-queue.js';
import { SkillBucketQueue } from './queues/skill-bucket-queue.js';

/**
 * Every matcher at a few operating points (settings trading gap for wait), for the gap/wait
 * frontier. Skill only: regions are left out, so no matcher is held back by latency caps the
 * others do not have. Units: sd = the population's skill sd.
 */
export interface OperatingPoint {
  readonly matcher: 'gamefactory' | 'gamefactory (default schedule)' | 'skill buckets' | 'lenience model' | 'random pairing';
  readonly setting: string;
  readonly make: (seed: number) => SimulatedQueue;
}

/**
 * Ours: a first window of w0 sd that grows by `growth` sd per second of waiting, any gap after
 * capS. Two shapes, not one: phase 1's single family (growth = w0 / 5 s) left the range between
 * narrow-and-fast (where 1-per-second buckets sit) and wide-and-slow unexplored, and the cap is
 * what bounds p99 waits, which the goal compares too.
 */
export function growingWindow(w0: number, growth: number, capS: number, sd: number): ExpansionStep[] {
  const steps: ExpansionStep[] = [];
  for (let s = 0; s < capS; s += 1) steps.push({ afterMs: s * 1000, maxScoreGap: (w0 + growth * s) * sd, maxLatencyMs: Infinity });
  steps.push({ afterMs: capS * 1000, maxScoreGap: Infinity, maxLatencyMs: Infinity });
  return steps;
}

/** Phase 1's family (perf/bench uses it): growth w0 per 5 s, any gap after 2 minutes. */
export function widening(w0: number, sd: number): ExpansionStep[] {
  return growingWindow(w0, w0 / 5, 120, sd);
}

/** The grid of our settings; the report keeps them all, the frontier chart draws the efficient ones. */
export const OUR_WINDOWS = [0.02, 0.05, 0.1, 0.2, 0.4] as const;
export const OUR_GROWTHS = [0.01, 0.05, 0.2] as const;
export const OUR_CAPS_S = [10, 120] as const;
/**
 * Both pair-window rules (factories.yaml `pairWindow`) are settings of ours: longer-waiter gives
 * closer games where waits are long, reciprocal where they are short (docs/match-quality.md).
 */
export const OUR_PAIR_WINDOWS: readonly PairWindow[] = ['longer-waiter', 'reciprocal'];
/** Our batch interval at these points: the baselines' check period, so neither side batches longer. */
export const OUR_INTERVAL_MS = 250;

export function operatingPoints(factory: CompetitiveConfig, sd: number): OperatingPoint[] {
  const skillOnly: CompetitiveConfig = {
    ...factory,
    regions: [],
    hillClimbBudgetMs: 0,
    expansion: factory.expansion.map((s) => ({ ...s, maxLatencyMs: Infinity })),
  };
  const points: OperatingPoint[] = [];
  // Batch interval, window, growth and cap are all factories.yaml options (batch.intervalMs, expansion).
  for (const pairWindow of OUR_PAIR_WINDOWS) {
    for (const w0 of OUR_WINDOWS) {
      for (const growth of OUR_GROWTHS) {
        for (const capS of OUR_CAPS_S) {
          points.push({
            matcher: 'gamefactory',
            setting: `window ${w0} sd +${growth} sd/s, any after ${capS} s, ${pairWindow}`,
            make: (seed) =>
              new GamefactoryQueue(
                {
                  ...skillOnly,
                  pairWindow,
                  batch: { ...skillOnly.batch, intervalMs: OUR_INTERVAL_MS },
                  expansion: growingWindow(w0, growth, capS, sd),
                },
                seed,
              ),
          });
        }
      }
    }
  }
  points.push({
    matcher: 'gamefactory (default schedule)',
    setting: 'factories.yaml expansion',
    make: (seed) => new GamefactoryQueue(skillOnly, seed, 'gamefactory (default schedule)'),
  });
  // The design doc's settings (round() of a TrueSkill score ~ 1/8 of its sd per bucket), and faster widening.
  for (const stepS of [1, 5, 20]) {
    points.push({
      matcher: 'skill buckets',
      setting: `1 bucket (0.125 sd) per ${stepS} s, max 10`,
      make: () => new SkillBucketQueue({ bucketWidth: 0.125 * sd, rangeStepMs: stepS * 1000, rangeMax: 10 }),
    });
  }
  // The paper's M: 25 Elo points (0.125 sd of a 200-point spread) acceptable at once with 50 ms pings.
  for (const growth of [0.05, 0.2, 1]) {
    points.push({
      matcher: 'lenience model',
      setting: `lenience +${growth}/s`,
      make: () => new LenienceQueue({ perScore: 0.5 / (0.125 * sd), perMs: 1 / 200, growthPerSecond: growth }),
    });
  }
  points.push({ matcher: 'random pairing', setting: 'oldest two', make: () => new RandomPairingQueue() });
  return points;
}

import type { CompetitiveConfig, ExpansionStep, PairWindow, WaitTarget } from '../competitive/index.js';
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
  readonly matcher: Matcher;
  readonly setting: string;
  readonly make: (seed: number) => SimulatedQueue;
}

/** gamefactory's settings, and the baselines they are held against. */
export const SCHEDULES = 'gamefactory (schedules)';
export const TARGETS = 'gamefactory (wait targets)';
export const AS_SHIPPED = 'gamefactory (factory as shipped)';
export const BASELINES = ['skill buckets', 'lenience model', 'random pairing'] as const;
export type Matcher = typeof SCHEDULES | typeof TARGETS | typeof AS_SHIPPED | (typeof BASELINES)[number];

export function isOurs(matcher: string): boolean {
  return matcher.startsWith('gamefactory');
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
/**
 * Our batch interval at these points: a batch at every check of the simulation (every checkMs), as
 * the baselines look at their queues. With a 250 ms interval, a ticket arriving to an empty pool
 * waited a whole interval from its arrival before its first batch, so its batch fell on the second
 * check after it, where a baseline looks at the first.
 */
export const OUR_INTERVAL_MS = 1;

/** The wait targets drawn on the frontier: p99 waits alone, and with a mean of a ninth of it. */
export const TARGET_P99_S = [0.5, 1, 2, 4, 8, 16, 32, 64] as const;
export const TARGET_MEAN_SHARE = 1 / 9;
/**
 * Targets set to a baseline's own waits (and a little under, since a target is met on average, not
 * to the millisecond; 0.3 of them asks for everyone to play at the next batch): a factory that says
 * "as long as skill buckets make players wait" and gets what gap it can.
 */
export const TARGET_MARGINS = [1, 0.96, 0.92, 0.88, 0.84, 0.3] as const;

/** The factory with only skill to match on: no regions, soft preferences or latency caps. */
export function skillOnly(factory: CompetitiveConfig): CompetitiveConfig {
  return {
    ...factory,
    regions: [],
    softPreferences: [],
    hillClimbBudgetMs: 0,
    expansion: factory.expansion.map((s) => ({ ...s, maxLatencyMs: Infinity })),
  };
}

/** Our settings under a wait target: budget pairing, a batch at every check. */
export function targetPoint(factory: CompetitiveConfig, target: WaitTarget, setting: string): OperatingPoint {
  const base = skillOnly(factory);
  return {
    matcher: TARGETS,
    setting,
    make: (seed) =>
      new GamefactoryQueue(
        {
          ...base,
          pairWindow: 'budget',
          target,
          batch: { ...base.batch, intervalMs: OUR_INTERVAL_MS },
          expansion: [{ afterMs: 0, maxScoreGap: Infinity, maxLatencyMs: Infinity }],
        },
        seed,
        TARGETS,
      ),
  };
}

/** Targets at a baseline's own mean and p99 wait (see TARGET_MARGINS). */
export function targetsAt(factory: CompetitiveConfig, baseline: { readonly meanWaitS: number; readonly p99WaitS: number; readonly matcher: string; readonly setting: string }): OperatingPoint[] {
  return TARGET_MARGINS.map((margin) => {
    const waitP99Ms = Math.max(1, Math.round(baseline.p99WaitS * 1000 * margin));
    const meanWaitMs = Math.max(1, Math.min(waitP99Ms, Math.round(baseline.meanWaitS * 1000 * margin)));
    return targetPoint(factory, { waitP99Ms, meanWaitMs }, `p99 ${waitP99Ms} ms, mean ${meanWaitMs} ms (${margin} x ${baseline.matcher}, ${baseline.setting})`);
  });
}

export function operatingPoints(factory: CompetitiveConfig, sd: number): OperatingPoint[] {
  const scheduleOnly: CompetitiveConfig = { ...skillOnly(factory), target: undefined };
  const points: OperatingPoint[] = [];
  // Batch interval, window, growth and cap are all factories.yaml options (batch.intervalMs, expansion).
  for (const pairWindow of OUR_PAIR_WINDOWS) {
    for (const w0 of OUR_WINDOWS) {
      for (const growth of OUR_GROWTHS) {
        for (const capS of OUR_CAPS_S) {
          points.push({
            matcher: SCHEDULES,
            setting: `window ${w0} sd +${growth} sd/s, any after ${capS} s, ${pairWindow}`,
            make: (seed) =>
              new GamefactoryQueue(
                {
                  ...scheduleOnly,
                  pairWindow,
                  batch: { ...scheduleOnly.batch, intervalMs: OUR_INTERVAL_MS },
                  expansion: growingWindow(w0, growth, capS, sd),
                },
                seed,
                SCHEDULES,
              ),
          });
        }
      }
    }
  }
  for (const p99 of TARGET_P99_S) {
    points.push(targetPoint(factory, { waitP99Ms: p99 * 1000 }, `p99 ${p99} s`));
    const mean = Math.round(p99 * 1000 * TARGET_MEAN_SHARE);
    points.push(targetPoint(factory, { waitP99Ms: p99 * 1000, meanWaitMs: mean }, `p99 ${p99} s, mean ${mean} ms`));
  }
  // The factory exactly as factories.yaml ships it (its own batch interval and target or expansion).
  const shipped = skillOnly(factory);
  points.push({
    matcher: AS_SHIPPED,
    setting: factory.target === undefined ? 'factories.yaml expansion' : `factories.yaml target ${JSON.stringify(factory.target)}`,
    make: (seed) => new GamefactoryQueue(shipped, seed, AS_SHIPPED),
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

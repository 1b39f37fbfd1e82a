import { readFileSync } from 'node:fs';
import { parseDocument } from 'yaml';
import { z } from 'zod';

/**
 * A simulation scenario: who plays (hidden true skills, regions, languages), how they
 * arrive, how long they stay, and what to measure. parse -> validate, like factories.yaml.
 */
const region = z.strictObject({
  name: z.string().min(1),
  weight: z.number().positive(),
  latitude: z.number().min(-90).max(90),
  longitude: z.number().min(-180).max(180),
  /** Players are spread around the centre by this sd, in degrees. */
  spreadDegrees: z.number().min(0).max(60).default(5),
  /** language -> share of the region's players. */
  languages: z.record(z.string(), z.number().positive()).default({ en: 1 }),
});

export const scenarioSchema = z.strictObject({
  seed: z.number().int().min(0).max(0xffff_ffff),
  /** The competitive template of factories.yaml whose settings the matcher runs with. */
  factory: z.string().min(1),
  population: z.strictObject({
    players: z.number().int().min(2).max(10_000_000),
    skill: z.strictObject({ mean: z.number(), sd: z.number().positive() }),
    /** sd of a player's performance in one game around their true skill: the game's luck. */
    performanceSd: z.number().positive(),
    regions: z.array(region).min(1),
    /** Share of tickets that carry measured pings; the rest only their location. */
    measuredPingShare: z.number().min(0).max(1).default(0.5),
  }),
  arrivals: z.strictObject({
    /** Tickets entering the queue per second (sessions start at perSecond / sessions.gamesMean). */
    perSecond: z.number().positive(),
    /** Demand over the day: perSecond x (1 + amplitude x cos(2 pi (hour - peakHour) / 24)). */
    dailyCurve: z.strictObject({ amplitude: z.number().min(0).max(1), peakHour: z.number().min(0).max(24) }).optional(),
    /** Party size -> weight (only used when the factory's teams hold more than one player). */
    partySizes: z.record(z.string().regex(/^[1-9][0-9]*$/), z.number().positive()).default({ '1': 1 }),
  }),
  sessions: z.strictObject({
    /** Games per session, geometric with this mean. */
    gamesMean: z.number().min(1),
    gameSeconds: z.number().positive(),
  }),
  durationHours: z.number().positive().max(24 * 30),
  /** How often the baselines check their queues (the bucket design's 250 ms). */
  checkMs: z.number().int().positive().default(250),
  frontier: z
    .strictObject({
      rates: z.array(z.number().positive()).min(1).default([2, 20, 200]),
      /** Tickets per operating point; its simulated time is tickets / rate. */
      tickets: z.number().int().min(100).default(20_000),
    })
    .default({ rates: [2, 20, 200], tickets: 20_000 }),
  /**
   * The rating systems that rate every game of the day (Elo, Glicko-2, TrueSkill), with
   * the parameters of the config's ladder of that system (the factory's own first), else defaults.
   * matchOn: ladder = players are matched on the factory's ladder's ratings (as in production, a
   * ticket without a score), true-skill = on their hidden skill.
   */
  ratings: z
    .strictObject({
      systems: z.array(z.enum(['elo', 'glicko2', 'trueskill'])).default(['elo', 'glicko2', 'trueskill']),
      matchOn: z.enum(['ladder', 'true-skill']).default('ladder'),
    })
    .default({ systems: ['elo', 'glicko2', 'trueskill'], matchOn: 'ladder' }),
  cooperative: z
    .strictObject({
      /** The cooperative template of factories.yaml. */
      factory: z.string().min(1),
      perSecond: z.number().positive(),
      /** The same run at these arrival rates too: demand's size decides how full games stay. */
      alsoPerSecond: z.array(z.number().positive()).default([]),
      sessionMinutes: z.number().positive(),
      hours: z.number().positive(),
      /** Matchable attribute -> values players pick from uniformly. */
      matchable: z.record(z.string(), z.array(z.union([z.string(), z.number()])).min(1)).default({}),
    })
    .optional(),
});

export type Scenario = z.infer<typeof scenarioSchema>;

export class ScenarioError extends Error {
  override readonly name = 'ScenarioError';
}

export function parseScenario(text: string, source = 'scenario'): Scenario {
  const doc = parseDocument(text);
  if (doc.errors.length > 0) throw new ScenarioError(`${source}: invalid YAML: ${doc.errors.map((e) => e.message).join('; ')}`);
  const result = scenarioSchema.safeParse(doc.toJS());
  if (!result.success) {
    const problems = result.error.issues.map((i) => `  at ${i.path.join('.') || '(top level)'}: ${i.message}`);
    throw new ScenarioError(`${source}: invalid scenario:\n${problems.join('\n')}`);
  }
  return result.data;
}

export function loadScenarioFile(path: string): Scenario {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ScenarioError(`${path}: cannot read: ${(error as Error).message}`);
  }
  return parseScenario(text, path);
}

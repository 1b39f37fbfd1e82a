import { readFileSync } from 'node:fs';
import { parseDocument } from 'yaml';
import { z } from 'zod';
import { ScenarioError } from '../scenario.js';

/**
 * The experiment of seeds/parallel-matchmaking-elo-trueskill.txt (May, Clarke and Tachida,
 * "Parallel Matchmaking", 2019) as a scenario: a fixed population in discrete time steps, every
 * player not in a game queueing, games of a fixed length, the lenience rule against gamefactory's
 * matcher on the same population, rated by Elo and by TrueSkill. What the paper leaves open is a
 * setting here, with the value we chose.
 */
export const paperScenarioSchema = z.strictObject({
  experiment: z.literal('parallel-matchmaking'),
  seed: z.number().int().min(0).max(0xffff_ffff),
  players: z.number().int().min(2).max(1_000_000),
  /** Hidden true MMR, on an Elo scale; everyone starts rated at the mean. */
  trueMmr: z.strictObject({ mean: z.number(), sd: z.number().positive() }),
  /** "a Gaussian distribution centered around 50ms"; the spread is ours. */
  latencyMs: z.strictObject({ mean: z.number().positive(), sd: z.number().min(0) }),
  ticks: z.number().int().min(1).max(1_000_000),
  /** "removed from the search pool for the duration of the match, 10 ticks". */
  gameTicks: z.number().int().min(1),
  /**
   * The lenience rule: (lenience_A + lenience_B) / 2 > M |MMR_A - MMR_B| + P (latency_A +
   * latency_B), lenience 1 at first, growing by growthPerTick while unmatched (the paper does not
   * say by how much). M is per rating point of each system's scale.
   */
  lenience: z.strictObject({
    perScore: z.strictObject({ elo: z.number().positive(), trueskill: z.number().positive() }),
    perMs: z.number().min(0),
    growthPerTick: z.number().positive(),
  }),
  /** gamefactory's matcher: a wait target in ticks (a tick is a second of the matcher's clock). */
  gamefactory: z.strictObject({ waitP99Ticks: z.number().positive(), meanWaitTicks: z.number().positive().optional() }),
  /** TrueSkill on the same scale as Elo: mu at the mean, sigma the population's spread. */
  trueskill: z.strictObject({ sigma: z.number().positive(), beta: z.number().positive(), tau: z.number().min(0) }),
  elo: z.strictObject({ kFactor: z.number().positive(), scale: z.number().positive() }),
  /** Upper bounds of the rating groups the charts follow (the paper's "groupings"). */
  groups: z.array(z.number()).min(1),
  /** Ticks per point of the charts. */
  sampleEvery: z.number().int().min(1),
});

export type PaperScenario = z.infer<typeof paperScenarioSchema>;

/**
 * The scenario at `path` when it is this experiment (its top level says `experiment:
 * parallel-matchmaking`), undefined when it is an ordinary scenario; a bad one throws ScenarioError
 * naming the field.
 */
export function loadPaperScenarioFile(path: string): PaperScenario | undefined {
  let value: unknown;
  try {
    value = parseDocument(readFileSync(path, 'utf8')).toJS();
  } catch (error) {
    throw new ScenarioError(`${path}: cannot read: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || !('experiment' in value)) return undefined;
  const result = paperScenarioSchema.safeParse(value);
  if (!result.success) {
    const problems = result.error.issues.map((i) => `  at ${i.path.join('.') || '(top level)'}: ${i.message}`);
    throw new ScenarioError(`${path}: invalid experiment scenario:\n${problems.join('\n')}`);
  }
  return result.data;
}

import type { CoordinatorConfig } from '../config/config.js';
import {
  DEFAULT_ELO,
  DEFAULT_GLICKO2,
  DEFAULT_TRUESKILL,
  ratingSystem,
  type LadderConfig,
  type RatingSystem,
  type SystemParams,
} from '../ratings/index.js';
import type { Scenario } from './scenario.js';

const DEFAULTS: Record<SystemParams['kind'], SystemParams> = { elo: DEFAULT_ELO, glicko2: DEFAULT_GLICKO2, trueskill: DEFAULT_TRUESKILL };

export interface RunRatings {
  readonly systems: RatingSystem[];
  /** The system players are matched on, or undefined for their true skill. */
  readonly matchOn: RatingSystem | undefined;
}

/**
 * The production rating systems for a run (src/ratings/): each with the parameters of a ladder of
 * that system in the config (the factory's own ladder first), else the module's defaults. Players
 * are matched on the factory's ladder when the scenario says so and the factory names one; its
 * expansion is then in that ladder's units, as in production.
 */
export function runRatings(scenario: Scenario, config: CoordinatorConfig): RunRatings {
  const template = config.templates.find((t) => t.name === scenario.factory);
  const ladders = [...(config.ladders?.values() ?? [])];
  const own: LadderConfig | undefined = template?.ladder === undefined ? undefined : config.ladders?.get(template.ladder);
  const kinds = new Set(scenario.ratings.systems);
  if (scenario.ratings.matchOn === 'ladder' && own !== undefined) kinds.add(own.system.kind);
  const systems = [...kinds].map((kind) => {
    const params = own?.system.kind === kind ? own.system : (ladders.find((l) => l.system.kind === kind)?.system ?? DEFAULTS[kind]);
    return ratingSystem({ name: kind, system: params, minGameSeconds: 0, earlyLeaverCountsAsLoss: false });
  });
  const matchOn = scenario.ratings.matchOn === 'ladder' && own !== undefined ? systems.find((s) => s.name === own.system.kind) : undefined;
  return { systems, matchOn };
}

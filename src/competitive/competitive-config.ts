/**
 * The shapes a competitive factory is configured and fed with. Scores are opaque numbers
 * (higher = better): the coordinator knows nothing of skill (Battle.net talk, "Game agnosticism").
 */

/**
 * One stage of the time-staged expansion rules (Destiny thesis, "Expand Properties"): from
 * `afterMs` of waiting, a ticket accepts opponents up to `maxScoreGap` away and regions up to
 * `maxLatencyMs`. Infinity means "any".
 */
export interface ExpansionStep {
  readonly afterMs: number;
  readonly maxScoreGap: number;
  readonly maxLatencyMs: number;
}

/**
 * How team scores are aggregated before teams are compared.
 * - `mean`: the plain mean of the players' scores.
 * - `max`: the best player's score (teams are carried by their best player).
 * - `weighted`: a rank-weighted mean; with k players sorted best first, the i-th best (i = 0..k-1)
 *   has weight k - i, so in 5v5 the weights are 5,4,3,2,1 (best counts 5x the worst). The talk
 *   warns team skill is "more or less than the sum of its parts"; this leans toward the best.
 */
export type TeamScoreAggregation = 'mean' | 'max' | 'weighted';

/**
 * Whose window a 1v1 pair must fit (factories.yaml `pairWindow`):
 * - `reciprocal`: both players' windows (the skill-bucket design's "100% reciprocal range
 *   requirement"): a newcomer's narrow window vetoes a long waiter.
 * - `mean`: the mean of the two windows, as the lenience model of
 *   seeds/parallel-matchmaking-elo-trueskill.txt accepts on the players' mean lenience.
 * - `longer-waiter`: the window of whoever has waited longer (the wider one on a tie): the one who
 *   paid for the wait decides, so a long waiter takes the closest newcomer within its own window
 *   instead of waiting for someone whose window has also grown.
 */
export type PairWindow = 'reciprocal' | 'mean' | 'longer-waiter' | 'budget';

/**
 * What a competitive factory wants instead of a hand-written schedule of score windows: waits (a
 * p99, and a mean if it matters too), or a mean score gap in sigmas of its score distribution (with
 * a p99 wait it must not pass, if given). Windows then follow the live arrival rate and score
 * density (target-windows.ts).
 */
export interface WaitTarget {
  readonly waitP99Ms?: number;
  readonly meanWaitMs?: number;
  readonly meanGapSigma?: number;
}

/** Bounds on a ticket's own limits (a request outside them is refused, naming the field). */
export interface PlayerLimitBounds {
  readonly waitBudgetMs: { readonly min: number; readonly max: number };
  readonly maxLatencyMs: { readonly min: number; readonly max: number };
}

export interface CompetitiveConfig {
  /** 2x1 = 1v1, 2x5 = 5v5, 8x1 = 8-player free-for-all. */
  readonly teams: number;
  readonly teamSize: number;
  /** Run a batch when this many tickets wait, or every intervalMs (Hearthstone batching). */
  readonly batch: { readonly maxTickets: number; readonly intervalMs: number };
  /** Sorted by afterMs, the first at 0; limits relax with waiting time. */
  readonly expansion: readonly ExpansionStep[];
  /**
   * Wall-clock budget of a batch's assembly and hill-climb (teams and free-for-all), ms, measured
   * with the injected now(); a climb stops sooner once no place it could improve is left.
   */
  readonly hillClimbBudgetMs: number;
  readonly teamScore: TeamScoreAggregation;
  /** May be empty: then games have no map. */
  readonly maps: readonly string[];
  /** May be empty: then latency is ignored and games have no region. */
  readonly regions: readonly string[];
  /** Latency prior from latitude/longitude for tickets with no measured pings (locality.ts). */
  readonly locality?: LocalityConfig;
  /** Weighted soft filters: order candidate games without excluding any (soft-preferences.ts). */
  readonly softPreferences?: readonly SoftPreference[];
  /** 1v1: whose window a pair must fit; absent = DEFAULT_PAIR_WINDOW (one-on-one-pairing.ts). */
  readonly pairWindow?: PairWindow;
  /**
   * Score windows from a wait target (target-windows.ts) instead of the expansion's maxScoreGap;
   * the expansion then only widens latency caps.
   */
  readonly target?: WaitTarget;
  /** Bounds on tickets' own wait budget and latency ceiling; absent = DEFAULT_PLAYER_LIMITS. */
  readonly playerLimits?: PlayerLimitBounds;
  /**
   * How far one player's performance in a game strays from their score (TrueSkill's beta), in
   * score units: what a game's predicted balance is computed with (match-quality.ts). Absent = half
   * the factory's score spread, TrueSkill's own ratio of beta to the initial uncertainty.
   */
  readonly performanceSd?: number;
}

/** Tickets may ask for a budget of 1 s to 10 minutes and a latency ceiling of 1 ms to 10 s. */
export const DEFAULT_PLAYER_LIMITS: PlayerLimitBounds = {
  waitBudgetMs: { min: 1_000, max: 600_000 },
  maxLatencyMs: { min: 1, max: 10_000 },
};

/** A point on the globe in degrees. */
export interface GeoPoint {
  readonly latitude: number;
  readonly longitude: number;
}

/**
 * Destiny thesis, "Locality": where each region's servers are, and how distance becomes latency:
 * baseMs + msPerKm x great-circle km.
 */
export interface LocalityConfig {
  readonly regionLocations: ReadonlyMap<string, GeoPoint>;
  readonly msPerKm: number;
  readonly baseMs: number;
}

/**
 * Destiny thesis, "soft filters": a game whose players do not all share the same value of the
 * soft attribute `attribute` costs `weight` (in sigma of skill, the objective's unit) times the
 * fraction of its players that differ from the most common value. Players without the attribute
 * do not count.
 */
export interface SoftPreference {
  readonly attribute: string;
  readonly weight: number;
}

export interface CompetitivePlayer {
  readonly playerId: string;
  readonly score: number;
}

/** One party looking for a game; a party is never split across teams or games. */
export interface CompetitiveTicket {
  readonly ticketId: string;
  readonly players: readonly CompetitivePlayer[];
  /** ms on the same clock as formGames(now); a re-queued ticket keeps its original value. */
  readonly enqueuedAt: number;
  /** region -> measured latency in ms; empty means "no measurement, any region". */
  readonly latencyMs: ReadonlyMap<string, number>;
  readonly preferredMaps: readonly string[];
  readonly vetoedMaps: readonly string[];
  /** Where the party plays from; gives a latency prior when latencyMs is empty (locality.ts). */
  readonly location?: GeoPoint;
  /** Soft attributes (e.g. language) that softPreferences weigh; never exclude a game. */
  readonly softAttributes?: ReadonlyMap<string, string>;
  /** How unsure the party's score is (a rating system's uncertainty): widens its score window. */
  readonly scoreUncertainty?: number;
  /**
   * The party's own wait budget, ms (within the factory's playerLimits): past it the ticket takes
   * any score gap, and under a wait target its windows are shaped for it instead of the factory's.
   */
  readonly waitBudgetMs?: number;
  /** The party's own latency ceiling, ms (within playerLimits): no expansion step widens past it. */
  readonly maxLatencyMs?: number;
}

export interface GameQuality {
  /** Best minus worst player score in the game. */
  readonly scoreGap: number;
  /** Best minus worst aggregated team score (0 in a perfectly balanced game). */
  readonly teamImbalance: number;
  /** scoreGap in standard deviations of the factory's score distribution; the talk's target is 0.2. */
  readonly gapInSigma: number;
  /** How long each ticket waited, in the order of `teams` flattened. */
  readonly waitsMs: number[];
  /**
   * The chance the side predicted to win does win (0.5 = a coin toss; two teams: TrueSkill's
   * normal model with the factory's performanceSd; more teams: the chance the strongest places first).
   */
  readonly favouriteWinProbability: number;
  /** TrueSkill's match quality: the chance of a draw relative to the most even game possible (1 = even). */
  readonly matchQuality: number;
}

export interface FormedGame {
  /** Ticket ids per team. */
  readonly teams: string[][];
  readonly map: string | undefined;
  /** undefined when no regions are configured or no member measured any latency. */
  readonly region: string | undefined;
  readonly quality: GameQuality;
}

/** Throws on a config the matcher cannot honour; the config loader is expected to have checked it. */
export function assertValidCompetitiveConfig(config: CompetitiveConfig): void {
  const fail = (message: string): never => {
    throw new Error(`competitive config: ${message}`);
  };
  if (!Number.isInteger(config.teams) || config.teams < 2) fail('teams: must be an integer >= 2');
  if (!Number.isInteger(config.teamSize) || config.teamSize < 1) fail('teamSize: must be an integer >= 1');
  if (!(config.batch.maxTickets >= 1)) fail('batch.maxTickets: must be >= 1');
  if (!(config.batch.intervalMs >= 0)) fail('batch.intervalMs: must be >= 0');
  if (!(config.hillClimbBudgetMs >= 0)) fail('hillClimbBudgetMs: must be >= 0');
  if (config.expansion.length === 0) fail('expansion: needs at least one step');
  config.expansion.forEach((step, i) => {
    if (i === 0 && step.afterMs !== 0) fail('expansion[0].afterMs: must be 0');
    const previous = config.expansion[i - 1];
    if (previous !== undefined && !(step.afterMs > previous.afterMs)) {
      fail(`expansion[${i}].afterMs: must be greater than the previous step's`);
    }
    if (!(step.maxScoreGap >= 0)) fail(`expansion[${i}].maxScoreGap: must be >= 0`);
    if (!(step.maxLatencyMs >= 0)) fail(`expansion[${i}].maxLatencyMs: must be >= 0`);
    if (config.target !== undefined && step.maxScoreGap !== Infinity) {
      fail(`expansion[${i}].maxScoreGap: the target sets score windows; give only maxLatencyMs`);
    }
  });
  if (config.target !== undefined) {
    const { waitP99Ms, meanWaitMs, meanGapSigma } = config.target;
    if (waitP99Ms === undefined && meanWaitMs === undefined && meanGapSigma === undefined) {
      fail('target: give waitP99Ms, meanWaitMs or meanGapSigma');
    }
    if (meanWaitMs !== undefined && meanGapSigma !== undefined) fail('target: give meanWaitMs or meanGapSigma, not both');
    for (const [key, value] of Object.entries({ waitP99Ms, meanWaitMs, meanGapSigma })) {
      if (value !== undefined && !(value > 0 && Number.isFinite(value))) fail(`target.${key}: must be a positive number`);
    }
    if (waitP99Ms !== undefined && meanWaitMs !== undefined && meanWaitMs > waitP99Ms) {
      fail('target.meanWaitMs: must not exceed waitP99Ms');
    }
  }
  const limits = config.playerLimits;
  if (limits !== undefined) {
    for (const key of ['waitBudgetMs', 'maxLatencyMs'] as const) {
      const { min, max } = limits[key];
      if (!(min > 0 && Number.isFinite(max) && min <= max)) fail(`playerLimits.${key}: needs 0 < min <= max`);
    }
  }
  if (config.performanceSd !== undefined && !(config.performanceSd > 0 && Number.isFinite(config.performanceSd))) {
    fail('performanceSd: must be a positive number');
  }
}

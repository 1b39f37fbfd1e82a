import { sortedBatchEntries, type BatchEntry } from './batch-entry.js';
import {
  assertValidCompetitiveConfig,
  type CompetitiveConfig,
  type CompetitiveTicket,
  type FormedGame,
} from './competitive-config.js';
import { ExpansionSchedule } from './expansion-schedule.js';
import { GameObjective } from './game-objective.js';
import { pairNeighbours } from './one-on-one-pairing.js';
import { GapHistogram, ScoreDistribution } from './score-distribution.js';
import { solveTeamBatch } from './team-batch-solver.js';
import { validateTicket } from './ticket-validation.js';
import { VenueChoice } from './venue-choice.js';

export interface CompetitiveMatcherDeps {
  /** Clock for the hill-climb budget only; batch time is the argument of formGames. */
  readonly now: () => number;
  /** Seeded RNG in [0, 1), so batches are reproducible. */
  readonly random: () => number;
}

export interface CompetitiveStats {
  readonly waiting: number;
  readonly gamesFormed: number;
  readonly scoreMean: number;
  readonly scoreStdDev: number;
  readonly meanGapInSigma: number;
  readonly p99GapInSigma: number;
}

export interface BatchReport {
  readonly at: number;
  readonly tickets: number;
  readonly games: number;
  /** Hill-climb moves tried and kept (0 for 1v1, which only sorts and pairs). */
  readonly climbAttempts: number;
  readonly climbImprovements: number;
  /** False when some slice ran out of its time budget before it stopped improving. */
  readonly converged: boolean;
}

/**
 * A competitive factory's matcher (join at start; Battle.net talk, "Competitive Matching").
 * Tickets wait in a pool (O(1) add and remove); a batch is due every `intervalMs`, or as soon as
 * `maxTickets` wait; formGames sorts the batch by score and either pairs neighbours (1v1) or
 * assembles and hill-climbs games (teams, free-for-all). Leftovers stay in the pool with their
 * original enqueue time, so their windows widen by the expansion schedule.
 * Pure: time is passed in, and the climb's clock and randomness are injected.
 */
export class CompetitiveMatcher {
  private readonly pool = new Map<string, CompetitiveTicket>();
  private readonly schedule: ExpansionSchedule;
  private readonly venue: VenueChoice;
  private readonly distribution = new ScoreDistribution();
  private readonly gaps = new GapHistogram();
  private gamesFormed = 0;
  /** When the interval of the next batch started: the last batch, or the first arrival after it. */
  private intervalStart: number | undefined;
  private lastBatchAt: number | undefined;
  private arrivalsSinceBatch = 0;
  /** Earliest moment a leftover of the last batch gets a wider window. */
  private nextRelaxationAt: number | undefined;
  private report: BatchReport | undefined;

  constructor(
    private readonly config: CompetitiveConfig,
    private readonly deps: CompetitiveMatcherDeps,
  ) {
    assertValidCompetitiveConfig(config);
    this.schedule = new ExpansionSchedule(config.expansion);
    this.venue = new VenueChoice(config.maps, config.regions);
  }

  /** Throws on an invalid ticket (see validateTicket) or an id already waiting. */
  add(ticket: CompetitiveTicket): void {
    const error = validateTicket(this.config, ticket);
    if (error !== undefined) throw new Error(error);
    if (this.pool.has(ticket.ticketId)) throw new Error(`ticket_id: ${ticket.ticketId} is already waiting`);
    if (this.pool.size === 0) {
      this.intervalStart = Math.max(this.lastBatchAt ?? -Infinity, ticket.enqueuedAt);
    }
    this.pool.set(ticket.ticketId, ticket);
    this.arrivalsSinceBatch += 1;
    for (const player of ticket.players) this.distribution.record(player.score);
  }

  remove(ticketId: string): boolean {
    return this.pool.delete(ticketId);
  }

  get size(): number {
    return this.pool.size;
  }

  /**
   * When the next batch is due, or undefined if nobody waits. Due at once (a time not after now)
   * once maxTickets wait and someone arrived since the last batch; otherwise intervalMs after the
   * last batch. With no arrival since, a batch can only differ once some leftover's window widens,
   * so it is not due before that either (the skill-bucket design's "skip" flag).
   */
  nextBatchAt(): number | undefined {
    if (this.pool.size === 0 || this.intervalStart === undefined) return undefined;
    if (this.arrivalsSinceBatch > 0 && this.pool.size >= this.config.batch.maxTickets) return this.intervalStart;
    const byInterval = this.intervalStart + this.config.batch.intervalMs;
    if (this.arrivalsSinceBatch > 0 || this.nextRelaxationAt === undefined) return byInterval;
    return Math.max(byInterval, this.nextRelaxationAt);
  }

  formGames(now: number): FormedGame[] {
    const entries = sortedBatchEntries([...this.pool.values()], this.schedule, now);
    const sigma = this.distribution.stdDev > 0 ? this.distribution.stdDev : 1;
    const formed: FormedGame[] = [];
    let climbAttempts = 0;
    let climbImprovements = 0;
    let converged = true;

    if (this.config.teams === 2 && this.config.teamSize === 1) {
      for (const pairing of pairNeighbours(entries, this.venue, sigma)) {
        const gap = pairing.high.score - pairing.low.score;
        formed.push(
          this.start([[pairing.high], [pairing.low]], pairing.map.map, pairing.region.region, gap, gap),
        );
      }
    } else {
      const objective = new GameObjective(this.config, this.venue, sigma);
      const playersPerGame = this.config.teams * this.config.teamSize;
      const result = solveTeamBatch(
        entries,
        { teams: this.config.teams, teamSize: this.config.teamSize, sliceTickets: Math.max(256, 16 * playersPerGame) },
        objective,
        this.deps,
        this.config.hillClimbBudgetMs,
      );
      for (const game of result.games) {
        const e = game.evaluation;
        formed.push(this.start(game.teams, e.map, e.region, e.scoreGap, e.teamImbalance));
      }
      for (const climb of result.climbs) {
        climbAttempts += climb.attempts;
        climbImprovements += climb.improvements;
        converged &&= climb.converged;
      }
    }

    this.lastBatchAt = now;
    this.intervalStart = now;
    this.arrivalsSinceBatch = 0;
    this.nextRelaxationAt = undefined;
    for (const ticket of this.pool.values()) {
      const at = this.schedule.nextRelaxationAt(ticket.enqueuedAt, now);
      if (at !== undefined && (this.nextRelaxationAt === undefined || at < this.nextRelaxationAt)) {
        this.nextRelaxationAt = at;
      }
    }
    this.report = {
      at: now,
      tickets: entries.length,
      games: formed.length,
      climbAttempts,
      climbImprovements,
      converged,
    };
    return formed;
  }

  stats(): CompetitiveStats {
    return {
      waiting: this.pool.size,
      gamesFormed: this.gamesFormed,
      scoreMean: this.distribution.mean,
      scoreStdDev: this.distribution.stdDev,
      meanGapInSigma: this.gaps.mean,
      p99GapInSigma: this.gaps.quantile(0.99),
    };
  }

  /** What the last batch did, for metrics and logs; undefined before the first batch. */
  lastBatch(): BatchReport | undefined {
    return this.report;
  }

  /** Takes a game's tickets out of the pool and records its quality. */
  private start(
    teams: readonly (readonly BatchEntry[])[],
    map: string | undefined,
    region: string | undefined,
    scoreGap: number,
    teamImbalance: number,
  ): FormedGame {
    const waitsMs: number[] = [];
    const ids: string[][] = [];
    for (const team of teams) {
      const teamIds: string[] = [];
      for (const entry of team) {
        this.pool.delete(entry.ticket.ticketId);
        waitsMs.push(entry.waitMs);
        teamIds.push(entry.ticket.ticketId);
      }
      ids.push(teamIds);
    }
    const gapInSigma = this.distribution.inSigma(scoreGap);
    this.gaps.record(gapInSigma);
    this.gamesFormed += 1;
    return { teams: ids, map, region, quality: { scoreGap, teamImbalance, gapInSigma, waitsMs } };
  }
}

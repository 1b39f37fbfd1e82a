import { ArrivalDensity, RegionalDensity } from './arrival-density.js';
import { partyScore, sortedBatch, type SortedBatch } from './batch-entry.js';
import {
  assertValidCompetitiveConfig,
  DEFAULT_PLAYER_LIMITS,
  type CompetitiveConfig,
  type CompetitiveTicket,
  type FormedGame,
  type PairWindow,
} from './competitive-config.js';
import { encodeSlice, solveRange, type SliceContext, type SliceResult, type SliceSolver, type SliceTask } from './batch-slices.js';
import { ExpansionSchedule } from './expansion-schedule.js';
import { withLatencyPrior } from './locality.js';
import { DEFAULT_PAIR_WINDOW } from './one-on-one-pairing.js';
import { cutSlices, type PreparedSlice } from './slice-cuts.js';
import { FormedGameQuality } from './match-quality.js';
import { GapHistogram, ScoreDistribution } from './score-distribution.js';
import { planTarget, TargetWindows } from './target-windows.js';
import { validateTicket } from './ticket-validation.js';
import { searchFill } from './backfill/fill-search.js';
import type { GameFill, PartialGame } from './backfill/partial-game.js';
import { GameObjective } from './game-objective.js';
import { predictedBalance, type RatedPlayer } from './match-quality.js';
import { SoftPreferences } from './soft-preferences.js';
import { VenueChoice } from './venue-choice.js';

export interface CompetitiveMatcherDeps {
  /**
   * Clock for the hill-climb budget of formGames only (formGamesOn's solver uses its own); batch
   * time is the argument of formGames.
   */
  readonly now: () => number;
  /** Seeded RNG in [0, 1), so batches are reproducible: each slice's seed is drawn from it. */
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
  /** Games formed but not started because a ticket of theirs left the pool while the batch was out. */
  readonly dropped: number;
}

/**
 * A competitive factory's matcher (join at start; Battle.net talk, "Competitive Matching").
 * Tickets wait in a pool (O(1) add and remove); a batch is due every `intervalMs`, or as soon as
 * `maxTickets` wait; formGames sorts the batch by score and either pairs neighbours (1v1) or
 * assembles and hill-climbs games (teams, free-for-all). Leftovers stay in the pool with their
 * original enqueue time, so their windows widen by the expansion schedule.
 * A batch runs in three steps: prepare (sort, cut into slices by score range), solve (the pure
 * per-slice solver, batch-slices.ts) and apply (update the pool, stats and report). formGames runs
 * all three in process, solving the sorted entries as they are; formGamesOn encodes each slice as
 * plain data and solves it with a SliceSolver (worker threads) while the caller's thread stays free.
 * Pure: time is passed in, and the climb's clock and randomness are injected.
 */
export class CompetitiveMatcher {
  /** Waiting tickets in arrival order (a batch's ties keep it); replaced whole by apply, see there. */
  private pool = new Map<string, Waiting>();
  private readonly schedule: ExpansionSchedule;
  private readonly distribution = new ScoreDistribution();
  private readonly gaps = new GapHistogram();
  /** Arrivals over score, for a wait target's windows; undefined without a target. */
  private readonly arrivals: RegionalDensity | undefined;
  private readonly pairWindow: PairWindow;
  /** Waits of tickets that played lately, by their score: what a newcomer near that score may expect. */
  private readonly matchedWaits = new ArrivalDensity(MATCHED_WAITS_HORIZON_MS);
  private gamesFormed = 0;
  /** When the interval of the next batch started: the last batch, or the first arrival after it. */
  private intervalStart: number | undefined;
  private lastBatchAt: number | undefined;
  /**
   * Time between batches while tickets wait (moving average, ms): the part of every wait a target
   * cannot shorten, whether it comes from intervalMs or from how often the caller asks.
   */
  private batchSpacing: number;
  private waitedAfterLastBatch = false;
  private arrivalsSinceBatch = 0;
  /** Tickets removed so far; while it has not moved since prepare, every ticket of the batch still waits. */
  private removals = 0;
  /** Earliest moment a leftover of the last batch gets a wider window. */
  private nextRelaxationAt: number | undefined;
  private report: BatchReport | undefined;
  /** A batch of formGamesOn is being solved; see formGamesOn. */
  private outstanding = false;
  /** Running games asking for backfill (partial games), oldest request first. */
  private readonly partials = new Map<string, PartialGame>();

  constructor(
    private readonly config: CompetitiveConfig,
    private readonly deps: CompetitiveMatcherDeps,
  ) {
    assertValidCompetitiveConfig(config);
    this.schedule = new ExpansionSchedule(config.expansion);
    this.batchSpacing = config.batch.intervalMs;
    this.arrivals = config.target === undefined ? undefined : new RegionalDensity(config.regions);
    // A target's windows are what waiting is expected to cost, which the budget pairing weighs.
    this.pairWindow = config.pairWindow ?? (config.target === undefined ? DEFAULT_PAIR_WINDOW : 'budget');
  }

  /** Throws on an invalid ticket (see validateTicket) or an id already waiting. */
  add(submitted: CompetitiveTicket): void {
    const ticket = withLatencyPrior(this.config, submitted);
    const error = validateTicket(this.config, ticket);
    if (error !== undefined) throw new Error(error);
    if (this.pool.has(ticket.ticketId)) throw new Error(`ticket_id: ${ticket.ticketId} is already waiting`);
    if (this.pool.size === 0) {
      this.intervalStart = Math.max(this.lastBatchAt ?? -Infinity, ticket.enqueuedAt);
    }
    const score = partyScore(ticket);
    this.pool.set(ticket.ticketId, { ticket, score });
    this.arrivalsSinceBatch += 1;
    this.arrivals?.record(ticket, score, ticket.enqueuedAt);
    for (const player of ticket.players) this.distribution.record(player.score);
  }

  remove(ticketId: string): boolean {
    if (!this.pool.delete(ticketId)) return false;
    this.removals += 1;
    return true;
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
    if (this.outstanding || this.pool.size === 0 || this.intervalStart === undefined) return undefined;
    if (this.arrivalsSinceBatch > 0 && this.pool.size >= this.config.batch.maxTickets) return this.intervalStart;
    const byInterval = this.intervalStart + this.config.batch.intervalMs;
    // A partial game's window widens with its wait like a ticket's: every interval may fill it.
    if (this.arrivalsSinceBatch > 0 || this.nextRelaxationAt === undefined || this.partials.size > 0) return byInterval;
    return Math.max(byInterval, this.nextRelaxationAt);
  }

  /**
   * How long a ticket like this one has waited lately: the mean wait of tickets near its score that
   * played in the last minutes (undefined before any did). Not a promise: how long the pool near a
   * score takes to match, as the queued update's estimate. O(bins).
   */
  estimatedWaitMs(ticket: CompetitiveTicket): number | undefined {
    return this.matchedWaits.meanNear(partyScore(ticket));
  }

  /**
   * A running game asks for its open seats to be filled (a backfill request): from the next batch
   * on, it takes waiting tickets before new games are formed. Replaces a partial game of the same id.
   */
  addPartialGame(game: PartialGame): void {
    this.partials.delete(game.backfillId);
    this.partials.set(game.backfillId, game);
  }

  removePartialGame(backfillId: string): boolean {
    return this.partials.delete(backfillId);
  }

  /** Partial games waiting for a fill. */
  get partialGames(): number {
    return this.partials.size;
  }

  /**
   * Fills the partial games it can from the pool at `now`, oldest request first, each with the
   * batch's own objective over the whole game after the fill (fill-search.ts); the tickets taken
   * leave the pool. The caller runs it just before a batch, so a backfill has first pick. Nothing
   * happens (and nothing is sorted) while no partial game waits, or while a batch is out.
   */
  fillPartialGames(now: number): GameFill[] {
    if (this.partials.size === 0 || this.pool.size === 0 || this.outstanding) return [];
    const tickets = new Array<CompetitiveTicket>(this.pool.size);
    const scores = new Float64Array(this.pool.size);
    let n = 0;
    for (const w of this.pool.values()) {
      tickets[n] = w.ticket;
      scores[n++] = w.score;
    }
    const sigma = this.distribution.stdDev > 0 ? this.distribution.stdDev : 1;
    const windows = this.targetWindows(now, sigma);
    const sorted = sortedBatch(tickets, this.schedule, now, scores, windows);
    const objective = new GameObjective(this.config, new VenueChoice(this.config.maps, this.config.regions), sigma, new SoftPreferences(this.config.softPreferences ?? []));
    const context = { config: this.config, schedule: this.schedule, windows, objective, now };
    const taken = new Uint8Array(sorted.length);
    const beta = this.config.performanceSd ?? (this.distribution.stdDev > 0 ? this.distribution.stdDev / 2 : 1);
    const fills: GameFill[] = [];
    for (const game of this.partials.values()) {
      const found = searchFill(game, sorted, taken, context);
      if (found === undefined) continue;
      const seats: { ticketId: string; team: number }[] = [];
      const waitsMs: number[] = [];
      const rated: RatedPlayer[][] = Array.from({ length: this.config.teams }, () => []);
      for (const p of game.players) (rated[p.team] as RatedPlayer[]).push({ score: p.score, uncertainty: 0 });
      found.newcomers.forEach((team, t) => {
        for (const k of team) {
          taken[k] = 1;
          const ticket = sorted.tickets[k] as CompetitiveTicket;
          seats.push({ ticketId: ticket.ticketId, team: t });
          waitsMs.push(sorted.waitMs[k] as number);
          for (const p of ticket.players) (rated[t] as RatedPlayer[]).push({ score: p.score, uncertainty: ticket.scoreUncertainty ?? 0 });
        }
      });
      const balance = predictedBalance(rated, beta);
      fills.push({
        backfillId: game.backfillId,
        seats,
        scoreGap: found.evaluation.scoreGap,
        gapInSigma: this.distribution.inSigma(found.evaluation.scoreGap),
        teamImbalance: found.evaluation.teamImbalance,
        waitsMs,
        favouriteWinProbability: balance.favouriteWinProbability,
        matchQuality: balance.matchQuality,
      });
    }
    for (const fill of fills) {
      this.partials.delete(fill.backfillId);
      for (const seat of fill.seats) this.remove(seat.ticketId);
    }
    return fills;
  }

  /** True while a batch of formGamesOn is being solved elsewhere; no other batch may start then. */
  get batchOut(): boolean {
    return this.outstanding;
  }

  /**
   * Forms the games of the batch due at `now`, solving its slices in process, one after the other,
   * on the sorted batch itself: no encoding, no stand-in tickets (they answer the solver alike, so
   * the games are the same as formGamesOn's). Each slice has its share of the hill-climb budget,
   * and the time a slice leaves unused (its games settled, its climb converged) goes to the slices
   * after it (on worker threads, solved in parallel, each slice has its own share). Only unused time
   * passes on: charging a slice's overrun (its assembly, the last clock check) to the next ones
   * left the slices of a large batch at a small budget no time to climb at all.
   */
  formGames(now: number): FormedGame[] {
    const batch = this.prepare(now);
    let results: SliceResult[];
    try {
      const clock = this.deps.now;
      let unused = 0;
      results = batch.slices.map((slice) => {
        const start = clock();
        const budgetMs = slice.budgetMs + unused;
        const result = solveRange(batch.sorted, slice.from, slice.to, batch.context, slice.seed, budgetMs, clock);
        unused = Math.max(0, start + budgetMs - clock());
        return result;
      });
    } catch (error) {
      this.outstanding = false;
      throw error;
    }
    return this.apply(batch, results);
  }

  /**
   * formGames with the slices solved by `solver` (worker threads), so the calling thread only
   * sorts, cuts and encodes the batch (as typed arrays, batch-slices.ts), then applies the results.
   * For the same batch and the same injected RNG it forms the same games as formGames, as long as
   * no climb runs out of time (the budget is measured on the solver's clock).
   *
   * While the batch is out the pool stays live: tickets may be added (they wait for the next
   * batch) and removed; a game that holds a ticket removed meanwhile (or removed and added again)
   * is dropped, and its other tickets stay in the pool with their waits carried over. Only one batch
   * may be out per matcher: formGames and formGamesOn throw while one is, and nextBatchAt is
   * undefined until it is applied. If the solver fails, the pool is left as it was and the promise
   * rejects; the batch is then due again at once.
   */
  async formGamesOn(now: number, solver: SliceSolver): Promise<FormedGame[]> {
    const out = this.prepareForSolver(now);
    let results: SliceResult[];
    try {
      results = await Promise.all(out.tasks.map((task) => solver.solve(task)));
    } catch (error) {
      out.abandon();
      throw error;
    }
    return out.finish(results);
  }

  /**
   * formGamesOn in two halves, for a caller that hands the slices to a solver itself and comes
   * back with their results as a later input (the coordinator core, which does no I/O): the
   * batch's slices as plain data, then `finish` with their results in order, or `abandon` when
   * they could not be solved (the pool is left as it was; the batch is due again at once).
   */
  prepareForSolver(now: number): BatchOut {
    const batch = this.prepare(now);
    const { sorted, context } = batch;
    return {
      tasks: batch.slices.map((slice) => encodeSlice(sorted, slice.from, slice.to, context, slice.seed, slice.budgetMs)),
      finish: (results) => this.apply(batch, results),
      abandon: () => {
        this.outstanding = false;
      },
    };
  }

  /**
   * Step 1: select the batch (everyone waiting), sort it by score and cut it into slices of
   * consecutive tickets (slice-cuts.ts).
   */
  private prepare(now: number): PreparedBatch {
    if (this.outstanding) throw new Error('competitive matcher: a batch is already out; apply it before the next');
    const waiting = new Array<Waiting>(this.pool.size);
    const tickets = new Array<CompetitiveTicket>(this.pool.size);
    const scores = new Float64Array(this.pool.size);
    let k = 0;
    for (const w of this.pool.values()) {
      waiting[k] = w;
      tickets[k] = w.ticket;
      scores[k++] = w.score;
    }
    const sigma = this.distribution.stdDev > 0 ? this.distribution.stdDev : 1;
    const sorted = sortedBatch(tickets, this.schedule, now, scores, this.targetWindows(now, sigma));
    const context: SliceContext = {
      teams: this.config.teams,
      teamSize: this.config.teamSize,
      teamScore: this.config.teamScore,
      maps: this.config.maps,
      regions: this.config.regions,
      sigma,
      softPreferences: this.config.softPreferences ?? [],
      pairWindow: this.pairWindow,
    };
    const slices = cutSlices(sorted, this.config, context.pairWindow!, this.deps.random);
    this.outstanding = true;
    return { at: now, waiting, sorted, context, slices, arrivals: this.arrivalsSinceBatch, removals: this.removals };
  }

  /** This batch's windows under a wait target; undefined when the expansion's steps give them. */
  private targetWindows(now: number, sigma: number): TargetWindows | undefined {
    const { target } = this.config;
    if (target === undefined || this.arrivals === undefined) return undefined;
    const limits = this.config.playerLimits ?? DEFAULT_PLAYER_LIMITS;
    const plan = planTarget(target, this.batchSpacing, limits.waitBudgetMs.max);
    const gap = target.meanGapSigma === undefined ? undefined : target.meanGapSigma * sigma;
    return new TargetWindows(this.arrivals.snapshot(now), plan, gap);
  }

  /**
   * Step 3: start the games the slices formed whose tickets all still wait (the very ticket
   * objects the batch was prepared with), and close the batch: its time, the next relaxation, the
   * report. Arrivals during the batch still count as arrivals since it.
   */
  private apply(batch: PreparedBatch, results: readonly SliceResult[]): FormedGame[] {
    const formed: FormedGame[] = [];
    let climbAttempts = 0;
    let climbImprovements = 0;
    let converged = true;
    let dropped = 0;
    const teamCount = this.config.teams;
    // A ticket leaves the pool only through remove or a game started here, so unless something was
    // removed while the batch was out (formGamesOn), no game needs its tickets looked up.
    const checkPool = this.removals !== batch.removals;
    // Tickets of started games, by their place in the pool when the batch was prepared; they leave
    // the pool together below rather than one Map.delete per ticket inside the loop.
    const taken = new Uint8Array(batch.waiting.length);
    let takenCount = 0;
    const { tickets, ticketIds, waitMs, order, score } = batch.sorted;
    // The waits of games started, by score, for estimates: a sample is plenty (a 100k batch would
    // otherwise record 50k of them).
    let games = 0;
    for (const result of results) games += result.games;
    const sampleEvery = Math.max(1, Math.ceil(games / WAIT_SAMPLES_PER_BATCH));
    let started = 0;
    for (let s = 0; s < results.length; s++) {
      const result = results[s] as SliceResult;
      const offset = (batch.slices[s] as PreparedSlice).from;
      let member = 0;
      for (let g = 0; g < result.games; g++) {
        const firstTeam = g * teamCount;
        let players = 0;
        for (let t = 0; t < teamCount; t++) players += result.teamLength[firstTeam + t] as number;
        let teams: string[][];
        let waitsMs: number[];
        // The games' tickets, for their predicted balance: a pair's two, or every team's.
        let first: CompetitiveTicket;
        let second: CompetitiveTicket | undefined;
        let sides: CompetitiveTicket[][] | undefined;
        let alive = true;
        if (teamCount === 2 && players === 2) {
          // One ticket a side (1v1): array literals, made at their size in one step, cost a quarter
          // of arrays made by length and filled, for the 50k games of a 100k batch.
          const a = offset + (result.members[member] as number);
          const b = offset + (result.members[member + 1] as number);
          member += 2;
          first = tickets[a] as CompetitiveTicket;
          second = tickets[b] as CompetitiveTicket;
          if (checkPool) alive = this.stillWaiting(first) && this.stillWaiting(second);
          teams = [[ticketIds[a] as string], [ticketIds[b] as string]];
          waitsMs = [waitMs[a] as number, waitMs[b] as number];
        } else {
          // Arrays made at their final length: grown by push, each would hold room for 17 items.
          teams = new Array<string[]>(teamCount);
          sides = new Array<CompetitiveTicket[]>(teamCount);
          waitsMs = new Array<number>(players);
          let w = 0;
          for (let t = 0; t < teamCount; t++) {
            const length = result.teamLength[firstTeam + t] as number;
            const ids = new Array<string>(length);
            const side = new Array<CompetitiveTicket>(length);
            for (let k = 0; k < length; k++) {
              const at = offset + (result.members[member++] as number);
              side[k] = tickets[at] as CompetitiveTicket;
              if (checkPool && !this.stillWaiting(side[k] as CompetitiveTicket)) alive = false;
              ids[k] = ticketIds[at] as string;
              waitsMs[w++] = waitMs[at] as number;
            }
            teams[t] = ids;
            sides[t] = side;
          }
          first = (sides[0] as CompetitiveTicket[])[0] as CompetitiveTicket;
        }
        if (!alive) {
          dropped += 1;
          continue;
        }
        for (let m = member - players; m < member; m++) {
          taken[order[offset + (result.members[m] as number)] as number] = 1;
        }
        takenCount += players;
        if (started++ % sampleEvery === 0) {
          const at = offset + (result.members[member - players] as number);
          this.matchedWaits.record(score[at] as number, batch.at, waitMs[at] as number);
        }
        const map = result.map[g] as number;
        const region = result.region[g] as number;
        formed.push(
          this.start(
            teams,
            waitsMs,
            map < 0 ? undefined : this.config.maps[map],
            region < 0 ? undefined : this.config.regions[region],
            result.scoreGap[g] as number,
            result.teamImbalance[g] as number,
            sides ?? [first, second as CompetitiveTicket],
          ),
        );
      }
      climbAttempts += result.climbAttempts;
      climbImprovements += result.climbImprovements;
      converged &&= result.converged;
    }
    this.takeFromPool(batch, taken, takenCount);

    const now = batch.at;
    this.outstanding = false;
    if (this.waitedAfterLastBatch && this.lastBatchAt !== undefined) {
      this.batchSpacing += 0.1 * (now - this.lastBatchAt - this.batchSpacing);
    }
    this.waitedAfterLastBatch = this.pool.size > 0;
    this.lastBatchAt = now;
    this.intervalStart = now;
    this.arrivalsSinceBatch -= batch.arrivals;
    this.nextRelaxationAt = undefined;
    if (this.arrivals !== undefined) {
      // A target's windows widen with every moment waited: any later batch may differ.
      if (this.pool.size > 0) this.nextRelaxationAt = now;
    } else {
      for (const { ticket } of this.pool.values()) {
        let at = this.schedule.nextRelaxationAt(ticket.enqueuedAt, now);
        // A ticket's own budget running out widens its window to any gap.
        const spent = ticket.waitBudgetMs === undefined ? undefined : ticket.enqueuedAt + ticket.waitBudgetMs;
        if (spent !== undefined && spent > now && (at === undefined || spent < at)) at = spent;
        if (at !== undefined && (this.nextRelaxationAt === undefined || at < this.nextRelaxationAt)) {
          this.nextRelaxationAt = at;
        }
      }
    }
    this.report = {
      at: now,
      tickets: batch.sorted.length,
      games: formed.length,
      dropped,
      climbAttempts,
      climbImprovements,
      converged,
    };
    return formed;
  }

  /**
   * A batch was formed elsewhere at `now` (a match function's answer): the next is due an interval
   * later, as after one of this matcher's own batches.
   */
  batchFormedElsewhere(now: number): void {
    this.lastBatchAt = now;
    this.intervalStart = now;
    this.arrivalsSinceBatch = 0;
    this.nextRelaxationAt = undefined;
  }

  /** Up to `limit` waiting tickets, oldest first: what a match function is offered. O(limit). */
  candidates(limit: number): CompetitiveTicket[] {
    const out: CompetitiveTicket[] = [];
    for (const { ticket } of this.pool.values()) {
      if (out.length >= limit) break;
      out.push(ticket);
    }
    return out;
  }

  /** The waiting ticket with this id, if it waits. */
  waitingTicket(ticketId: string): CompetitiveTicket | undefined {
    return this.pool.get(ticketId)?.ticket;
  }

  /**
   * Starts a game formed elsewhere (a match function, its shape already checked): its tickets, all
   * waiting, leave the pool, and its quality is recorded as a batch's game's is. `teams` by id.
   */
  startFormed(teams: readonly (readonly string[])[], map: string | undefined, region: string | undefined, now: number): FormedGame {
    const sides = teams.map((team) => team.map((id) => this.pool.get(id)!.ticket));
    let low = Infinity;
    let high = -Infinity;
    const waitsMs: number[] = [];
    const teamScores = sides.map((side) => {
      let sum = 0;
      let count = 0;
      let max = -Infinity;
      for (const ticket of side) {
        waitsMs.push(now - ticket.enqueuedAt);
        for (const p of ticket.players) {
          low = Math.min(low, p.score);
          high = Math.max(high, p.score);
          sum += p.score;
          count += 1;
          max = Math.max(max, p.score);
        }
      }
      return this.config.teamScore === 'max' ? max : count === 0 ? 0 : sum / count;
    });
    for (const side of sides) for (const ticket of side) this.remove(ticket.ticketId);
    const teamImbalance = Math.max(...teamScores) - Math.min(...teamScores);
    return this.start(teams.map((t) => [...t]), waitsMs, map, region, high - low, teamImbalance, sides);
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

  /**
   * Takes the tickets of the games started out of the pool. Deleting 100k ids one by one, in score
   * order (random in the hash table), was a third of a 1v1 batch of 100k; when the
   * batch took most of the pool and the pool is still exactly the batch (nothing arrived or left
   * while it was out), a new pool is built from the few leftovers instead, in the same arrival
   * order the deletes would have left.
   */
  private takeFromPool(batch: PreparedBatch, taken: Uint8Array, takenCount: number): void {
    const { waiting } = batch;
    const unchanged = this.removals === batch.removals && this.pool.size === waiting.length;
    if (unchanged && takenCount * 2 > waiting.length) {
      const leftovers = new Map<string, Waiting>();
      for (let k = 0; k < waiting.length; k++) {
        const w = waiting[k] as Waiting;
        if (taken[k] === 0) leftovers.set(w.ticket.ticketId, w);
      }
      this.pool = leftovers;
      return;
    }
    for (let k = 0; k < waiting.length; k++) {
      if (taken[k] === 1) this.pool.delete((waiting[k] as Waiting).ticket.ticketId);
    }
  }

  /** Whether this very ticket object still waits (not removed, nor removed and added again). */
  private stillWaiting(ticket: CompetitiveTicket): boolean {
    return this.pool.get(ticket.ticketId)?.ticket === ticket;
  }

  /** Records a started game's quality (its tickets leave the pool in takeFromPool). */
  private start(
    teams: string[][],
    waitsMs: number[],
    map: string | undefined,
    region: string | undefined,
    scoreGap: number,
    teamImbalance: number,
    /** A pair's two tickets, or every team's. */
    players: readonly [CompetitiveTicket, CompetitiveTicket] | readonly (readonly CompetitiveTicket[])[],
  ): FormedGame {
    const gapInSigma = this.distribution.inSigma(scoreGap);
    this.gaps.record(gapInSigma);
    this.gamesFormed += 1;
    const beta = this.config.performanceSd ?? (this.distribution.stdDev > 0 ? this.distribution.stdDev / 2 : 1);
    return { teams, map, region, quality: new FormedGameQuality(scoreGap, teamImbalance, gapInSigma, waitsMs, beta, players) };
  }
}

/** Games of one batch whose waits feed the estimates, at most. */
const WAIT_SAMPLES_PER_BATCH = 256;
/** Estimates follow the last few minutes of games. */
const MATCHED_WAITS_HORIZON_MS = 120_000;

/**
 * A waiting ticket with its party score, computed once on arrival: a batch sorts by it, and
 * reading it from here instead of through ticket → players → player for every ticket of every
 * batch saved a tenth of a 1v1 batch of 100k.
 */
interface Waiting {
  readonly ticket: CompetitiveTicket;
  readonly score: number;
}

/** A batch handed out to be solved elsewhere (prepareForSolver). */
export interface BatchOut {
  readonly tasks: readonly SliceTask[];
  finish(results: readonly SliceResult[]): FormedGame[];
  abandon(): void;
}

/** A batch between prepare and apply. */
interface PreparedBatch {
  readonly at: number;
  /** The pool in its order at prepare; `sorted.order[k]` is the place there of position k. */
  readonly waiting: readonly Waiting[];
  /** The batch in ascending score, holding the ticket objects as they were when it was prepared. */
  readonly sorted: SortedBatch;
  readonly context: SliceContext;
  readonly slices: readonly PreparedSlice[];
  /** arrivalsSinceBatch and removals when it was prepared. */
  readonly arrivals: number;
  readonly removals: number;
}

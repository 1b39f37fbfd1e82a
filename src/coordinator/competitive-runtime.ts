import { CompetitiveMatcher, validateTicket, type BatchOut, type CompetitiveStats, type CompetitiveTicket, type FormedGame, type GameFill, type PartialGame } from '../competitive/index.js';
import { checkBackfill } from './backfill/backfill-check.js';
import type { BackfillRecord } from './backfill/backfill-record.js';
import { BackfillSeats } from './backfill/backfill-seats.js';
import type { CooperativeStats } from '../cooperative/index.js';
import type { CompetitiveSettings } from '../config/config.js';
import { sameValue } from '../config/same-value.js';
import { invalidArgument } from '../errors/index.js';
import type { FactoryIdentity } from '../factories/factory-registry.js';
import { partyScores } from '../ratings/party-rating.js';
import type { CoreContext } from './core-context.js';
import { DeadlineKind } from './deadlines.js';
import type { SolvedBatch } from './effects.js';
import { FactoryRuntime, type AdmitDecision } from './factory-runtime.js';
import type { BackfillRequest, FindRequest, MatchQualityFigures, RunningGame } from './messages.js';
import type { RatedLadder, RatingsReader } from './results/game-results.js';
import type { Creation, CreationPlan } from './tickets/creation.js';
import type { Ticket } from './tickets/ticket.js';
import { answerProblem, candidate, type FallbackReason, type MatchBatchAnswer, type MatchBatchRequest } from './match-functions/match-batch.js';

/** Where a competitive factory's batches are solved. */
export interface BatchSolving {
  /** The hill-climb's clock: its time budget is real time, whatever the core's clock says. */
  readonly climbClock: () => number;
  /**
   * Pools at least this large are handed out (a `solve` effect) to be solved off the core's
   * thread; undefined: every batch is solved in the step that forms it.
   */
  readonly offloadAtTickets: number | undefined;
}

/** Join at start: tickets pool until a batch forms games, which are then created on servers. */
export class CompetitiveRuntime extends FactoryRuntime {
  readonly strategy = 'competitive';
  private matcher: CompetitiveMatcher;
  /** The batch deadline set in the core's heap, if any. */
  private batchAt: number | undefined;
  /** The batch handed out to be solved elsewhere, and its number. */
  private out: { readonly batch: string; readonly handle: BatchOut } | undefined;
  /** The batch offered to the factory's match function, awaiting its answer. */
  private asked: { readonly batch: string; readonly request: MatchBatchRequest; readonly offered: ReadonlyMap<string, number> } | undefined;
  /**
   * Games this factory formed (or a server re-announced) that still run: QueryStats counts them.
   * `roster` is everyone the game was made for: a player who drops out may come back, no one else.
   */
  private readonly running = new Map<string, { players: Set<string>; roster: Set<string>; startedAt: number; map?: string; region?: string }>();
  /** Partial games of open backfill requests, kept here too so a new matcher (a reload) takes them over. */
  private readonly partials = new Map<string, PartialGame>();
  /** Seats backfills reserved for players who have not joined yet. */
  private readonly backfillSeats = new BackfillSeats();
  /** The reservation deadline set in the core's heap, if any. */
  private seatsExpireAt: number | undefined;

  constructor(
    identity: FactoryIdentity,
    ctx: CoreContext,
    private settings: CompetitiveSettings,
    private readonly solving: BatchSolving,
    /** The template's ladder: its ratings stand in for a ticket's missing scores. */
    private readonly ladder: RatedLadder | undefined,
    private readonly ratings: RatingsReader | undefined,
  ) {
    super(identity, ctx);
    this.matcher = new CompetitiveMatcher(settings, { now: solving.climbClock, random: ctx.random });
  }

  override misfit(identity: FactoryIdentity, waiting: readonly Ticket[]): string | undefined {
    const strategy = identity.template.strategy;
    if (strategy.kind !== 'competitive' || sameValue(strategy.settings, this.settings)) return undefined;
    for (const ticket of waiting) {
      const problem = validateTicket(strategy.settings, this.toTicket(ticket.request, ticket.createdAt));
      if (problem !== undefined) return `waiting ticket "${ticket.id}" would not fit: ${problem}`;
    }
    return undefined;
  }

  /**
   * New settings take effect from the next batch, for every ticket in the pool: a new matcher takes
   * the waiting tickets with their waits so far (so their windows stand where the new expansion
   * puts them), and a batch out on the workers is forgotten (its answer is ignored, its tickets are
   * in the new pool). The matcher's learned figures (score spread, arrival density, quality) start
   * afresh.
   */
  override reconfigure(identity: FactoryIdentity, waiting: readonly Ticket[]): void {
    super.reconfigure(identity, waiting);
    const strategy = identity.template.strategy;
    if (strategy.kind !== 'competitive' || sameValue(strategy.settings, this.settings)) return;
    this.settings = strategy.settings;
    this.out?.handle.abandon();
    this.out = undefined;
    this.asked = undefined;
    this.ctx.deadlines.delete(DeadlineKind.MatchFunction, this.identity.name);
    this.matcher = new CompetitiveMatcher(this.settings, { now: this.solving.climbClock, random: this.ctx.random });
    for (const ticket of waiting) this.matcher.add(this.toTicket(ticket.request, ticket.createdAt));
    for (const game of this.partials.values()) this.matcher.addPartialGame(game);
    this.ctx.deadlines.delete(DeadlineKind.Batch, this.identity.name);
    this.batchAt = undefined;
    this.scheduleBatch();
  }

  validate(request: FindRequest): void {
    request.party.forEach((p, i) => {
      if (p.score === undefined && !this.ladder) {
        throw invalidArgument(`party[${i}].score`, `required by competitive template "${this.identity.template.name}" (it has no ladder)`);
      }
    });
    if (request.matchable.size > 0) {
      throw invalidArgument('matchable_attributes', `competitive template "${this.identity.template.name}" has no matchable keys`);
    }
    const problem = validateTicket(this.settings, this.toTicket(request, 0));
    if (problem !== undefined) {
      const [field, ...rest] = problem.split(': ');
      throw invalidArgument(field!, rest.join(': '));
    }
  }

  /** The matcher's ticket; on a ladder, missing scores come from the ratings as they are now. */
  private toTicket(request: FindRequest, enqueuedAt: number): CompetitiveTicket {
    const ladder = this.ladder;
    const rated = ladder && request.party.some((p) => p.score === undefined)
      ? partyScores(ladder.system, request.party, (player) => this.ratings?.get(ladder.config.name, player))
      : undefined;
    return {
      ticketId: request.ticketId,
      players: request.party.map((p, i) => ({ playerId: p.playerId, score: rated?.scores[i] ?? p.score ?? NaN })),
      ...(rated && rated.uncertainty > 0 && { scoreUncertainty: rated.uncertainty }),
      enqueuedAt,
      latencyMs: request.latenciesMs,
      preferredMaps: request.preferredMaps,
      vetoedMaps: request.vetoedMaps,
      ...(request.waitBudgetMs !== undefined && { waitBudgetMs: request.waitBudgetMs }),
      ...(request.maxLatencyMs !== undefined && { maxLatencyMs: request.maxLatencyMs }),
      ...(request.location !== undefined && { location: request.location }),
      ...(request.softAttributes !== undefined && { softAttributes: request.softAttributes }),
    };
  }

  admit(ticket: Ticket): AdmitDecision {
    const pooled = this.toTicket(ticket.request, ticket.createdAt);
    this.matcher.add(pooled);
    this.scheduleBatch();
    // From tickets near its score that played lately, less what it has waited already (a restored one).
    const recent = this.matcher.estimatedWaitMs(pooled);
    if (recent === undefined) return { kind: 'pooled' };
    return { kind: 'pooled', estimatedWaitMs: Math.max(0, Math.round(recent - (this.ctx.now() - ticket.createdAt))) };
  }

  /** The plan for a game a batch formed, from its tickets by team. */
  plan(teams: readonly (readonly Ticket[])[], map: string | undefined, region: string | undefined, quality?: MatchQualityFigures): CreationPlan {
    const seats: { playerId: string; team: number; ticketId: string }[] = [];
    teams.forEach((team, teamIndex) => {
      for (const ticket of team) for (const playerId of ticket.playerIds) seats.push({ playerId, team: teamIndex, ticketId: ticket.id });
    });
    return {
      factory: this.identity.name,
      strategy: 'competitive',
      partition: this.identity.partition,
      matchable: new Map(),
      rideKey: undefined,
      ticketIds: teams.flat().map((t) => t.id),
      seats,
      capacity: seats.length,
      map: map ?? '',
      region: region ?? '',
      ...(quality && { quality }),
    };
  }

  withdraw(ticketId: string): void {
    this.matcher.remove(ticketId);
  }

  waiting(): number {
    return this.matcher.size;
  }

  gameCreated(creation: Creation, gameId: string): string[] {
    const present = new Set(creation.ticketIds);
    const players = creation.seats.filter((s) => present.has(s.ticketId)).map((s) => s.playerId);
    this.running.set(gameId, { players: new Set(players), roster: new Set(players), startedAt: this.ctx.now(), map: creation.map, region: creation.region });
    return [];
  }

  override addGame(game: RunningGame): void {
    this.running.set(game.gameId, { players: new Set(game.playerIds), roster: new Set(game.playerIds), startedAt: game.startedAt });
  }

  override holdSeats(gameId: string, playerIds: readonly string[]): void {
    const game = this.running.get(gameId);
    for (const playerId of playerIds) game?.roster.add(playerId);
  }

  removeGame(gameId: string): string[] {
    const game = this.running.get(gameId);
    this.running.delete(gameId);
    this.backfillSeats.releaseGame(gameId);
    return game ? [...new Set([...game.players, ...game.roster])] : [];
  }

  override mayRejoin(gameId: string, playerId: string): boolean {
    return this.running.get(gameId)?.roster.has(playerId) ?? false;
  }

  override playerJoined(gameId: string, playerId: string): void {
    this.running.get(gameId)?.players.add(playerId);
    this.backfillSeats.release(gameId, playerId);
  }

  override playerLeft(gameId: string, playerId: string): void {
    this.running.get(gameId)?.players.delete(playerId);
  }

  /** Join at start: no game is open to matching, so only counts, players and durations. */
  override stats(_predicates: unknown, _mode: unknown, now: number): CooperativeStats {
    let players = 0;
    let min = Infinity;
    let max = 0;
    let total = 0;
    for (const game of this.running.values()) {
      players += game.players.size;
      const d = Math.max(0, now - game.startedAt);
      min = Math.min(min, d);
      max = Math.max(max, d);
      total += d;
    }
    const games = this.running.size;
    return {
      games,
      openGames: 0,
      players,
      openSlots: 0,
      minDurationMs: games === 0 ? 0 : min,
      maxDurationMs: max,
      averageDurationMs: games === 0 ? 0 : total / games,
      openGamesByOpenSlots: [],
    };
  }

  override competitiveStats(): CompetitiveStats {
    return this.matcher.stats();
  }

  // ---------------------------------------------------------------- backfill

  /** A backfill request for one of its running games, checked (MatchmakingError naming the field). */
  checkBackfill(gameId: string, request: BackfillRequest): Pick<BackfillRecord, 'players' | 'map' | 'region'> {
    const game = this.running.get(gameId);
    const ladder = this.ladder;
    return checkBackfill(request, {
      template: this.identity.template.name,
      settings: this.settings,
      roster: game?.roster,
      map: game?.map ?? '',
      region: game?.region ?? '',
      rated: ladder && ((players) => partyScores(ladder.system, players, (player) => this.ratings?.get(ladder.config.name, player)).scores),
    });
  }

  /** True while some backfill request waits here for a fill. */
  get backfillsOpen(): boolean {
    return this.partials.size > 0;
  }

  /** A backfill request waits for tickets from the next batch on (replacing one with its id). */
  openBackfill(game: PartialGame): void {
    this.partials.set(game.backfillId, game);
    this.matcher.addPartialGame(game);
    this.scheduleBatch();
  }

  closeBackfill(backfillId: string): void {
    if (this.partials.delete(backfillId)) this.matcher.removePartialGame(backfillId);
  }

  /** Fills what it can of the open requests from the pool, now; their tickets have left the pool. */
  fillBackfills(): GameFill[] {
    const fills = this.matcher.fillPartialGames(this.ctx.now());
    for (const fill of fills) this.partials.delete(fill.backfillId);
    return fills;
  }

  /** Seats a fill reserved: the newcomers may join until `expiresAt`, then the seats lapse. */
  holdBackfillSeats(gameId: string, playerIds: readonly string[], expiresAt: number): void {
    const game = this.running.get(gameId);
    for (const playerId of playerIds) game?.roster.add(playerId);
    this.backfillSeats.hold(gameId, playerIds, expiresAt);
    this.scheduleSeatExpiry();
  }

  /** Backfill seats whose newcomers did not arrive in time: no longer theirs. */
  override expireReservations(now: number): readonly { readonly gameId: string; readonly playerIds: readonly string[] }[] {
    this.seatsExpireAt = undefined;
    const lapsed = this.backfillSeats.lapse(now);
    for (const { gameId, playerIds } of lapsed) {
      const game = this.running.get(gameId);
      for (const playerId of playerIds) if (!game?.players.has(playerId)) game?.roster.delete(playerId);
    }
    this.scheduleSeatExpiry();
    return lapsed;
  }

  private scheduleSeatExpiry(): void {
    const at = this.backfillSeats.nextExpiry();
    if (at === undefined || at === this.seatsExpireAt) return;
    this.seatsExpireAt = at;
    this.ctx.deadlines.set(DeadlineKind.Reservations, this.identity.name, at);
  }

  override dispose(): void {
    this.ctx.deadlines.delete(DeadlineKind.Reservations, this.identity.name);
    this.ctx.deadlines.delete(DeadlineKind.Batch, this.identity.name);
    this.out?.handle.abandon();
    this.out = undefined;
    this.asked = undefined;
    this.ctx.deadlines.delete(DeadlineKind.MatchFunction, this.identity.name);
  }

  private scheduleBatch(): void {
    if (this.asked) return; // the answer (or its deadline) schedules the next
    const at = this.matcher.nextBatchAt();
    if (at === undefined || at === this.batchAt) return;
    this.batchAt = at;
    this.ctx.deadlines.set(DeadlineKind.Batch, this.identity.name, at);
  }

  /**
   * The batch fell due: the games it forms now, or none yet when its slices are handed out to be
   * solved (a `solve` effect; they come back through `batchSolved`).
   */
  runBatch(): readonly FormedGame[] {
    this.batchAt = undefined;
    if (this.matcher.batchOut || this.asked) return [];
    const matchFunction = this.identity.template.matchFunction;
    if (matchFunction && this.matcher.size > 0) {
      this.ask(matchFunction.address, matchFunction.timeoutMs, matchFunction.maxTickets);
      return [];
    }
    return this.builtIn();
  }

  /** The batch due now, formed by the built-in matcher (in the step, or handed out to workers). */
  private builtIn(): readonly FormedGame[] {
    const now = this.ctx.now();
    const offloadAt = this.solving.offloadAtTickets;
    if (offloadAt === undefined || this.matcher.size < offloadAt) return this.formedInProcess(now);
    // The matcher lets one batch out at a time and reports no next batch meanwhile, so admit()
    // schedules nothing until this one is back; tickets cancelled meanwhile drop their games.
    const handle = this.matcher.prepareForSolver(now);
    // A fresh id, not a count: a factory drained and made again must not take its predecessor's answer.
    this.out = { batch: this.ctx.newId(), handle };
    this.ctx.out.push({ kind: 'solve', factory: this.identity.name, batch: this.out.batch, tasks: handle.tasks });
    return [];
  }

  /**
   * Offers the oldest waiting tickets to the match function (a `matchBatch` effect). The tickets
   * stay in the pool meanwhile (a cancel takes them out as usual); the answer, or the deadline on
   * the core's clock, comes back as an input.
   */
  private ask(address: string, timeoutMs: number, maxTickets: number): void {
    const now = this.ctx.now();
    const tickets = this.matcher.candidates(maxTickets);
    const request: MatchBatchRequest = {
      factory: this.identity.name,
      teams: this.settings.teams,
      teamSize: this.settings.teamSize,
      maps: this.settings.maps,
      regions: this.settings.regions,
      tickets: tickets.map((t) => candidate(t, now)),
    };
    const batch = this.ctx.newId();
    this.asked = { batch, request, offered: new Map(tickets.map((t) => [t.ticketId, t.players.length])) };
    this.ctx.deadlines.set(DeadlineKind.MatchFunction, this.identity.name, now + timeoutMs);
    this.ctx.out.push({ kind: 'matchBatch', factory: this.identity.name, batch, address, timeoutMs, request });
  }

  /**
   * The match function answered batch `batch`: its games, checked whole (answerProblem), start;
   * games holding a ticket that left meanwhile are dropped (their other tickets wait on). A failed
   * call or a broken rule costs this batch only: the built-in matcher forms it, counted and logged.
   */
  matchBatchAnswered(batch: string, answer: MatchBatchAnswer): readonly FormedGame[] {
    const asked = this.asked;
    if (asked?.batch !== batch) return []; // late, after its deadline or a reload
    this.asked = undefined;
    this.ctx.deadlines.delete(DeadlineKind.MatchFunction, this.identity.name);
    if ('error' in answer) return this.fallBack('failed', answer.error);
    const problem = answerProblem(answer.games, asked.offered, asked.request);
    if (problem !== undefined) return this.fallBack('refused', problem);
    const now = this.ctx.now();
    const formed: FormedGame[] = [];
    for (const game of answer.games) {
      if (!game.teams.every((team) => team.every((id) => this.matcher.waitingTicket(id) !== undefined))) continue;
      formed.push(this.matcher.startFormed(game.teams, game.map || undefined, game.region || undefined, now));
    }
    this.matcher.batchFormedElsewhere(now);
    this.scheduleBatch();
    return formed;
  }

  /** The match function did not answer in time. */
  matchFunctionTimedOut(): readonly FormedGame[] {
    if (!this.asked) return [];
    this.asked = undefined;
    return this.fallBack('timeout', `no answer within ${this.identity.template.matchFunction?.timeoutMs ?? 0} ms`);
  }

  private fallBack(reason: FallbackReason, detail: string): readonly FormedGame[] {
    const factory = this.identity.name;
    this.ctx.out.event('matchFunctionFallback', { factory, reason, detail });
    this.ctx.out.warn({ factory, reason, detail }, `match function ${reason === 'timeout' ? 'timed out' : reason === 'failed' ? 'failed' : 'answer refused'}: the built-in matcher forms this batch`);
    return this.builtIn();
  }

  /** The slices of a handed-out batch are back (or failed: then the batch is solved here). */
  batchSolved(batch: string, solved: SolvedBatch): readonly FormedGame[] {
    const out = this.out;
    if (out?.batch !== batch) return [];
    this.out = undefined;
    if ('error' in solved) {
      out.handle.abandon();
      this.ctx.out.warn({ factory: this.identity.name, error: solved.error }, 'competitive batch failed on workers; running it in process');
      return this.formedInProcess(this.ctx.now());
    }
    const games = out.handle.finish(solved.results);
    this.scheduleBatch();
    return games;
  }

  private formedInProcess(now: number): readonly FormedGame[] {
    const games = this.matcher.formGames(now);
    this.scheduleBatch();
    return games;
  }

  /** Tickets of a game that could not start (one of its parties left meanwhile) wait again. */
  repool(ticket: Ticket): void {
    this.matcher.add(this.toTicket(ticket.request, ticket.createdAt));
    this.scheduleBatch();
  }
}

import type { CoordinatorConfig } from '../config/config.js';
import type { FormedGame } from '../competitive/index.js';
import { MatchmakingError } from '../errors/index.js';
import { FactoryRegistry, type FactoryIdentity } from '../factories/factory-registry.js';
import { Placement } from '../placement/index.js';
import { InMemoryRatingStore } from '../ratings/index.js';
import type { Principal } from '../security/tokens/principal.js';
import { BackfillDesk } from './backfill/backfill-desk.js';
import type { BackfillRecord } from './backfill/backfill-record.js';
import { ReadyChecks, type Proposal } from './acceptance/ready-checks.js';
import { checkOwner } from './tickets/restored-tickets.js';
import type { MatchBatchAnswer } from './match-functions/match-batch.js';
import { CompetitiveRuntime, type BatchSolving } from './competitive-runtime.js';
import { ConfigReload, type ReloadOutcome } from './config-reload.js';
import { CooperativeRuntime } from './cooperative-runtime.js';
import type { CoreContext } from './core-context.js';
import { DeadlineKind, Deadlines } from './deadlines.js';
import { CoreView } from './edges/core-view.js';
import { EffectLog, type SolvedBatch, type Step } from './effects.js';
import type { FactoryRuntime } from './factory-runtime.js';
import { GameCreations } from './game-creations.js';
import type { FindRequest, ServerChannel, ServerEvent, ServerHello, TicketListener } from './messages.js';
import { QueuePositions } from './queue-positions.js';
import { GameResults, ladderStanding, ratedLadders, type RatedLadder, type RatingsReader, type ResultOutcome } from './results/game-results.js';
import { RejectionLog } from './servers/rejection-log.js';
import { RunningGames } from './servers/running-games.js';
import { ServerDesk } from './servers/server-desk.js';
import { ServerRoster } from './servers/server-roster.js';
import { ParkedTickets, RestoredTickets } from './tickets/restored-tickets.js';
import type { Ticket } from './tickets/ticket.js';
import { TicketBook } from './tickets/ticket-book.js';
import { TicketDesk } from './tickets/ticket-desk.js';
import type { TicketRecord } from './tickets/ticket-record.js';

/** What the core needs besides its config: sources of ids and randomness, and what it reads. */
export interface CoreOptions {
  /** Fresh unique ids for requests and reservation tokens (a seeded source replays exactly). */
  readonly newId: () => string;
  readonly random: () => number;
  /** The ratings the core reads (missing scores, repeated results); writes are effects. In memory when absent. */
  readonly ratings?: RatingsReader;
  /** How competitive batches are solved; by default in the step, with a real-time climb budget. */
  readonly solving?: Partial<BatchSolving>;
  /**
   * Store tickets riding a creation in flight, with where it went (default true; see
   * GameCreations): false stores only waiting tickets, and a retry after a crash mid-creation
   * then gets a new game instead of the one ordered.
   */
  readonly storeInFlight?: boolean;
  /**
   * Store them the moment the order is sent, not once `placement.storeInFlightAfterMs` has passed
   * without a confirmation: a cluster's owner, whose step commits its writes in one MULTI at no
   * extra round trip, and whose successor must know every ticket it acknowledged.
   */
  readonly storeInFlightAtOnce?: boolean;
  /**
   * Until this time, a find for a factory no server serves yet waits for one instead of being
   * refused FAILED_PRECONDITION: a new matcher owner's servers re-announce within moments.
   */
  readonly awaitServersUntil?: number;
  /**
   * The factories this core runs, of all a server can host: a shard's core runs its own shard's
   * only, so a server's hello instantiates those and not every shard's (a node of 64 shards made
   * 64 matchers per factory). Absent: all.
   */
  readonly serves?: (factory: string) => boolean;
  /** Open backfill requests from before a restart: taken up again when their servers re-announce their games. */
  readonly restoredBackfills?: readonly BackfillRecord[];
}

/** A find's step; `refused` is the answer to a request that can never succeed as asked. */
export interface FindStep extends Step {
  readonly refused?: MatchmakingError;
}

export interface RespondStep extends Step {
  /** Every party of the match has accepted: its game is being created. */
  readonly complete: boolean;
  readonly refused?: MatchmakingError;
}

export interface CancelStep extends Step {
  /** False when no ticket with that id is waiting. */
  readonly cancelled: boolean;
  readonly refused?: MatchmakingError;
}

/** A reload's step: applied whole (`changes`) or refused whole (`refused`, every reason). */
export type ReloadStep = Step & ReloadOutcome;

export interface HelloStep extends Step {
  /** The factories the server now serves. */
  readonly factories: readonly string[];
  readonly refused?: MatchmakingError;
}

/**
 * The coordinator core: a synchronous state machine. Every input (a find, a cancel, a stream
 * gone, a server's hello, report or departure, the clock reaching a deadline, a result written, a
 * batch solved elsewhere) carries its time and returns a Step: the effects it causes, in order,
 * and when the core wants to be called next. The core performs no I/O, calls no listener and
 * schedules nothing: the edge that runs it (src/app/core-host.ts) applies the effects. Given the
 * same inputs and the same sources of ids and randomness, it returns the same steps.
 *
 * Inside, each piece of state has one owner: tickets (TicketBook), servers (ServerRoster), games
 * and seats (RunningGames), creations and the slots they claim (GameCreations over Placement),
 * factories (FactoryRegistry), deadlines (Deadlines).
 */
export class CoordinatorCore {
  /** The read-only face of the core. */
  readonly view: CoreView;
  private now = -Infinity;
  private readonly out = new EffectLog();
  private readonly deadlines = new Deadlines();
  private readonly ctx: CoreContext;
  private readonly registry: FactoryRegistry<FactoryRuntime>;
  private readonly book: TicketBook;
  private readonly roster: ServerRoster;
  private readonly games: RunningGames;
  private readonly creations: GameCreations;
  private readonly restored: RestoredTickets;
  private readonly parked = new ParkedTickets();
  private readonly desk: TicketDesk;
  private readonly results: GameResults;
  private readonly servers: ServerDesk;
  private readonly reloads: ConfigReload;
  private readonly rejections: RejectionLog;
  private readonly backfills: BackfillDesk;
  private readonly readyChecks: ReadyChecks;
  /** Effects of the construction (records already expired): handed out with the first step. */
  private pending: Step['effects'];

  constructor(
    config: CoordinatorConfig,
    options: CoreOptions,
    /** Waiting tickets from before a restart: retried with the same id, they keep their place. */
    restored: readonly TicketRecord[] = [],
    /** The time the core starts at (restored tickets' time to live runs from their creation). */
    startAt = 0,
  ) {
    this.now = startAt;
    this.ctx = {
      config,
      now: () => this.now,
      out: this.out,
      deadlines: this.deadlines,
      newId: options.newId,
      random: options.random,
      maybeIdle: new Set(),
    };
    const ctx = this.ctx;
    const ladders = ratedLadders(config.ladders);
    const ratings = options.ratings ?? new InMemoryRatingStore(ladderStanding(ladders));
    const solving: BatchSolving = {
      climbClock: options.solving?.climbClock ?? (() => performance.now()),
      offloadAtTickets: options.solving?.offloadAtTickets,
    };
    this.registry = new FactoryRegistry(config.templates, (identity) => runtimeFor(identity, ctx, solving, ladders, ratings), options.serves);
    const placement = new Placement(config.placement.policy);
    this.book = new TicketBook(ctx);
    this.roster = new ServerRoster(ctx);
    this.games = new RunningGames(ctx, this.registry);
    this.restored = new RestoredTickets(ctx, config.placement.ticketTtlMs, restored);
    const positions = new QueuePositions(ctx, this.book, this.restored, this.registry);
    this.creations = new GameCreations(ctx, placement, this.book, this.roster, positions, options.storeInFlight === false ? 'never' : options.storeInFlightAtOnce ? 'at-once' : 'unconfirmed');
    this.readyChecks = new ReadyChecks(ctx, this.book);
    this.desk = new TicketDesk(ctx, this.registry, this.book, this.roster, this.games, this.creations, this.restored, this.parked, restored, options.awaitServersUntil ?? -Infinity, this.readyChecks);
    this.results = new GameResults(ctx, this.games, this.roster, ladders, ratings);
    this.backfills = new BackfillDesk(ctx, this.registry, this.roster, this.games, this.book, this.desk, options.restoredBackfills ?? []);
    this.servers = new ServerDesk(ctx, this.registry, this.roster, this.games, this.creations, this.book, this.desk, this.results, this.restored, this.backfills);
    this.reloads = new ConfigReload(ctx, this.registry, this.book, this.roster, this.creations, this.desk);
    this.rejections = new RejectionLog(ctx);
    const readyChecks = this.readyChecks;
    this.view = new CoreView(this.registry, this.roster, this.games, this.book, this.creations, this.parked, placement, this.backfills, (name) => readyChecks.ticketsIn(name));
    // Restoring stores nothing, but may forget records whose time to live is already over.
    this.pending = this.out.take();
  }

  /** When the core wants `advance` called next, if it waits for anything. */
  nextWakeAt(): number | undefined {
    return this.deadlines.nextAt();
  }

  // ---------------------------------------------------------------- tickets

  /** FindGame. The edge has claimed the party's players for this ticket id; a refusal releases them. */
  find(at: number, request: FindRequest, listener: TicketListener): FindStep {
    this.begin(at);
    let refused: MatchmakingError | undefined;
    try {
      this.desk.find(request, listener);
    } catch (error) {
      refused = refusal(error);
      this.releaseClaim(request);
    }
    const step = this.end();
    return refused === undefined ? step : { effects: step.effects, wakeAt: step.wakeAt, refused };
  }

  /** CancelFind. PERMISSION_DENIED when `caller` does not own the ticket. */
  cancel(at: number, ticketId: string, caller?: Principal): CancelStep {
    this.begin(at);
    let cancelled = false;
    let refused: MatchmakingError | undefined;
    try {
      cancelled = this.desk.cancel(ticketId, caller);
    } catch (error) {
      refused = refusal(error);
    }
    const step = this.end();
    return { effects: step.effects, wakeAt: step.wakeAt, cancelled, refused };
  }

  /**
   * RespondToMatch: a proposed ticket accepts or declines its match (a ready check). NOT_FOUND for
   * no live ticket, PERMISSION_DENIED when `caller` does not own it, FAILED_PRECONDITION when it is
   * not in that match (any more).
   */
  respondToMatch(at: number, ticketId: string, matchId: string, accept: boolean, caller?: Principal): RespondStep {
    this.begin(at);
    let complete = false;
    let refused: MatchmakingError | undefined;
    try {
      const ticket = this.book.get(ticketId);
      if (!ticket) throw new MatchmakingError('NOT_FOUND', `ticket_id: no live ticket "${ticketId.slice(0, 128)}"`);
      checkOwner(caller, ticket.owner, ticketId, 'answer a match for');
      const answer = this.readyChecks.answer(ticket, matchId, accept);
      if (answer.kind === 'declined') this.desk.breakMatch(answer.proposal, new Set([ticketId]), 'declined');
      if (answer.kind === 'accepted') {
        complete = true;
        this.createProposed(answer.proposal);
      }
    } catch (error) {
      refused = refusal(error);
    }
    const step = this.end();
    return { effects: step.effects, wakeAt: step.wakeAt, complete, refused };
  }

  /** The client's stream went away: its waiting ticket is cancelled unless another call resumed it. */
  abandon(at: number, ticketId: string, listener: TicketListener): Step {
    this.begin(at);
    this.desk.abandon(ticketId, listener);
    return this.end();
  }

  // ---------------------------------------------------------------- game servers

  /** A server said hello on `channel`. */
  connectServer(at: number, hello: ServerHello, channel: ServerChannel): HelloStep {
    this.begin(at);
    try {
      const factories = this.servers.hello(hello, channel);
      const step = this.end();
      return { effects: step.effects, wakeAt: step.wakeAt, factories };
    } catch (error) {
      const refused = refusal(error);
      const step = this.end();
      return { effects: step.effects, wakeAt: step.wakeAt, factories: [], refused };
    }
  }

  /** The server's stream ended or went silent. Ignored when `channel` was already replaced. */
  disconnectServer(at: number, serverId: string, channel: ServerChannel): Step {
    this.begin(at);
    if (this.roster.get(serverId)?.channel === channel) {
      this.servers.remove(serverId);
      this.out.info({ serverId }, 'game server disconnected');
    }
    return this.end();
  }

  /** One report from a connected server. Bad reports are answered with `rejected`. */
  serverEvent(at: number, serverId: string, event: ServerEvent): Step {
    this.begin(at);
    if (this.roster.get(serverId)) {
      const problem = this.servers.report(serverId, event);
      if (problem !== undefined) {
        this.out.event('serverMessageRejected', { kind: event.kind, serverId, reason: problem });
        this.rejections.rejected(serverId, event.kind, problem);
        this.roster.send(serverId, { kind: 'rejected', reason: `${event.kind}: ${problem}` });
      }
    }
    return this.end();
  }

  // ---------------------------------------------------------------- configuration

  /**
   * A new configuration (factories.yaml read again): applied whole, for tickets from now on and the
   * pools of changed competitive factories, or refused whole with every reason. Waiting tickets and
   * running games stay either way.
   */
  reload(at: number, next: CoordinatorConfig): ReloadStep {
    this.begin(at);
    const outcome = this.reloads.reload(next);
    return { ...this.end(), ...outcome };
  }

  /** Why `next` would be refused now (empty: it would apply); a query, nothing changes. A node running several cores asks each before it reloads any. */
  reloadProblems(next: CoordinatorConfig): readonly string[] {
    return this.reloads.check(next).problems;
  }

  // ---------------------------------------------------------------- time and answers from the edge

  /** The clock reached `at`: every deadline due by then falls, earliest first, each at its own time. */
  advance(at: number): Step {
    this.out.take();
    for (let due = this.deadlines.popDue(at); due !== undefined; due = this.deadlines.popDue(at)) {
      this.now = Math.max(this.now, due.at);
      this.fire(due.kind, due.id);
      this.settleIdle();
    }
    this.now = Math.max(this.now, at);
    return this.end();
  }

  /** The rating store answered a `recordResult` effect. */
  resultRecorded(at: number, gameId: string, outcome: ResultOutcome): Step {
    this.begin(at);
    this.results.recorded(gameId, outcome);
    return this.end();
  }

  /** The slices of a `solve` effect are back (or could not be solved). */
  batchSolved(at: number, factory: string, batch: string, solved: SolvedBatch): Step {
    this.begin(at);
    const runtime = this.registry.get(factory);
    if (runtime instanceof CompetitiveRuntime) this.startGames(runtime, runtime.batchSolved(batch, solved));
    return this.end();
  }

  /** A factory's match function answered a `matchBatch` effect (or the call failed). */
  matchBatchAnswered(at: number, factory: string, batch: string, answer: MatchBatchAnswer): Step {
    this.begin(at);
    const runtime = this.registry.get(factory);
    if (runtime instanceof CompetitiveRuntime) this.startGames(runtime, runtime.matchBatchAnswered(batch, answer));
    return this.end();
  }

  /** The process is going down: waiting tickets are stored, and nothing after changes what is stored. */
  beginShutdown(at: number): Step {
    this.begin(at);
    this.desk.beginShutdown();
    this.restored.beginShutdown();
    this.creations.storeInFlightNow();
    this.book.beginShutdown();
    return this.end();
  }

  // ---------------------------------------------------------------- the step

  private begin(at: number): void {
    if (at > this.now) this.now = at;
  }

  private end(): Step {
    this.settleIdle();
    let effects = this.out.take();
    if (this.pending.length > 0) {
      effects = [...this.pending, ...effects];
      this.pending = [];
    }
    return { effects, wakeAt: this.deadlines.nextAt() };
  }

  /** A factory no server serves goes away once no ticket waits in it. */
  private settleIdle(): void {
    const candidates = this.ctx.maybeIdle;
    if (candidates.size === 0) return;
    for (const name of candidates) {
      if (this.registry.servers(name).size > 0) continue;
      const runtime = this.registry.get(name);
      if (!runtime || runtime.waiting() > 0 || this.creations.waiting(name) > 0 || this.readyChecks.pending(name) > 0) continue;
      runtime.dispose();
      this.registry.drain(name);
      this.out.info({ factory: name }, 'factory drained');
    }
    candidates.clear();
  }

  private fire(kind: DeadlineKind, id: string): void {
    switch (kind) {
      case DeadlineKind.TicketExpiry:
        return this.desk.expire(id);
      case DeadlineKind.Retention:
        return this.desk.retentionOver(id);
      case DeadlineKind.RestoredExpiry:
        return this.restored.expire(id);
      case DeadlineKind.CreateTimeout:
        return this.creations.timedOut(id);
      case DeadlineKind.StoreInFlight:
        return this.creations.storeDue(id);
      case DeadlineKind.DrainRetry:
        return this.creations.drain();
      case DeadlineKind.PositionRefresh:
        return this.creations.refreshPositions();
      case DeadlineKind.BreakerRest: {
        const capacity = this.roster.rested(id);
        if (capacity) this.creations.setCapacity(id, capacity);
        return;
      }
      case DeadlineKind.Reservations: {
        const runtime = this.registry.get(id);
        if (runtime && this.games.lapseReservations(runtime)) this.desk.offerSeats(id);
        return;
      }
      case DeadlineKind.AwaitServer:
        return this.desk.stopAwaiting(id);
      case DeadlineKind.RejectionSummary:
        return this.rejections.windowClosed(id);
      case DeadlineKind.Acceptance: {
        const proposal = this.readyChecks.timedOut(id);
        if (proposal) this.desk.breakMatch(proposal, new Set(proposal.teams.flat().filter((t) => !proposal.accepted.has(t))), 'acceptance-timed-out');
        return;
      }
      case DeadlineKind.MatchFunction: {
        const runtime = this.registry.get(id);
        if (runtime instanceof CompetitiveRuntime) this.startGames(runtime, runtime.matchFunctionTimedOut());
        return;
      }
      case DeadlineKind.Batch: {
        const runtime = this.registry.get(id);
        if (!(runtime instanceof CompetitiveRuntime)) return;
        // Running games asking for backfill have first pick of the batch's tickets.
        if (runtime.backfillsOpen) this.backfills.filled(runtime, runtime.fillBackfills());
        this.startGames(runtime, runtime.runBatch());
        return;
      }
      case DeadlineKind.BackfillExpiry:
        return this.backfills.expire(id);
    }
  }

  /** A refused find gives back the players the edge claimed for it (not those of a live ticket with its id). */
  private releaseClaim(request: FindRequest): void {
    const held = this.book.get(request.ticketId)?.playerIds;
    const playerIds = request.party.map((p) => p.playerId).filter((p) => !held?.includes(p));
    if (playerIds.length > 0) this.out.push({ kind: 'release', ticketId: request.ticketId, playerIds });
  }

  /** A batch formed games: each starts if all its tickets still wait; the others go back to the pool. */
  private startGames(runtime: CompetitiveRuntime, games: readonly FormedGame[]): void {
    for (const game of games) {
      const teams = game.teams.map((team) => team.map((id) => this.book.get(id)));
      // A batch solved elsewhere ends later than it began: start only games whose tickets all
      // still wait, and give the others back to the pool.
      if (teams.some((team) => team.some((t) => t?.state.kind !== 'pooled'))) {
        for (const t of teams.flat()) if (t?.state.kind === 'pooled') runtime.repool(t);
        continue;
      }
      const quality = {
        favouriteWinProbability: game.quality.favouriteWinProbability,
        matchQuality: game.quality.matchQuality,
        gapSigma: game.quality.gapInSigma,
      };
      const acceptance = runtime.identity.template.acceptance;
      if (acceptance) {
        const formed = { map: game.map, region: game.region, quality, waitsMs: game.quality.waitsMs, gapInSigma: game.quality.gapInSigma };
        this.readyChecks.propose(runtime.identity.name, teams as Ticket[][], formed, acceptance.timeoutMs);
        continue;
      }
      this.out.event('competitiveGameFormed', {
        factory: runtime.identity.name,
        gapInSigma: game.quality.gapInSigma,
        waitsMs: game.quality.waitsMs,
        favouriteWinProbability: quality.favouriteWinProbability,
        matchQuality: quality.matchQuality,
        ticketIds: game.teams.flat(),
      });
      this.creations.create(runtime.plan(teams as Ticket[][], game.map, game.region, quality));
    }
  }

  /** Every party accepted a proposed game: it is created as a batch's game is. */
  private createProposed(proposal: Proposal): void {
    const runtime = this.registry.get(proposal.factory);
    const teams = proposal.teams.map((team) => team.map((id) => this.book.get(id)!));
    if (!(runtime instanceof CompetitiveRuntime)) return this.desk.breakMatch(proposal, new Set(), 'declined');
    this.out.event('competitiveGameFormed', {
      factory: proposal.factory,
      gapInSigma: proposal.gapInSigma,
      waitsMs: proposal.waitsMs,
      favouriteWinProbability: proposal.quality.favouriteWinProbability,
      matchQuality: proposal.quality.matchQuality,
      ticketIds: proposal.teams.flat(),
    });
    this.creations.create(runtime.plan(teams, proposal.map, proposal.region, proposal.quality));
  }
}

/** A refusal is a MatchmakingError; anything else is a bug and is not the client's answer. */
function refusal(error: unknown): MatchmakingError {
  if (error instanceof MatchmakingError) return error;
  throw error;
}

function runtimeFor(
  identity: FactoryIdentity,
  ctx: CoreContext,
  solving: BatchSolving,
  ladders: ReadonlyMap<string, RatedLadder>,
  ratings: RatingsReader,
): FactoryRuntime {
  ctx.out.info({ factory: identity.name }, 'factory instantiated');
  const strategy = identity.template.strategy;
  if (strategy.kind === 'cooperative') return new CooperativeRuntime(identity, ctx, strategy.settings);
  const ladder = identity.template.ladder === undefined ? undefined : ladders.get(identity.template.ladder);
  return new CompetitiveRuntime(identity, ctx, strategy.settings, solving, ladder, ratings);
}

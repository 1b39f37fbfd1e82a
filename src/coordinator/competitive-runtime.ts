import { CompetitiveMatcher, validateTicket, type CompetitiveStats, type CompetitiveTicket, type FormedGame } from '../competitive/index.js';
import type { CooperativeStats } from '../cooperative/index.js';
import type { CompetitiveSettings } from '../config/config.js';
import { invalidArgument } from '../errors/index.js';
import type { FactoryIdentity } from '../factories/factory-registry.js';
import { partyScores } from '../ratings/party-rating.js';
import { FactoryRuntime, type AdmitDecision, type DecisionSink } from './factory-runtime.js';
import type { FindRequest, RunningGame } from './messages.js';
import type { CoreDeps } from './ports.js';
import type { RatedLadder } from './results/game-results.js';
import type { Creation, CreationPlan } from './tickets/creation.js';
import type { Ticket } from './tickets/ticket.js';

/**
 * Pools at least this large are batched on the slice solver's worker threads when there is one:
 * a 1v1 batch this size takes ~10 ms in process (longer for teams, which hill-climb), about what
 * encoding it and posting it costs, so smaller batches stay on the event loop.
 */
const WORKER_BATCH_MIN_TICKETS = 2048;

/** Join at start: tickets pool until a batch forms games, which are then created on servers. */
export class CompetitiveRuntime extends FactoryRuntime {
  readonly strategy = 'competitive';
  private readonly matcher: CompetitiveMatcher;
  private cancelBatch: (() => void) | undefined;
  private batchAt: number | undefined;
  private disposed = false;
  /** Games this factory formed (or a server re-announced) that still run: QueryStats counts them. */
  private readonly running = new Map<string, { players: Set<string>; startedAt: number }>();

  constructor(
    identity: FactoryIdentity,
    deps: CoreDeps,
    decide: DecisionSink,
    private readonly settings: CompetitiveSettings,
    /** The template's ladder: its ratings stand in for a ticket's missing scores (issue 12). */
    private readonly ladder?: RatedLadder,
  ) {
    super(identity, deps, decide);
    this.matcher = new CompetitiveMatcher(settings, { now: deps.now, random: deps.random });
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
      ? partyScores(ladder.system, request.party, (player) => this.deps.ratings?.get(ladder.config.name, player))
      : undefined;
    return {
      ticketId: request.ticketId,
      players: request.party.map((p, i) => ({ playerId: p.playerId, score: rated?.scores[i] ?? p.score ?? NaN })),
      ...(rated && rated.uncertainty > 0 && { scoreUncertainty: rated.uncertainty }),
      enqueuedAt,
      latencyMs: request.latenciesMs,
      preferredMaps: request.preferredMaps,
      vetoedMaps: request.vetoedMaps,
    };
  }

  admit(ticket: Ticket): AdmitDecision {
    this.matcher.add(this.toTicket(ticket.request, ticket.createdAt));
    this.scheduleBatch();
    return { kind: 'pooled' };
  }

  /** The plan for a game a batch formed, from its tickets by team. */
  plan(teams: readonly (readonly Ticket[])[], map: string | undefined, region: string | undefined): CreationPlan {
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
    this.running.set(gameId, { players: new Set(players), startedAt: this.deps.now() });
    return [];
  }

  override addGame(game: RunningGame): void {
    this.running.set(game.gameId, { players: new Set(game.playerIds), startedAt: game.startedAt });
  }

  override removeGame(gameId: string): void {
    this.running.delete(gameId);
  }

  override playerJoined(gameId: string, playerId: string): void {
    this.running.get(gameId)?.players.add(playerId);
  }

  override playerLeft(gameId: string, playerId: string): void {
    this.running.get(gameId)?.players.delete(playerId);
  }

  /** Join at start: no game is open to matching, so only counts, players and durations (issue 10, defect 3). */
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

  override dispose(): void {
    this.disposed = true;
    this.cancelBatch?.();
  }

  private scheduleBatch(): void {
    const at = this.matcher.nextBatchAt();
    if (at === undefined || at === this.batchAt) return;
    this.cancelBatch?.();
    this.batchAt = at;
    this.cancelBatch = this.deps.timers.set(() => this.runBatch(), at - this.deps.now());
  }

  private runBatch(): void {
    this.cancelBatch = this.batchAt = undefined;
    const now = this.deps.now();
    const solver = this.deps.sliceSolver;
    if (solver === undefined || this.matcher.size < WORKER_BATCH_MIN_TICKETS) {
      this.startGames(this.matcher.formGames(now));
      this.scheduleBatch();
      return;
    }
    // The matcher lets one batch out at a time and reports no next batch meanwhile, so admit()
    // schedules nothing until this one is applied; tickets cancelled meanwhile drop their games.
    this.matcher.formGamesOn(now, solver).then(
      (games) => {
        if (this.disposed) return;
        this.startGames(games);
        this.scheduleBatch();
      },
      (error: unknown) => {
        if (this.disposed) return;
        this.deps.log.warn({ factory: this.identity.name, error: String(error) }, 'competitive batch failed on workers; running it in process');
        this.startGames(this.matcher.formGames(this.deps.now()));
        this.scheduleBatch();
      },
    );
  }

  private startGames(games: readonly FormedGame[]): void {
    if (games.length > 0) this.decide({ kind: 'gamesFormed', factory: this.identity.name, games });
  }

  /** Tickets of a game that could not start (one of its parties left meanwhile) wait again. */
  repool(ticket: Ticket): void {
    this.matcher.add(this.toTicket(ticket.request, ticket.createdAt));
    this.scheduleBatch();
  }
}

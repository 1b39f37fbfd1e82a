import { CompetitiveMatcher, validateTicket, type CompetitiveStats, type FormedGame } from '../competitive/index.js';
import type { CompetitiveSettings } from '../config/config.js';
import { invalidArgument } from '../errors/index.js';
import type { FactoryIdentity } from '../factories/factory-registry.js';
import { FactoryRuntime, type FactoryHost } from './factory-runtime.js';
import type { FindRequest } from './messages.js';
import type { CoreDeps } from './ports.js';
import type { Creation, Ticket } from './tickets.js';

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

  constructor(identity: FactoryIdentity, host: FactoryHost, deps: CoreDeps, private readonly settings: CompetitiveSettings) {
    super(identity, host, deps);
    this.matcher = new CompetitiveMatcher(settings, { now: deps.now, random: deps.random });
  }

  validate(request: FindRequest): void {
    request.party.forEach((p, i) => {
      if (p.score === undefined) throw invalidArgument(`party[${i}].score`, `required by competitive template "${this.identity.template.name}"`);
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

  private toTicket(request: FindRequest, enqueuedAt: number) {
    return {
      ticketId: request.ticketId,
      players: request.party.map((p) => ({ playerId: p.playerId, score: p.score ?? NaN })),
      enqueuedAt,
      latencyMs: request.latenciesMs,
      preferredMaps: request.preferredMaps,
      vetoedMaps: request.vetoedMaps,
    };
  }

  admit(ticket: Ticket): void {
    ticket.state = 'matching';
    this.matcher.add(this.toTicket(ticket.request, ticket.createdAt));
    ticket.listener?.update({ kind: 'queued', factory: this.identity.name, position: 0, estimatedWaitMs: 0 });
    this.scheduleBatch();
  }

  withdraw(ticketId: string): void {
    this.matcher.remove(ticketId);
  }

  waiting(): number {
    return this.matcher.size;
  }

  gameCreated(): void {}

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
    for (const game of games) {
      // A batch solved on workers ends later than it began: start only games whose tickets all
      // still wait, and give the others back to the pool.
      const tickets = game.teams.map((team) => team.map((id) => this.host.heldTicket(id)));
      if (tickets.some((team) => team.some((t) => t === undefined || t.state !== 'matching'))) {
        for (const t of tickets.flat()) {
          if (t !== undefined && t.state === 'matching') this.matcher.add(this.toTicket(t.request, t.createdAt));
        }
        continue;
      }
      this.deps.events.emit('competitiveGameFormed', { factory: this.identity.name, gapInSigma: game.quality.gapInSigma, waitsMs: game.quality.waitsMs });
      const seats: Creation['seats'] = [];
      tickets.forEach((team, teamIndex) => {
        for (const ticket of team as Ticket[]) {
          for (const playerId of ticket.playerIds) seats.push({ playerId, team: teamIndex, ticketId: ticket.id });
        }
      });
      this.host.createGame({
        requestId: this.deps.newId(),
        factory: this.identity.name,
        matchable: new Map(),
        rideKey: undefined,
        ticketIds: game.teams.flat(),
        seats,
        dispatchedSeats: 0,
        stage: 'placing',
        capacity: seats.length,
        map: game.map ?? '',
        region: game.region ?? '',
        token: this.deps.newId(),
        priority: undefined,
        serverId: undefined,
        cancelTimeout: undefined,
      });
    }
  }
}

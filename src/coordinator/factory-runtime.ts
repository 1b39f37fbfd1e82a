import type { AttributeSet } from '../attributes/attribute-value.js';
import { CompetitiveMatcher, validateTicket, type CompetitiveStats, type FormedGame } from '../competitive/index.js';
import { CooperativeMatcher, type CooperativeStats, type StatsPredicate } from '../cooperative/index.js';
import type { CompetitiveSettings, CooperativeSettings } from '../config/config.js';
import { invalidArgument } from '../errors/index.js';
import type { FactoryIdentity } from '../factories/factory-registry.js';
import type { Assignment, FindRequest, RunningGame, ServerOrder } from './messages.js';
import type { CoordinatorDeps } from './ports.js';
import { queryKey, type Creation, type Ticket } from './tickets.js';

/** What a factory needs from the coordinator that owns it. */
export interface FactoryHost {
  createGame(creation: Creation): void;
  rideAlong(ticket: Ticket): boolean;
  assignTicket(ticket: Ticket, assignment: Assignment): void;
  matchQueued(factory: string, tryMatch: (ticket: Ticket) => Assignment | undefined): void;
  reservationLapsed(gameId: string, playerIds: readonly string[]): void;
  gameServer(gameId: string): string | undefined;
  serverEndpoint(serverId: string): string;
  sendToServer(serverId: string, order: ServerOrder): void;
  ticket(ticketId: string): Ticket | undefined;
}

/**
 * One live factory: its identity and its matcher. The factory abstraction is strategy-agnostic
 * (Battle.net talk, "Game Factories"); each strategy decides how a ticket becomes a game.
 */
export abstract class FactoryRuntime {
  abstract readonly strategy: 'cooperative' | 'competitive';

  constructor(
    readonly identity: FactoryIdentity,
    protected readonly host: FactoryHost,
    protected readonly deps: CoordinatorDeps,
  ) {}

  static create(identity: FactoryIdentity, host: FactoryHost, deps: CoordinatorDeps): FactoryRuntime {
    const strategy = identity.template.strategy;
    return strategy.kind === 'cooperative'
      ? new CooperativeRuntime(identity, host, deps, strategy.settings)
      : new CompetitiveRuntime(identity, host, deps, strategy.settings);
  }

  /** Throws INVALID_ARGUMENT naming the field when the request does not fit this factory. */
  abstract validate(request: FindRequest): void;
  /** A new (or returned) ticket: match it, pool it, or have a game created for it. */
  abstract admit(ticket: Ticket): void;
  /** A waiting ticket left (cancelled, expired) before being placed. */
  abstract withdraw(ticketId: string): void;
  /** Tickets waiting in the matcher (not yet in a creation). */
  abstract waiting(): number;
  abstract gameCreated(creation: Creation, gameId: string): void;
  /** Problem with a game's matchable attributes, or undefined. */
  checkMatchable(matchable: AttributeSet): string | undefined {
    for (const key of matchable.keys()) {
      if (!this.identity.template.matchableKeys.includes(key)) return `"${key}" is not a matchable key of ${this.identity.name}`;
    }
    return undefined;
  }
  addGame(_game: RunningGame): void {}
  removeGame(_gameId: string): void {}
  playerJoined(_gameId: string, _playerId: string, _now: number): void {}
  playerLeft(_gameId: string, _playerId: string, _now: number): void {}
  setAttributes(_gameId: string, matchable: AttributeSet): string | undefined {
    return this.checkMatchable(matchable);
  }
  setOpen(_gameId: string, _open: boolean): void {}
  /** Seats may have opened: let queued parties take them. */
  offerSeats(): void {}
  openGames(): number {
    return 0;
  }
  stats(_predicates: readonly StatsPredicate[], _mode: 'all' | 'any' | 'none', _now: number): CooperativeStats | undefined {
    return undefined;
  }
  /** Quality of the games a competitive factory has formed. */
  competitiveStats(): CompetitiveStats | undefined {
    return undefined;
  }
  dispose(): void {}
}

/** Drop-in/drop-out: join an open game with room for the party, else create one (fill or spread). */
class CooperativeRuntime extends FactoryRuntime {
  readonly strategy = 'cooperative';
  private readonly matcher: CooperativeMatcher;
  private cancelExpiry: (() => void) | undefined;
  private expiryAt: number | undefined;

  constructor(identity: FactoryIdentity, host: FactoryHost, deps: CoordinatorDeps, private readonly settings: CooperativeSettings) {
    super(identity, host, deps);
    this.matcher = new CooperativeMatcher({ ...settings, matchableKeys: identity.template.matchableKeys });
  }

  validate(request: FindRequest): void {
    if (request.party.length > this.settings.maxPlayers) {
      throw invalidArgument('party', `${request.party.length} players do not fit a game of ${this.settings.maxPlayers}`);
    }
    for (const key of request.matchable.keys()) {
      if (!this.identity.template.matchableKeys.includes(key)) {
        throw invalidArgument(
          `matchable_attributes[${key}]`,
          `not a matchable key of template "${this.identity.template.name}" (keys: ${this.identity.template.matchableKeys.join(', ') || 'none'})`,
        );
      }
    }
  }

  admit(ticket: Ticket): void {
    const assignment = this.tryMatch(ticket);
    if (assignment) return this.host.assignTicket(ticket, assignment);
    if (this.host.rideAlong(ticket)) return;
    this.host.createGame({
      requestId: this.deps.newId(),
      factory: this.identity.name,
      matchable: ticket.request.matchable,
      rideKey: queryKey(ticket.request.matchable),
      ticketIds: [ticket.id],
      seats: ticket.playerIds.map((playerId) => ({ playerId, team: 0, ticketId: ticket.id })),
      dispatchedSeats: 0,
      stage: 'placing',
      capacity: this.settings.maxPlayers,
      map: '',
      region: '',
      token: this.deps.newId(),
      priority: undefined,
      serverId: undefined,
      cancelTimeout: undefined,
    });
  }

  /** Finds an open game for the party and reserves its seats; tells the game server. */
  private tryMatch(ticket: Ticket): Assignment | undefined {
    const token = this.deps.newId();
    const now = this.deps.now();
    const found = this.matcher.reserve(ticket.request.matchable, ticket.playerIds, token, now);
    if (!found) return undefined;
    const serverId = this.host.gameServer(found.gameId)!;
    this.host.sendToServer(serverId, {
      kind: 'reserveSeats',
      gameId: found.gameId,
      playerIds: ticket.playerIds,
      reservationToken: token,
      expiresInMs: this.settings.reservationMs,
    });
    this.scheduleExpiry();
    return {
      gameId: found.gameId,
      serverId,
      serverEndpoint: this.host.serverEndpoint(serverId),
      factory: this.identity.name,
      reservationToken: token,
      created: false,
      map: '',
      region: '',
      team: 0,
    };
  }

  withdraw(): void {}

  waiting(): number {
    return 0;
  }

  gameCreated(creation: Creation, gameId: string): void {
    const now = this.deps.now();
    this.matcher.addGame({ gameId, attributes: creation.matchable, playerIds: [], open: true, startedAt: now });
    const late: string[] = [];
    creation.seats.forEach((seat, i) => {
      if (i >= creation.dispatchedSeats) late.push(seat.playerId);
    });
    for (const ticketId of creation.ticketIds) {
      const ticket = this.host.ticket(ticketId);
      if (ticket) this.matcher.reserveInGame(gameId, ticket.playerIds, `${creation.token}/${ticketId}`, now);
    }
    if (late.length > 0) {
      // Parties that rode along after the order was sent: the server learns their seats now.
      this.host.sendToServer(creation.serverId!, {
        kind: 'reserveSeats',
        gameId,
        playerIds: late,
        reservationToken: creation.token,
        expiresInMs: this.settings.reservationMs,
      });
    }
    this.scheduleExpiry();
  }

  override addGame(game: RunningGame): void {
    this.matcher.addGame({
      gameId: game.gameId,
      attributes: game.matchable,
      playerIds: game.playerIds,
      open: game.open,
      startedAt: game.startedAt,
    });
  }

  override removeGame(gameId: string): void {
    this.matcher.removeGame(gameId);
  }

  override playerJoined(gameId: string, playerId: string, now: number): void {
    this.matcher.playerJoined(gameId, playerId, now);
  }

  override playerLeft(gameId: string, playerId: string, now: number): void {
    this.matcher.playerLeft(gameId, playerId, now);
    this.offerSeats();
  }

  override setAttributes(gameId: string, matchable: AttributeSet): string | undefined {
    const problem = this.checkMatchable(matchable);
    if (problem === undefined) {
      this.matcher.setAttributes(gameId, matchable);
      this.offerSeats();
    }
    return problem;
  }

  override setOpen(gameId: string, open: boolean): void {
    this.matcher.setOpen(gameId, open);
    if (open) this.offerSeats();
  }

  override offerSeats(): void {
    this.host.matchQueued(this.identity.name, (ticket) => this.tryMatch(ticket));
  }

  override openGames(): number {
    return this.matcher.openGameCount;
  }

  override stats(predicates: readonly StatsPredicate[], mode: 'all' | 'any' | 'none', now: number): CooperativeStats {
    return this.matcher.stats(predicates, mode, now);
  }

  override dispose(): void {
    this.cancelExpiry?.();
  }

  /** One timer per factory, at the earliest reservation deadline. */
  private scheduleExpiry(): void {
    const at = this.matcher.nextReservationExpiry();
    if (at === undefined || at === this.expiryAt) return;
    this.cancelExpiry?.();
    this.expiryAt = at;
    this.cancelExpiry = this.deps.timers.set(() => {
      this.cancelExpiry = this.expiryAt = undefined;
      const expired = this.matcher.expireReservations(this.deps.now());
      for (const r of expired) this.host.reservationLapsed(r.gameId, r.playerIds);
      this.scheduleExpiry();
      if (expired.length > 0) this.offerSeats();
    }, at - this.deps.now());
  }
}

/**
 * Pools at least this large are batched on the slice solver's worker threads when there is one:
 * a 1v1 batch this size takes ~10 ms in process (longer for teams, which hill-climb), about what
 * encoding it and posting it costs, so smaller batches stay on the event loop.
 */
const WORKER_BATCH_MIN_TICKETS = 2048;

/** Join at start: tickets pool until a batch forms games, which are then created on servers. */
class CompetitiveRuntime extends FactoryRuntime {
  readonly strategy = 'competitive';
  private readonly matcher: CompetitiveMatcher;
  private cancelBatch: (() => void) | undefined;
  private batchAt: number | undefined;
  private disposed = false;

  constructor(identity: FactoryIdentity, host: FactoryHost, deps: CoordinatorDeps, private readonly settings: CompetitiveSettings) {
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
      const tickets = game.teams.map((team) => team.map((id) => this.host.ticket(id)));
      if (tickets.some((team) => team.some((t) => t === undefined || t.state !== 'matching'))) {
        for (const t of tickets.flat()) {
          if (t !== undefined && t.state === 'matching') this.matcher.add(this.toTicket(t.request, t.createdAt));
        }
        continue;
      }
      this.deps.observer?.competitiveGameFormed(this.identity.name, game.quality.gapInSigma, game.quality.waitsMs);
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

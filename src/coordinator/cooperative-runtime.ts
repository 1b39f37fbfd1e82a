import type { AttributeSet } from '../attributes/attribute-value.js';
import { CooperativeMatcher, type CooperativeStats, type StatsPredicate } from '../cooperative/index.js';
import type { CooperativeSettings } from '../config/config.js';
import { invalidArgument } from '../errors/index.js';
import type { FactoryIdentity } from '../factories/factory-registry.js';
import { FactoryRuntime, type FactoryHost } from './factory-runtime.js';
import type { Assignment, FindRequest, RunningGame } from './messages.js';
import type { CoreDeps } from './ports.js';
import type { Creation, Ticket } from './tickets.js';

/** Drop-in/drop-out: join an open game with room for the party, else create one (fill or spread). */
export class CooperativeRuntime extends FactoryRuntime {
  readonly strategy = 'cooperative';
  private readonly matcher: CooperativeMatcher;
  private cancelExpiry: (() => void) | undefined;
  private expiryAt: number | undefined;

  constructor(identity: FactoryIdentity, host: FactoryHost, deps: CoreDeps, private readonly settings: CooperativeSettings) {
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
    // Parties asking exactly the same thing share a game still being created.
    const rideKey = this.matcher.subsetKeyOf(ticket.request.matchable);
    if (this.host.rideAlong(ticket, rideKey)) return;
    this.host.createGame({
      requestId: this.deps.newId(),
      factory: this.identity.name,
      matchable: ticket.request.matchable,
      rideKey,
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
    const link = this.host.link(serverId)!; // the game is running, so its server is connected
    link.channel.send({
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
      serverEndpoint: link.endpoint,
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
      const ticket = this.host.heldTicket(ticketId);
      if (ticket) this.matcher.reserveInGame(gameId, ticket.playerIds, `${creation.token}/${ticketId}`, now);
    }
    if (late.length > 0) {
      // Parties that rode along after the order was sent: the server learns their seats now.
      this.host.link(creation.serverId!)?.channel.send({
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

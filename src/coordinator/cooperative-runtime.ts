import type { AttributeSet } from '../attributes/attribute-value.js';
import { CooperativeMatcher, type CooperativeStats, type StatsPredicate } from '../cooperative/index.js';
import type { CooperativeSettings } from '../config/config.js';
import { invalidArgument } from '../errors/index.js';
import type { FactoryIdentity } from '../factories/factory-registry.js';
import type { CoreContext } from './core-context.js';
import { DeadlineKind } from './deadlines.js';
import { FactoryRuntime, type AdmitDecision, type SeatMatch } from './factory-runtime.js';
import type { FindRequest, RunningGame } from './messages.js';
import type { Creation } from './tickets/creation.js';
import type { Ticket } from './tickets/ticket.js';

/** Drop-in/drop-out: join an open game with room for the party, else create one (fill or spread). */
export class CooperativeRuntime extends FactoryRuntime {
  readonly strategy = 'cooperative';
  private readonly matcher: CooperativeMatcher;
  /** The reservation deadline set in the core's heap, if any. */
  private expiryAt: number | undefined;

  constructor(identity: FactoryIdentity, ctx: CoreContext, private readonly settings: CooperativeSettings) {
    super(identity, ctx);
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

  /** No open game took the party (RunningGames.reserve asked `match` first): a new game is needed. */
  admit(ticket: Ticket): AdmitDecision {
    return {
      kind: 'create',
      plan: {
        factory: this.identity.name,
        strategy: 'cooperative',
        partition: this.identity.partition,
        matchable: ticket.request.matchable,
        // Parties asking exactly the same thing share a game still being created.
        rideKey: this.matcher.subsetKeyOf(ticket.request.matchable),
        ticketIds: [ticket.id],
        seats: ticket.playerIds.map((playerId) => ({ playerId, team: 0, ticketId: ticket.id })),
        capacity: this.settings.maxPlayers,
        map: '',
        region: '',
      },
    };
  }

  /** Finds an open game for the party and reserves its seats. */
  override match(ticket: Ticket): SeatMatch | undefined {
    const token = this.ctx.newId();
    const found = this.matcher.reserve(ticket.request.matchable, ticket.playerIds, token, this.ctx.now());
    if (!found) return undefined;
    this.scheduleExpiry();
    return { gameId: found.gameId, reservationToken: token, expiresInMs: this.settings.reservationMs };
  }

  withdraw(): void {}

  waiting(): number {
    return 0;
  }

  gameCreated(creation: Creation, gameId: string): string[] {
    const now = this.ctx.now();
    this.matcher.addGame({ gameId, attributes: creation.matchable, playerIds: [], open: true, startedAt: now });
    const byTicket = new Map<string, string[]>();
    for (const seat of creation.seats) {
      let players = byTicket.get(seat.ticketId);
      if (!players) byTicket.set(seat.ticketId, (players = []));
      players.push(seat.playerId);
    }
    for (const [ticketId, playerIds] of byTicket) this.matcher.reserveInGame(gameId, playerIds, `${creation.token}/${ticketId}`, now);
    this.scheduleExpiry();
    // Parties that rode along after the order was sent: the server learns their seats now.
    return creation.seats.slice(creation.dispatchedSeats).map((seat) => seat.playerId);
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

  override holdSeats(gameId: string, playerIds: readonly string[], token: string): void {
    if (playerIds.length === 0) return;
    this.matcher.reserveInGame(gameId, playerIds, token, this.ctx.now());
    this.scheduleExpiry();
  }

  removeGame(gameId: string): string[] {
    const removed = this.matcher.removeGame(gameId);
    if (!removed) return [];
    return [...removed.playerIds, ...removed.reservations.flatMap((r) => r.playerIds)];
  }

  override playerJoined(gameId: string, playerId: string, now: number): void {
    this.matcher.playerJoined(gameId, playerId, now);
  }

  override playerLeft(gameId: string, playerId: string, now: number): void {
    this.matcher.playerLeft(gameId, playerId, now);
  }

  override expireReservations(now: number) {
    this.expiryAt = undefined;
    const expired = this.matcher.expireReservations(now);
    this.scheduleExpiry();
    return expired;
  }

  override setAttributes(gameId: string, matchable: AttributeSet): string | undefined {
    const problem = this.checkMatchable(matchable);
    if (problem === undefined) this.matcher.setAttributes(gameId, matchable);
    return problem;
  }

  override setOpen(gameId: string, open: boolean): void {
    this.matcher.setOpen(gameId, open);
  }

  override openGames(): number {
    return this.matcher.openGameCount;
  }

  override stats(predicates: readonly StatsPredicate[], mode: 'all' | 'any' | 'none', now: number): CooperativeStats {
    return this.matcher.stats(predicates, mode, now);
  }

  override dispose(): void {
    this.ctx.deadlines.delete(DeadlineKind.Reservations, this.identity.name);
  }

  /** One deadline per factory, at the earliest reservation's end. */
  private scheduleExpiry(): void {
    const at = this.matcher.nextReservationExpiry();
    if (at === undefined || at === this.expiryAt) return;
    this.expiryAt = at;
    this.ctx.deadlines.set(DeadlineKind.Reservations, this.identity.name, at);
  }
}

import type { FactoryRegistry } from '../../factories/factory-registry.js';
import type { CoreContext } from '../core-context.js';
import type { FactoryRuntime, SeatMatch } from '../factory-runtime.js';
import type { RunningGame } from '../messages.js';
import type { Creation } from '../tickets/creation.js';
import type { Ticket } from '../tickets/ticket.js';
import { FinishedGames, type RankedGame } from './finished-games.js';

/** A game the coordinator created itself (see RunningGames.add). */
const OURS = Symbol('ours');

export interface RunningGameRecord {
  readonly gameId: string;
  readonly serverId: string;
  readonly factory: string;
  /**
   * Ranked games only, for its result: the factory's ladder, the players the coordinator seated
   * (never those a server only announced), and the game's start on the coordinator's clock.
   */
  readonly ranked?: { readonly ladder: string; readonly seated: Set<string>; readonly startedAt: number; readonly announced: boolean };
}

/**
 * The one writer of running games and their seats. Who sits in a game (joined, or holding a
 * reserved seat) is kept once, by the game's factory runtime (the cooperative matcher indexes it
 * for matching); this class is the only one that changes it, and keeps beside it, in the same
 * calls, the index a FindGame checks: the game each player holds a seat in.
 */
export class RunningGames {
  private readonly games = new Map<string, RunningGameRecord>();
  private readonly byServer = new Map<string, Set<string>>();
  /** Player -> the game they hold a seat in: an index over the runtimes' seats, never set elsewhere. */
  private readonly seatOf = new Map<string, string>();
  /**
   * Players whose seat only a server's hello names (the coordinator never gave it): it does not
   * stop them finding a game, so a server cannot keep a stranger out of matchmaking by naming them.
   */
  private readonly onlyAnnounced = new Set<string>();
  /** Games adopted from a hello with no record of the coordinator's: a player coming back to one is only its server's word. */
  private readonly announcedGames = new Set<string>();
  private readonly finished = new FinishedGames();
  /** Games a server runs that could not be adopted (see sortRunningGames): each holds a slot until it ends. */
  private readonly slotOnly = new Map<string, Set<string>>();

  constructor(
    private readonly ctx: CoreContext,
    private readonly registry: FactoryRegistry<FactoryRuntime>,
  ) {}

  get count(): number {
    return this.games.size;
  }

  get(gameId: string): RunningGameRecord | undefined {
    return this.games.get(gameId);
  }

  /** Games running on a server. */
  countOn(serverId: string): number {
    return this.byServer.get(serverId)?.size ?? 0;
  }

  /** The game this player plays in or holds a seat in, if any. */
  gameOf(playerId: string): string | undefined {
    return this.seatOf.get(playerId);
  }

  /** The game whose seat stops this player finding another: one the coordinator gave or confirmed, not one a hello only names. */
  seatHeld(playerId: string): string | undefined {
    return this.onlyAnnounced.has(playerId) ? undefined : this.seatOf.get(playerId);
  }

  /**
   * A game a server re-announced in its hello (already checked by sortRunningGames). Its players
   * hold their seats, but only the coordinator's own record of the game (it ended when the server's
   * stream dropped, and the server came back) makes it one whose result may count.
   */
  adopt(serverId: string, game: RunningGame): void {
    const known = this.finished.get(game.gameId, this.ctx.now());
    const ours = known?.serverId === serverId && known.factory === game.factory && !known.announced ? known : undefined;
    if (ours) this.finished.forget(game.gameId);
    this.add(serverId, game.gameId, game.factory, [], ours ? { seated: new Set(ours.players), startedAt: ours.startedAt, announced: false } : undefined);
    if (!ours) this.announcedGames.add(game.gameId);
    this.seat(game.gameId, game.playerIds, false, (p) => !ours?.players.has(p));
    this.registry.get(game.factory)!.addGame(game);
    this.ctx.out.event('gameStarted', { gameId: game.gameId, serverId, factory: game.factory });
  }

  /**
   * A game a server re-announced that the coordinator had ordered there before a restart, for
   * `players` (its stored tickets'): they hold seats in it as if the order had been confirmed, and
   * it is the coordinator's game, timed from the order (`orderedAt`), so its result may count.
   */
  adoptOrdered(serverId: string, game: RunningGame, players: readonly string[], token: string, orderedAt: number): void {
    this.add(serverId, game.gameId, game.factory, [], { seated: new Set(players), startedAt: orderedAt, announced: false });
    this.seat(game.gameId, game.playerIds, false, () => true);
    this.seat(game.gameId, players, true);
    const runtime = this.registry.get(game.factory)!;
    runtime.addGame(game);
    const announced = new Set(game.playerIds);
    runtime.holdSeats(game.gameId, players.filter((p) => !announced.has(p)), token);
    this.ctx.out.event('gameStarted', { gameId: game.gameId, serverId, factory: game.factory });
  }

  /**
   * The server confirmed a creation: the game runs and every seat of the creation is the
   * players'. Returns the players who rode along after the order was sent (the server learns of
   * their seats now), or undefined when the game id is empty or already taken.
   */
  created(serverId: string, creation: Creation, gameId: string): readonly string[] | undefined {
    if (gameId === '' || this.games.has(gameId)) return undefined;
    this.add(serverId, gameId, creation.factory, [], OURS);
    const late = this.registry.get(creation.factory)?.gameCreated(creation, gameId) ?? [];
    // The seats of the tickets still in the creation (a game's few: a list search, no Set and lists a game).
    const seated: string[] = [];
    for (const s of creation.seats) if (creation.ticketIds.includes(s.ticketId)) seated.push(s.playerId);
    this.seat(gameId, seated, true);
    this.ctx.out.event('gameStarted', { gameId, serverId, factory: creation.factory });
    return late;
  }

  /** Seats for the party in one of the factory's open games, reserved, if one fits. */
  reserve(runtime: FactoryRuntime, ticket: Ticket): SeatMatch | undefined {
    const seats = runtime.match(ticket);
    if (seats) this.seat(seats.gameId, ticket.playerIds, true);
    return seats;
  }

  /**
   * Seats a backfill filled in a competitive game, reserved for its newcomers until `expiresAt`:
   * given by the coordinator, so a ranked result may name them.
   */
  reserveBackfill(runtime: FactoryRuntime & { holdBackfillSeats(gameId: string, playerIds: readonly string[], expiresAt: number): void }, gameId: string, playerIds: readonly string[], expiresAt: number): void {
    this.seat(gameId, playerIds, true);
    runtime.holdBackfillSeats(gameId, playerIds, expiresAt);
  }

  /**
   * The server says the player is in the game. Only a player holding a seat in it (reserved for
   * them, or theirs already; or one of a competitive game's own players coming back) may be: a
   * server cannot take a player out of another game, block a stranger from finding one, or seat
   * more players than the game has room for. Returns why the report is refused, if it is.
   */
  joined(gameId: string, playerId: string): string | undefined {
    const game = this.games.get(gameId)!;
    const runtime = this.registry.get(game.factory)!;
    const seatedIn = this.seatOf.get(playerId);
    // Which game is not the reporter's to know: it may be another server's.
    if (seatedIn !== undefined && seatedIn !== gameId) return `player "${playerId}" holds a seat in another game`;
    if (seatedIn === undefined && !runtime.mayRejoin(gameId, playerId)) {
      return `player "${playerId}" holds no seat in game "${gameId}": only players the coordinator reserved for it may join`;
    }
    // A seat the player held here keeps its standing; one taken back in an adopted game is its server's word.
    if (seatedIn === undefined) this.seat(gameId, [playerId], false, () => this.announcedGames.has(gameId));
    runtime.playerJoined(gameId, playerId, this.ctx.now());
    return undefined;
  }

  /** The player left the game (or never arrived). */
  left(gameId: string, playerId: string): RunningGameRecord | undefined {
    const game = this.games.get(gameId);
    if (!game) return undefined;
    this.unseat(playerId, gameId);
    this.registry.get(game.factory)?.playerLeft(gameId, playerId, this.ctx.now());
    return game;
  }

  /** A cooperative factory's reserved seats whose deadline passed are free again; true if any was. */
  lapseReservations(runtime: FactoryRuntime): boolean {
    const lapsed = runtime.expireReservations(this.ctx.now());
    for (const { gameId, playerIds } of lapsed) {
      for (const playerId of playerIds) this.unseat(playerId, gameId);
    }
    return lapsed.length > 0;
  }

  /** The game ended (or its server left): its seats are free and a ranked one awaits its result. */
  end(gameId: string): RunningGameRecord | undefined {
    const game = this.games.get(gameId);
    if (!game) return undefined;
    this.games.delete(gameId);
    this.announcedGames.delete(gameId);
    const onServer = this.byServer.get(game.serverId);
    if (onServer?.delete(gameId) && onServer.size === 0) this.byServer.delete(game.serverId);
    for (const playerId of this.registry.get(game.factory)?.removeGame(gameId) ?? []) this.unseat(playerId, gameId);
    if (game.ranked) this.finished.ended(rankedGame(game, game.ranked, this.ctx.now()), this.ctx.now());
    this.ctx.out.event('gameEnded', { gameId, serverId: game.serverId, factory: game.factory });
    return game;
  }

  /** Games of the server's hello that hold a slot on it without being adopted. */
  holdSlots(serverId: string, gameIds: readonly string[]): void {
    if (gameIds.length > 0) this.slotOnly.set(serverId, new Set(gameIds));
  }

  /** The server ended a game that only held a slot: true if it was one (its slot is free). */
  endSlotOnly(serverId: string, gameId: string): boolean {
    const held = this.slotOnly.get(serverId);
    if (!held?.delete(gameId)) return false;
    if (held.size === 0) this.slotOnly.delete(serverId);
    return true;
  }

  /** Every game of a server that left. */
  endAllOn(serverId: string): void {
    this.slotOnly.delete(serverId);
    for (const gameId of [...(this.byServer.get(serverId) ?? [])]) this.end(gameId);
  }

  /**
   * A ranked game a result may be reported for: running, or ended within RESULT_RETENTION_MS. The
   * one `serverId` hosted comes first: another server announcing the same id hides nothing.
   */
  rankedGame(gameId: string, serverId: string): RankedGame | undefined {
    const running = this.games.get(gameId);
    const ended = this.finished.get(gameId, this.ctx.now());
    if (running && (running.serverId === serverId || ended?.serverId !== serverId)) return running.ranked && rankedGame(running, running.ranked, undefined);
    return ended;
  }

  /** The game's result is in: an ended game is forgotten now rather than at its retention's end. */
  resultIn(gameId: string): void {
    this.finished.forget(gameId);
  }

  /**
   * `record`: what the coordinator knows of the game for its result (OURS: a game it created,
   * started now, nobody seated yet); none: only the server's word. Kept only for ranked games.
   */
  private add(
    serverId: string,
    gameId: string,
    factory: string,
    playerIds: readonly string[],
    record: { seated: Set<string>; startedAt: number; announced: false } | typeof OURS | undefined,
  ): void {
    const ladder = this.registry.get(factory)?.identity.template.ladder;
    const known = record === OURS ? { seated: new Set<string>(), startedAt: this.ctx.now(), announced: false as const } : record;
    const ranked = ladder === undefined ? undefined : { ladder, ...(known ?? { seated: new Set<string>(), startedAt: this.ctx.now(), announced: true }) };
    this.games.set(gameId, { gameId, serverId, factory, ...(ranked && { ranked }) });
    let onServer = this.byServer.get(serverId);
    if (!onServer) this.byServer.set(serverId, (onServer = new Set()));
    onServer.add(gameId);
    this.seat(gameId, playerIds, record !== undefined);
  }

  /**
   * `assigned`: the coordinator gave these seats (a creation, a reservation), so a ranked result
   * may name them. `announced`: which of them only a server's hello names (none by default).
   */
  private seat(gameId: string, playerIds: readonly string[], assigned: boolean, announced?: (playerId: string) => boolean): void {
    const ranked = assigned ? this.games.get(gameId)?.ranked : undefined;
    for (const playerId of playerIds) {
      this.seatOf.set(playerId, gameId);
      if (announced?.(playerId)) this.onlyAnnounced.add(playerId);
      else this.onlyAnnounced.delete(playerId);
      ranked?.seated.add(playerId);
    }
  }

  private unseat(playerId: string, gameId: string): void {
    if (this.seatOf.get(playerId) !== gameId) return;
    this.seatOf.delete(playerId);
    this.onlyAnnounced.delete(playerId);
  }
}

function rankedGame(game: RunningGameRecord, ranked: NonNullable<RunningGameRecord['ranked']>, endedAt: number | undefined): RankedGame {
  return {
    gameId: game.gameId,
    serverId: game.serverId,
    factory: game.factory,
    ladder: ranked.ladder,
    players: ranked.seated,
    startedAt: ranked.startedAt,
    endedAt,
    announced: ranked.announced,
  };
}

import type { AttributeSet } from '../attributes/attribute-value.js';
import { AttributeIndex } from './attribute-index.js';
import { normalizeCooperativeConfig, type CooperativeConfig, type NormalizedCooperativeConfig } from './config.js';
import { GameRecord, openSlotsOf, type Reservation } from './game-record.js';
import { gameStats } from './game-stats.js';
import { GameTotals } from './game-totals.js';
import { OpenGameIndex } from './open-game-index.js';
import { ReservationBook } from './reservation-book.js';
import { SubsetKeys } from './subset-key.js';
import type {
  CooperativeStats,
  ExpiredReservation,
  GameSnapshot,
  GameView,
  RemovedGame,
  ReservationView,
  StatsPredicate,
} from './types.js';

/**
 * The open games of one cooperative factory (one partition) and the seats promised in them
 * (Battle.net talk, "Cooperative Matching"). Pure: no timers, no I/O; every clock
 * value is an argument. Finding a game is O(maxPlayers) hash look-ups and heap peeks, never a
 * scan; every update costs O(2^a log n) for a game with a ≤ 6 matchable attributes.
 */
export class CooperativeMatcher {
  readonly config: NormalizedCooperativeConfig;
  private readonly games = new Map<string, GameRecord>();
  private readonly subsetKeys: SubsetKeys;
  private readonly openGames: OpenGameIndex;
  private readonly attributeIndex = new AttributeIndex();
  private readonly totals: GameTotals;
  private readonly reservations = new ReservationBook();

  constructor(config: CooperativeConfig) {
    this.config = normalizeCooperativeConfig(config);
    this.subsetKeys = new SubsetKeys(this.config.matchableKeys);
    this.openGames = new OpenGameIndex(this.config.maxPlayers, this.config.order, 1 << this.config.matchableKeys.length);
    this.totals = new GameTotals(this.config.maxPlayers);
  }

  /** Number of games (open and closed) the factory knows. */
  get size(): number {
    return this.games.size;
  }

  get openGameCount(): number {
    return this.totals.aggregate.openGames;
  }

  get reservationCount(): number {
    return this.reservations.size;
  }

  has(gameId: string): boolean {
    return this.games.has(gameId);
  }

  game(gameId: string): GameView | undefined {
    const game = this.games.get(gameId);
    if (game === undefined) return undefined;
    return {
      gameId,
      attributes: new Map(game.attributes),
      playerIds: [...game.players],
      reservedPlayerIds: game.seats().map(([playerId]) => playerId),
      open: game.open,
      openSlots: openSlotsOf(game, this.config.maxPlayers),
      startedAt: game.startedAt,
    };
  }

  gameIds(): IterableIterator<string> {
    return this.games.keys();
  }

  reservation(token: string): ReservationView | undefined {
    const reservation = this.reservations.get(token);
    return reservation && reservationView(reservation);
  }

  /**
   * A game created, or re-announced by its server after a reconnect. A re-announce replaces
   * players, attributes, open flag and start time with the server's truth and keeps the seats
   * still promised to players who have not joined yet.
   */
  addGame(snapshot: GameSnapshot): void {
    this.subsetKeys.validate(snapshot.attributes, `game '${snapshot.gameId}'`);
    if (!Number.isFinite(snapshot.startedAt)) {
      throw new Error(`game '${snapshot.gameId}': startedAt must be a finite clock value`);
    }
    const known = this.games.get(snapshot.gameId);
    if (known === undefined) {
      const game = new GameRecord(
        snapshot.gameId,
        new Map(snapshot.attributes),
        snapshot.startedAt,
        snapshot.open,
        new Set(snapshot.playerIds),
      );
      this.games.set(game.gameId, game);
      this.attach(game);
      return;
    }
    this.detach(known);
    known.attributes = new Map(snapshot.attributes);
    known.startedAt = snapshot.startedAt;
    known.open = snapshot.open;
    known.players.clear();
    for (const playerId of snapshot.playerIds) {
      known.players.add(playerId);
      this.consumeSeat(known, playerId);
    }
    known.playerCount = known.players.size;
    this.attach(known);
  }

  /** The game ended or its server is gone. Returns who was in it and which promises are void. */
  removeGame(gameId: string): RemovedGame | undefined {
    const game = this.games.get(gameId);
    if (game === undefined) return undefined;
    this.detach(game);
    const reservations = new Set(game.seats().map(([, reservation]) => reservation));
    for (const reservation of reservations) this.reservations.delete(reservation);
    game.freeAllSeats();
    this.games.delete(gameId);
    return {
      gameId,
      playerIds: [...game.players],
      reservations: [...reservations].map(reservationView),
    };
  }

  /**
   * A server reports a player in the game; the player's promised seat, if any, becomes theirs.
   * The server is authoritative: a join into a full game is recorded, and open slots stay at 0.
   * `now` is accepted so every event carries its time; matching does not depend on it.
   */
  playerJoined(gameId: string, playerId: string, now: number): void {
    void now;
    const game = this.require(gameId);
    this.beforeChange(game);
    game.players.add(playerId);
    game.playerCount = game.players.size;
    this.consumeSeat(game, playerId);
    this.afterChange(game);
  }

  /** A player left (or never arrived): frees their seat, or the seat still promised to them. */
  playerLeft(gameId: string, playerId: string, now: number): void {
    void now;
    const game = this.require(gameId);
    this.beforeChange(game);
    game.players.delete(playerId);
    game.playerCount = game.players.size;
    this.consumeSeat(game, playerId);
    this.afterChange(game);
  }

  /** Matchable attributes changed during play (act, quest step...). Replaces them all. */
  setAttributes(gameId: string, attributes: AttributeSet): void {
    const game = this.require(gameId);
    this.subsetKeys.validate(attributes, `game '${gameId}'`);
    this.openGames.leave(game);
    this.attributeIndex.delete(game);
    game.attributes = new Map(attributes);
    this.openGames.enter(game, this.subsetKeys.ofEverySubset(game.attributes), this.subsetKeys.pairsOf(game.attributes));
    this.attributeIndex.add(game);
    this.openGames.place(game, this.indexedSlots(game));
  }

  setOpen(gameId: string, open: boolean): void {
    const game = this.require(gameId);
    this.beforeChange(game);
    game.open = open;
    this.afterChange(game);
  }

  /**
   * Finds the best open game with room for the whole party and promises it their seats, in
   * one step, so two parties are never promised the same last seat. Fill: fewest sufficient
   * open slots first; spread: most first; ties go to the most recently started game.
   */
  reserve(query: AttributeSet, playerIds: readonly string[], token: string, now: number): { gameId: string } | undefined {
    this.subsetKeys.validate(query, 'query');
    this.validateParty(playerIds, token);
    const position = this.subsetKeys.singlePosition(query);
    const game =
      position === undefined
        ? this.openGames.best(this.subsetKeys.ofQuery(query), playerIds.length)
        : this.openGames.bestOfOne(position, query.values().next().value as string, playerIds.length);
    if (game === undefined) return undefined;
    this.promise(game, playerIds, token, now);
    return { gameId: game.gameId };
  }

  /**
   * Promises seats in a given game, e.g. one just created for this party after reserve() found
   * nothing. Returns false, changing nothing, when the game lacks room for the whole party.
   * The game need not be open: the caller chose it explicitly.
   */
  reserveInGame(gameId: string, playerIds: readonly string[], token: string, now: number): boolean {
    const game = this.require(gameId);
    this.validateParty(playerIds, token);
    if (openSlotsOf(game, this.config.maxPlayers) < playerIds.length) return false;
    this.promise(game, playerIds, token, now);
    return true;
  }

  /** The client gave up or was placed elsewhere: frees the seats still held. Unknown tokens are ignored. */
  releaseReservation(token: string): void {
    const reservation = this.reservations.get(token);
    if (reservation !== undefined) this.release(reservation);
  }

  /** Frees the seats of every reservation whose deadline is at or before `now`, earliest first. */
  expireReservations(now: number): ExpiredReservation[] {
    const expired: ExpiredReservation[] = [];
    for (let r = this.reservations.nextExpired(now); r !== undefined; r = this.reservations.nextExpired(now)) {
      expired.push(reservationView(r));
      this.release(r);
    }
    return expired;
  }

  /** When the coordinator should next call expireReservations, if anything is promised. */
  nextReservationExpiry(): number | undefined {
    return this.reservations.nextExpiry();
  }

  stats(predicates: readonly StatsPredicate[], mode: 'all' | 'any' | 'none', now: number): CooperativeStats {
    this.subsetKeys.validate(predicates, 'stats predicate');
    return gameStats(predicates, mode, now, this.attributeIndex, this.totals, this.config.maxPlayers);
  }

  /** Plain contents of every index, for tests that compare them with a recomputation. */
  indexContents(): {
    openGames: ReturnType<OpenGameIndex['contents']>;
    attributes: ReturnType<AttributeIndex['contents']>;
  } {
    return { openGames: this.openGames.contents(), attributes: this.attributeIndex.contents() };
  }

  /** Subset key of a query, as used by the open-game index (exposed for invariant tests). */
  subsetKeyOf(query: AttributeSet): string {
    return this.subsetKeys.ofQuery(query);
  }

  private promise(game: GameRecord, playerIds: readonly string[], token: string, now: number): void {
    const reservation: Reservation = {
      token,
      game,
      pendingPlayers: [...playerIds],
      expiresAt: now + this.config.reservationMs,
      order: 0,
      heapIndex: -1,
    };
    this.beforeChange(game);
    for (const playerId of playerIds) {
      // One player can sit only once: a newer promise in the same game replaces the older one.
      this.consumeSeat(game, playerId);
      game.promiseSeat(playerId, reservation);
    }
    this.afterChange(game);
    this.reservations.add(reservation);
  }

  private release(reservation: Reservation): void {
    const game = reservation.game;
    this.beforeChange(game);
    for (const playerId of reservation.pendingPlayers) game.freeSeat(playerId);
    reservation.pendingPlayers.length = 0;
    this.afterChange(game);
    this.reservations.delete(reservation);
  }

  /** Takes the player's promised seat, if any, out of its reservation (ending it when empty). */
  private consumeSeat(game: GameRecord, playerId: string): void {
    const reservation = game.seatOf(playerId);
    if (reservation === undefined) return;
    game.freeSeat(playerId);
    const pending = reservation.pendingPlayers;
    pending.splice(pending.indexOf(playerId), 1);
    if (pending.length === 0) this.reservations.delete(reservation);
  }

  /**
   * Around a change to players, seats or the open flag: counts the game out of the totals, then
   * back in and re-positions it (a pair of calls, not a callback: reserve is the hot path).
   */
  private beforeChange(game: GameRecord): void {
    this.totals.count(game, -1);
  }

  private afterChange(game: GameRecord): void {
    this.totals.count(game, 1);
    this.openGames.place(game, this.indexedSlots(game));
  }

  private attach(game: GameRecord): void {
    this.openGames.enter(game, this.subsetKeys.ofEverySubset(game.attributes), this.subsetKeys.pairsOf(game.attributes));
    this.totals.count(game, 1);
    this.totals.track(game, true);
    this.attributeIndex.add(game);
    this.openGames.place(game, this.indexedSlots(game));
  }

  private detach(game: GameRecord): void {
    this.openGames.leave(game);
    this.attributeIndex.delete(game);
    this.totals.track(game, false);
    this.totals.count(game, -1);
  }

  /** The open-slot bucket a game belongs in; 0 = not matchable (closed or full). */
  private indexedSlots(game: GameRecord): number {
    return game.open ? openSlotsOf(game, this.config.maxPlayers) : 0;
  }

  private validateParty(playerIds: readonly string[], token: string): void {
    if (playerIds.length < 1 || playerIds.length > this.config.maxPlayers) {
      throw new Error(`a party must have 1 to ${this.config.maxPlayers} players, got ${playerIds.length}`);
    }
    if (playerIds.length > 1 && new Set(playerIds).size !== playerIds.length) throw new Error(`party lists a player twice: ${playerIds.join(', ')}`);
    if (this.reservations.get(token) !== undefined) throw new Error(`reservation token '${token}' is already in use`);
  }

  private require(gameId: string): GameRecord {
    const game = this.games.get(gameId);
    if (game === undefined) throw new Error(`unknown game '${gameId}'`);
    return game;
  }
}

function reservationView(reservation: Reservation): ReservationView {
  return {
    token: reservation.token,
    gameId: reservation.game.gameId,
    playerIds: [...reservation.pendingPlayers],
    expiresAt: reservation.expiresAt,
  };
}

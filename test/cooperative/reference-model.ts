import type { AttributeSet, ValueKey } from '../../src/attributes/attribute-value.js';
import type { CooperativeStats, GameSnapshot, ReservationView } from '../../src/cooperative/index.js';

/**
 * A brute-force cooperative matcher: a plain list of games, every question answered by a
 * linear scan with the same rules (issue 3). The property test drives it and the real matcher
 * with the same random operations and compares every answer and every index. The benchmark
 * uses `findBest` as the naive baseline.
 */
export interface ModelGame {
  gameId: string;
  attributes: Map<string, ValueKey>;
  players: Set<string>;
  /** player -> token of the reservation promising them a seat */
  seats: Map<string, string>;
  open: boolean;
  startedAt: number;
}

export interface ModelReservation {
  token: string;
  gameId: string;
  pending: Set<string>;
  expiresAt: number;
}

export function openSlotsOf(game: ModelGame, maxPlayers: number): number {
  return Math.max(0, maxPlayers - game.players.size - game.seats.size);
}

export function matches(game: ModelGame, query: AttributeSet): boolean {
  for (const [key, value] of query) if (game.attributes.get(key) !== value) return false;
  return true;
}

/** Linear scan with the matcher's rule: open, room for the party, fill/spread, newest, then id. */
export function findBest(
  games: Iterable<ModelGame>,
  query: AttributeSet,
  partySize: number,
  maxPlayers: number,
  order: 'fill' | 'spread',
): ModelGame | undefined {
  let best: ModelGame | undefined;
  let bestSlots = 0;
  for (const game of games) {
    if (!game.open) continue;
    const slots = openSlotsOf(game, maxPlayers);
    if (slots < partySize || !matches(game, query)) continue;
    const better =
      best === undefined ||
      (order === 'fill' ? slots < bestSlots : slots > bestSlots) ||
      (slots === bestSlots &&
        (game.startedAt > best.startedAt || (game.startedAt === best.startedAt && game.gameId < best.gameId)));
    if (better) {
      best = game;
      bestSlots = slots;
    }
  }
  return best;
}

export class ReferenceMatcher {
  readonly games = new Map<string, ModelGame>();
  readonly reservations = new Map<string, ModelReservation>();

  constructor(
    readonly maxPlayers: number,
    readonly order: 'fill' | 'spread',
    readonly reservationMs: number,
  ) {}

  addGame(snapshot: GameSnapshot): void {
    const known = this.games.get(snapshot.gameId);
    const game: ModelGame = {
      gameId: snapshot.gameId,
      attributes: new Map(snapshot.attributes),
      players: new Set(snapshot.playerIds),
      seats: known?.seats ?? new Map(),
      open: snapshot.open,
      startedAt: snapshot.startedAt,
    };
    this.games.set(game.gameId, game);
    for (const player of game.players) this.consumeSeat(game, player);
  }

  removeGame(gameId: string): { gameId: string; playerIds: string[]; reservations: ReservationView[] } | undefined {
    const game = this.games.get(gameId);
    if (game === undefined) return undefined;
    const tokens = new Set(game.seats.values());
    const reservations = [...tokens].map((token) => this.view(this.reservations.get(token)!));
    for (const token of tokens) this.reservations.delete(token);
    this.games.delete(gameId);
    return { gameId, playerIds: [...game.players], reservations };
  }

  join(gameId: string, player: string): void {
    const game = this.games.get(gameId)!;
    game.players.add(player);
    this.consumeSeat(game, player);
  }

  leave(gameId: string, player: string): void {
    const game = this.games.get(gameId)!;
    game.players.delete(player);
    this.consumeSeat(game, player);
  }

  reserve(query: AttributeSet, party: readonly string[], token: string, now: number): { gameId: string } | undefined {
    const game = findBest(this.games.values(), query, party.length, this.maxPlayers, this.order);
    if (game === undefined) return undefined;
    this.promise(game, party, token, now);
    return { gameId: game.gameId };
  }

  reserveInGame(gameId: string, party: readonly string[], token: string, now: number): boolean {
    const game = this.games.get(gameId)!;
    if (openSlotsOf(game, this.maxPlayers) < party.length) return false;
    this.promise(game, party, token, now);
    return true;
  }

  release(token: string): void {
    const reservation = this.reservations.get(token);
    if (reservation === undefined) return;
    const game = this.games.get(reservation.gameId)!;
    for (const player of reservation.pending) game.seats.delete(player);
    this.reservations.delete(token);
  }

  expire(now: number): ReservationView[] {
    const expired = [...this.reservations.values()]
      .filter((r) => r.expiresAt <= now)
      // Ties in the order they were made: the Map's order, kept by a stable sort.
      .sort((a, b) => a.expiresAt - b.expiresAt)
      .map((r) => this.view(r));
    for (const r of expired) this.release(r.token);
    return expired;
  }

  nextExpiry(): number | undefined {
    const deadlines = [...this.reservations.values()].map((r) => r.expiresAt);
    return deadlines.length === 0 ? undefined : Math.min(...deadlines);
  }

  stats(predicates: readonly (readonly [string, ValueKey])[], mode: 'all' | 'any' | 'none', now: number): CooperativeStats {
    const hit = (game: ModelGame, [key, value]: readonly [string, ValueKey]): boolean => game.attributes.get(key) === value;
    const selected = [...this.games.values()].filter((game) => {
      if (predicates.length === 0) return true;
      if (mode === 'all') return predicates.every((p) => hit(game, p));
      if (mode === 'any') return predicates.some((p) => hit(game, p));
      return !predicates.some((p) => hit(game, p));
    });
    const open = selected.filter((g) => g.open);
    const durations = selected.map((g) => now - g.startedAt);
    const byOpenSlots = new Array<number>(this.maxPlayers).fill(0);
    for (const game of open) {
      const slots = openSlotsOf(game, this.maxPlayers);
      if (slots > 0) byOpenSlots[slots - 1]!++;
    }
    return {
      games: selected.length,
      openGames: open.length,
      players: selected.reduce((sum, g) => sum + g.players.size, 0),
      openSlots: open.reduce((sum, g) => sum + openSlotsOf(g, this.maxPlayers), 0),
      minDurationMs: durations.length === 0 ? 0 : Math.min(...durations),
      maxDurationMs: durations.length === 0 ? 0 : Math.max(...durations),
      averageDurationMs: durations.length === 0 ? 0 : durations.reduce((a, b) => a + b, 0) / durations.length,
      openGamesByOpenSlots: byOpenSlots,
    };
  }

  private promise(game: ModelGame, party: readonly string[], token: string, now: number): void {
    for (const player of party) {
      this.consumeSeat(game, player);
      game.seats.set(player, token);
    }
    this.reservations.set(token, { token, gameId: game.gameId, pending: new Set(party), expiresAt: now + this.reservationMs });
  }

  private consumeSeat(game: ModelGame, player: string): void {
    const token = game.seats.get(player);
    if (token === undefined) return;
    game.seats.delete(player);
    const reservation = this.reservations.get(token)!;
    reservation.pending.delete(player);
    if (reservation.pending.size === 0) this.reservations.delete(token);
  }

  private view(r: ModelReservation): ReservationView {
    return { token: r.token, gameId: r.gameId, playerIds: [...r.pending], expiresAt: r.expiresAt };
  }
}

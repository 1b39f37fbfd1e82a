import type { PlainValue } from '@gamefactory/protocol';
import { AdmissionError } from './admission-error.js';

/** A seat promised to a player who has not arrived yet. */
export interface Seat {
  /** What the player must present: the reservation token of its assignment. */
  readonly token: string;
  /** Unix ms after which the coordinator no longer holds the seat. */
  readonly expiresAt: number;
}

/** A game this server runs, as it will be re-announced after a reconnect. */
export interface HostedGame {
  readonly gameId: string;
  readonly factory: string;
  /**
   * The CreateGame order it was made for ('' if none): re-announced, it lets a restarted
   * coordinator give the players it placed here this game again.
   */
  readonly requestId: string;
  readonly matchable: Readonly<Record<string, PlainValue>>;
  /** Players in the game. */
  readonly players: ReadonlySet<string>;
  /** Seats promised, by player id, until the player arrives or the seat expires. */
  readonly seats: ReadonlyMap<string, Seat>;
  /** Whether the game takes drop-in players. */
  readonly open: boolean;
  /** Unix ms. */
  readonly startedAt: number;
}

interface Game {
  readonly gameId: string;
  readonly factory: string;
  readonly requestId: string;
  matchable: Record<string, PlainValue>;
  readonly players: Set<string>;
  readonly seats: Map<string, Seat>;
  /** The token each player came in with, so a retry of the same arrival is let in again. */
  readonly admittedWith: Map<string, string>;
  open: boolean;
  readonly startedAt: number;
}

interface Admission {
  readonly token: string;
  readonly resolve: () => void;
  readonly reject: (error: AdmissionError) => void;
  readonly timer: NodeJS.Timeout;
}

/**
 * The games a server runs, the seats promised in them, and the players who arrive with a token.
 * A player may arrive before its seat: in a cluster the assignment reaches the player through its
 * node while the ReserveSeats order comes through the server's, so an unknown token is given a
 * grace period to arrive before the player is turned away.
 */
export class HostedGames {
  private readonly games = new Map<string, Game>();
  private readonly admissions = new Map<string, Admission[]>();

  constructor(
    private readonly clock: () => number,
    private readonly graceMs: number,
    private readonly joined: (gameId: string, playerId: string) => void,
  ) {}

  get view(): ReadonlyMap<string, HostedGame> {
    return this.games;
  }

  add(game: { gameId: string; factory: string; requestId?: string; matchable: Record<string, PlainValue>; players?: readonly string[]; open?: boolean; startedAt?: number }): void {
    this.games.set(game.gameId, {
      gameId: game.gameId,
      factory: game.factory,
      requestId: game.requestId ?? '',
      matchable: { ...game.matchable },
      players: new Set(game.players),
      seats: new Map(),
      admittedWith: new Map(),
      open: game.open ?? true,
      startedAt: game.startedAt ?? this.clock(),
    });
  }

  /** Seats promised by the coordinator, each with its player's token; players already waiting at the door with theirs come in. */
  reserve(gameId: string, seats: readonly { readonly playerId: string; readonly token: string }[], holdMs: number): void {
    const game = this.games.get(gameId);
    if (!game) return;
    const expiresAt = this.clock() + holdMs;
    for (const { playerId, token } of seats) {
      if (game.players.has(playerId)) continue;
      game.seats.set(playerId, { token, expiresAt });
      if (this.admissions.get(key(gameId, playerId))?.some((a) => a.token === token)) {
        this.admit(gameId, playerId, token).catch(() => {}); // settles the waiting arrivals
      }
    }
  }

  /** Checks a player's token: resolves once the player is in, rejects with an AdmissionError. */
  admit(gameId: string, playerId: string, token: string): Promise<void> {
    const game = this.games.get(gameId);
    if (game?.players.has(playerId) && game.admittedWith.get(playerId) === token) return Promise.resolve();
    const seat = game?.seats.get(playerId);
    if (game && seat?.token === token) {
      if (this.clock() > seat.expiresAt) {
        game.seats.delete(playerId);
        return Promise.reject(new AdmissionError('expired', gameId, playerId, `${playerId}: the seat in ${gameId} expired before the player arrived`));
      }
      game.seats.delete(playerId);
      game.players.add(playerId);
      game.admittedWith.set(playerId, token);
      this.settleWaiting(gameId, playerId, token);
      this.joined(gameId, playerId);
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const k = key(gameId, playerId);
      const timer = setTimeout(() => {
        this.forget(k, admission);
        const known = this.games.has(gameId);
        reject(
          known
            ? new AdmissionError('no-reservation', gameId, playerId, `${playerId}: no seat in ${gameId} for this token within ${this.graceMs} ms`)
            : new AdmissionError('unknown-game', gameId, playerId, `${playerId}: no game ${gameId} here within ${this.graceMs} ms`),
        );
      }, this.graceMs);
      const admission: Admission = { token, resolve, reject, timer };
      this.admissions.set(k, [...(this.admissions.get(k) ?? []), admission]);
    });
  }

  leave(gameId: string, playerId: string): boolean {
    this.games.get(gameId)?.admittedWith.delete(playerId);
    return this.games.get(gameId)?.players.delete(playerId) ?? false;
  }

  setOpen(gameId: string, open: boolean): boolean {
    const game = this.games.get(gameId);
    if (game) game.open = open;
    return game !== undefined;
  }

  setMatchable(gameId: string, matchable: Record<string, PlainValue>): boolean {
    const game = this.games.get(gameId);
    if (game) game.matchable = { ...matchable };
    return game !== undefined;
  }

  /** Ends a game: players still at its door are turned away. */
  end(gameId: string): boolean {
    for (const [k, waiting] of this.admissions) {
      if (!k.startsWith(`${gameId}\0`)) continue;
      this.admissions.delete(k);
      for (const a of waiting) {
        clearTimeout(a.timer);
        a.reject(new AdmissionError('unknown-game', gameId, k.slice(gameId.length + 1), `game ${gameId} ended`));
      }
    }
    return this.games.delete(gameId);
  }

  /** Turns every waiting player away (the server is closing). */
  rejectAll(): void {
    for (const [k, waiting] of this.admissions) {
      const [gameId = '', playerId = ''] = k.split('\0');
      for (const a of waiting) {
        clearTimeout(a.timer);
        a.reject(new AdmissionError('closed', gameId, playerId, 'the game server is closing'));
      }
    }
    this.admissions.clear();
  }

  /** Once a player is in, other arrivals with the same token (a retry) are in too; others wait on. */
  private settleWaiting(gameId: string, playerId: string, token: string): void {
    const k = key(gameId, playerId);
    for (const a of this.admissions.get(k) ?? []) {
      if (a.token !== token) continue;
      clearTimeout(a.timer);
      this.forget(k, a);
      a.resolve();
    }
  }

  private forget(k: string, admission: Admission): void {
    const rest = (this.admissions.get(k) ?? []).filter((a) => a !== admission);
    if (rest.length > 0) this.admissions.set(k, rest);
    else this.admissions.delete(k);
  }
}

function key(gameId: string, playerId: string): string {
  return `${gameId}\0${playerId}`;
}

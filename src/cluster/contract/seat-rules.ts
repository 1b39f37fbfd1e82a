import type { AssignedObserved, GameEndedObserved, GameObserved, SeatFreedObserved, SeatObserved, SlotsObserved } from './observation.js';
import type { TicketLedger } from './ticket-ledger.js';
import { violation, type Violation } from './violation.js';

interface LiveGame {
  readonly key: string;
  maxPlayers?: number;
  /** Created ('game' observed): counts against its server's slots. */
  created: boolean;
  readonly seated: Set<string>;
  overfull: boolean;
}

/**
 * The rules about seats as the game servers saw them: a player seated in one live game at a time,
 * no game over its size, no server over its advertised slots, and every assignment told to a
 * client backed by a seat its server already knew of.
 */
export class SeatRules {
  private readonly games = new Map<string, LiveGame>();
  /** Per player, the live games (server/game keys) holding a seat for it. */
  private readonly seatsOf = new Map<string, Set<string>>();
  /** Live seats by server/game/player, with their token. */
  private readonly seats = new Map<string, string>();
  private readonly servers = new Map<string, { maxGames?: number; games: number }>();
  /** Assignments told before their seat: the seat may still come (late) or never. */
  private readonly toldEarly = new Map<string, { ticketId: string; at: number }>();
  /** How long after their assignment was told the late seats came, in order of arrival. */
  readonly lateSeatLagsMs: number[] = [];

  constructor(private readonly ledger: TicketLedger) {}

  slots(o: SlotsObserved): Violation[] {
    this.server(o.serverId).maxGames = o.maxGames;
    return [];
  }

  game(o: GameObserved): Violation[] {
    const game = this.game_(o.serverId, o.gameId);
    const out: Violation[] = [];
    game.maxPlayers = o.maxPlayers;
    if (!game.created) {
      game.created = true;
      const server = this.server(o.serverId);
      server.games++;
      if (server.maxGames !== undefined && server.games > server.maxGames) {
        out.push(violation('server-slots', 'server over its slots', o.at, { server: o.serverId, game: o.gameId, games: server.games, maxGames: server.maxGames }, `server ${o.serverId} runs ${server.games} games, more than the ${server.maxGames} it advertised`));
      }
    }
    this.checkSize(game, o.serverId, o.gameId, o.at, out);
    return out;
  }

  seat(o: SeatObserved): Violation[] {
    const game = this.game_(o.serverId, o.gameId);
    const out: Violation[] = [];
    const seatKey = `${game.key}\0${o.playerId}`;
    this.seats.set(seatKey, o.token);
    const early = this.toldEarly.get(seatKey);
    if (early) {
      this.toldEarly.delete(seatKey);
      this.lateSeatLagsMs.push(o.at - early.at);
    }
    let held = this.seatsOf.get(o.playerId);
    if (!held) this.seatsOf.set(o.playerId, (held = new Set()));
    for (const other of held) {
      if (other === game.key) continue;
      out.push(violation('one-live-ticket', 'seated in two games', o.at, { player: o.playerId, game: game.key.replace('\0', '/'), other: other.replace('\0', '/') }, `player ${o.playerId} holds seats in ${other.replace('\0', '/')} and ${game.key.replace('\0', '/')}`));
      break;
    }
    held.add(game.key);
    game.seated.add(o.playerId);
    this.checkSize(game, o.serverId, o.gameId, o.at, out);
    return out;
  }

  seatFreed(o: SeatFreedObserved): Violation[] {
    const key = gameKey(o.serverId, o.gameId);
    this.free(key, o.playerId);
    this.games.get(key)?.seated.delete(o.playerId);
    return [];
  }

  gameEnded(o: GameEndedObserved): Violation[] {
    const key = gameKey(o.serverId, o.gameId);
    const game = this.games.get(key);
    if (!game) return [];
    for (const player of game.seated) this.free(key, player);
    this.games.delete(key);
    if (game.created) this.server(o.serverId).games--;
    return [];
  }

  /** Every player of the ticket must hold a live seat at that server and game, with that token, already. */
  assigned(o: AssignedObserved): Violation[] {
    const ticket = this.ledger.get(o.ticketId);
    const out: Violation[] = [];
    const key = gameKey(o.serverId, o.gameId);
    for (const player of ticket?.playerIds ?? []) {
      const seatKey = `${key}\0${player}`;
      const token = this.seats.get(seatKey);
      if (token !== undefined && (token === o.token || token === '' || o.token === '')) continue;
      this.toldEarly.set(seatKey, { ticketId: o.ticketId, at: o.at });
      const why = token === undefined ? 'its server knew of no seat for it then' : `the server's seat has another token`;
      out.push(violation('told-has-seat', 'told without seat', o.at, { ticket: o.ticketId, player, server: o.serverId, game: o.gameId }, `ticket ${o.ticketId} was told ${o.serverId}/${o.gameId} for ${player}, but ${why}`));
    }
    return out;
  }

  /** Assignments whose seat never reached the server at all. */
  finish(at: number): Violation[] {
    return [...this.toldEarly].map(([seatKey, told]) => {
      const [server = '', game = '', player = ''] = seatKey.split('\0');
      return violation('told-has-seat', 'seat never arrived', at, { ticket: told.ticketId, player, server, game }, `ticket ${told.ticketId} was told ${server}/${game} for ${player} at ${told.at}; the server never learned of that seat`);
    });
  }

  private checkSize(game: LiveGame, serverId: string, gameId: string, at: number, out: Violation[]): void {
    if (game.overfull || game.maxPlayers === undefined || game.seated.size <= game.maxPlayers) return;
    game.overfull = true;
    out.push(violation('game-size', 'game over its size', at, { server: serverId, game: gameId, seats: game.seated.size, maxPlayers: game.maxPlayers }, `game ${serverId}/${gameId} holds ${game.seated.size} seats, more than its ${game.maxPlayers} players`));
  }

  private free(key: string, player: string): void {
    this.seats.delete(`${key}\0${player}`);
    const held = this.seatsOf.get(player);
    held?.delete(key);
    if (held?.size === 0) this.seatsOf.delete(player);
  }

  private game_(serverId: string, gameId: string): LiveGame {
    const key = gameKey(serverId, gameId);
    let game = this.games.get(key);
    if (!game) this.games.set(key, (game = { key, created: false, seated: new Set(), overfull: false }));
    return game;
  }

  private server(serverId: string): { maxGames?: number; games: number } {
    let server = this.servers.get(serverId);
    if (!server) this.servers.set(serverId, (server = { games: 0 }));
    return server;
  }
}

function gameKey(serverId: string, gameId: string): string {
  return `${serverId}\0${gameId}`;
}

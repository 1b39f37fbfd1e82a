import { createHash } from 'node:crypto';
import type { Assignment } from '../coordinator/messages.js';

/**
 * Each seat's reservation token, made from the game's (a creation's or a reservation's random
 * token, which only the coordinator and the game's server hear) and the player's id. The server is
 * told every seat's token; a player is told its own (a party, its members'). One token for a whole
 * game let anyone placed in it take a seat of another player whose id it knew; a seat's token
 * gives away neither the game's nor another seat's (SHA-256 is not reversed).
 */
export function seatToken(gameToken: string, playerId: string): string {
  return createHash('sha256').update(gameToken).update('\0').update(playerId).digest('base64url').slice(0, 32);
}

/**
 * The tokens a ticket's client hears: each member's seat token, and the first member's as the
 * ticket's own. Made at the edge that answers the player, from the game's token the core keeps,
 * so each is made once. An assignment with no party (a relayed ticket whose hop does not carry it)
 * keeps the game's token, which no seat accepts.
 */
export function playerTokens(assignment: Assignment): { readonly reservationToken: string; readonly seatTokens: Record<string, string> } {
  const seatTokens: Record<string, string> = {};
  const party = assignment.party ?? [];
  for (const playerId of party) seatTokens[playerId] = seatToken(assignment.reservationToken, playerId);
  return { reservationToken: party.length > 0 ? seatTokens[party[0]!]! : assignment.reservationToken, seatTokens };
}

import type { ServerMessage } from '../../generated/gamefactory/v1/game_server_link.js';
import type { FindGameRequest, FindGamesRequest } from '../../generated/gamefactory/v1/matchmaker.js';
import { permissionDenied, unauthenticated } from '../errors.js';
import { allowedPlayers, type Principal, type Role } from '../tokens/principal.js';
import type { SecuredMethod } from './methods.js';

/** Which roles may open each call. Deny by default: a method missing here is refused. */
export const METHOD_ROLES: Readonly<Record<SecuredMethod, readonly Role[]>> = {
  Connect: ['gameServer'],
  FindGame: ['player', 'gateway'],
  FindGames: ['player', 'gateway'],
  CancelFind: ['player', 'gateway'],
  // Only the ticket's owner may answer (checked by the core, as for a cancel).
  RespondToMatch: ['player', 'gateway'],
  QueryStats: ['admin'],
  Drain: ['admin'],
  ReloadConfig: ['admin'],
  // Ratings are what a game shows its players: readable by players, the game's backend, its game
  // servers (to show them in the game) and admins; results come only over a server's link.
  GetRating: ['player', 'gateway', 'admin', 'gameServer'],
  Leaderboard: ['player', 'gateway', 'admin'],
  PlayerRank: ['player', 'gateway', 'admin'],
};

/** The message a call carries, as the interceptor sees it after decoding. */
export type SecuredRequest =
  | { method: 'Connect'; message: ServerMessage }
  | { method: 'FindGame'; message: FindGameRequest }
  | { method: 'FindGames'; message: FindGamesRequest }
  | { method: 'CancelFind' | 'RespondToMatch' | 'QueryStats' | 'Drain' | 'ReloadConfig' | 'GetRating' | 'Leaderboard' | 'PlayerRank'; message?: unknown };

/** At call start: may this principal open this method at all? */
export function authorizeCall(principal: Principal | undefined, method: SecuredMethod): void {
  const roles = METHOD_ROLES[method];
  if (principal === undefined) {
    throw unauthenticated(
      roles.includes('gameServer')
        ? `${method}: a verified client certificate is required`
        : `${method}: a bearer token is required (authorization: Bearer <jwt>)`,
    );
  }
  if (!roles.includes(principal.role)) {
    throw permissionDenied(`${method}: role ${principal.role} may not call it (allowed: ${roles.join(', ')})`);
  }
}

/**
 * Per message: the call's roles plus what the message claims. A game server's hello must carry the
 * id its certificate proves; a player may only queue players its token (or party claim) covers.
 * Ticket ownership (CancelFind, cancels inside FindGames, resumption) needs the ticket's owner,
 * which only the core knows: see TicketOwnership.
 */
export function authorize(principal: Principal | undefined, request: SecuredRequest): void {
  authorizeCall(principal, request.method);
  const who = principal!;
  switch (request.method) {
    case 'Connect': {
      const event = request.message.event;
      if (event?.$case !== 'hello') return;
      if (who.serverId === undefined) throw unauthenticated('Connect: the client certificate names no server identity');
      if (event.value.serverId !== who.serverId) {
        throw permissionDenied(`hello.server_id: "${clip(event.value.serverId)}" is not the certificate's identity "${who.serverId}"`);
      }
      return;
    }
    case 'FindGame':
      return authorizeParty(who, request.message, 'FindGame.party');
    case 'FindGames': {
      const r = request.message.request;
      if (r?.$case === 'find') authorizeParty(who, r.value, 'FindGames.find.party');
      // A batch's finds are checked one by one by the interceptor (each refusal is that ticket's).
      return;
    }
    default:
      return;
  }
}

function authorizeParty(principal: Principal, request: FindGameRequest, field: string): void {
  if (principal.role !== 'player') return; // gateways submit for any player
  const allowed = allowedPlayers(principal);
  const missing = request.party.map((p) => p.playerId).filter((id) => !allowed.has(id));
  if (missing.length > 0) {
    throw permissionDenied(
      `${field}: the token does not cover player${missing.length > 1 ? 's' : ''} ${missing.slice(0, 4).map((id) => `"${clip(id)}"`).join(', ')}${missing.length > 4 ? ` and ${missing.length - 4} more` : ''} (send each member's token or a party claim)`,
    );
  }
}

/** Echo attacker-chosen text in a bounded form. */
function clip(text: string): string {
  return text.length > 64 ? `${text.slice(0, 64)}…` : text;
}

import { permissionDenied } from '../errors.js';
import { allowedPlayers, type Principal } from '../tokens/principal.js';

/** Recorded with a ticket when it is created, so later calls on it can be checked. */
export interface TicketOwner {
  readonly subject: string;
  readonly role: Principal['role'];
  readonly partyPlayerIds: readonly string[];
}

/**
 * CancelFind, a cancel inside FindGames and resumption (a FindGame retried with the same ticket id)
 * are allowed only for the ticket's owner. Pure; the core calls it where it looks the
 * ticket up, because only it knows the ticket.
 */
export const TicketOwnership = {
  ownerOf(principal: Principal, partyPlayerIds: readonly string[]): TicketOwner {
    // Not copied: the caller's list is the ticket's own (read-only) player list, one array for both.
    return { subject: principal.subject, role: principal.role, partyPlayerIds };
  },

  /** The owner itself; any gateway (it multiplexes its game's players); a player covering the whole party. */
  mayActOn(principal: Principal, owner: TicketOwner): boolean {
    if (principal.role === 'gateway') return true;
    if (principal.role === 'admin') return principal.subject === owner.subject; // insecure mode: anonymous owns all
    if (principal.role !== 'player') return false;
    if (principal.subject === owner.subject && owner.role === 'player') return true;
    const allowed = allowedPlayers(principal);
    return owner.partyPlayerIds.length > 0 && owner.partyPlayerIds.every((id) => allowed.has(id));
  },

  check(principal: Principal, owner: TicketOwner, ticketId: string, action: 'cancel' | 'resume'): void {
    if (!TicketOwnership.mayActOn(principal, owner)) {
      throw permissionDenied(`ticket_id "${ticketId.slice(0, 128)}": only its owner may ${action} it (you are ${principal.role} "${principal.subject}")`);
    }
  },
};

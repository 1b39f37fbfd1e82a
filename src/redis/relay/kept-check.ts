import { createHash } from 'node:crypto';
import type { FindRequest } from '../../coordinator/messages.js';
import { checkOwner, ticketIdReused } from '../../coordinator/tickets/restored-tickets.js';
import { fingerprint } from '../../coordinator/tickets/ticket.js';
import { TicketOwnership } from '../../security/roles/ticket-ownership.js';
import type { KeptCheck } from './relay-codec.js';

/** What a ticket was asked as and by whom, kept with its assignment (a hash: the fingerprint is a few hundred bytes). */
export function keptCheck(request: FindRequest): KeptCheck {
  return {
    fingerprint: createHash('sha256').update(fingerprint(request)).digest('base64url').slice(0, 22),
    owner: request.caller && TicketOwnership.ownerOf(request.caller, request.party.map((p) => p.playerId)),
  };
}

/**
 * A find answered from a kept assignment (the ticket's owner took it on another node) is checked
 * as the core checks a retry: the same request, from its owner. Throws ALREADY_EXISTS or PERMISSION_DENIED.
 */
export function checkKept(request: FindRequest, kept: KeptCheck | undefined): void {
  if (kept === undefined) return;
  if (keptCheck(request).fingerprint !== kept.fingerprint) throw ticketIdReused(request.ticketId);
  checkOwner(request.caller, kept.owner, request.ticketId, 'resume');
}

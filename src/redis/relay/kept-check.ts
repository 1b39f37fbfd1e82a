import { createHash } from 'node:crypto';
import type { FindRequest } from '../../coordinator/messages.js';
import { checkOwner, ticketIdReused } from '../../coordinator/tickets/restored-tickets.js';
import { fingerprint, fingerprintHash } from '../../coordinator/tickets/ticket.js';
import { TicketOwnership } from '../../security/roles/ticket-ownership.js';
import type { KeptCheck } from './relay-codec.js';

/**
 * What a ticket was asked as and by whom, kept with its assignment: the request's 60-bit hash
 * (`h` and two base-36 halves; the fingerprint itself is a few hundred bytes). It was a SHA-256 of
 * the fingerprint's JSON, ~5% of a lone sharded node's CPU, computed for every find; a kept
 * assignment in that form (an older node's) is still checked in it.
 */
export function keptCheck(request: FindRequest): KeptCheck {
  return { fingerprint: hashedFingerprint(request), owner: request.caller && TicketOwnership.ownerOf(request.caller, request.party.map((p) => p.playerId)) };
}

function hashedFingerprint(request: FindRequest): string {
  const [high, low] = fingerprintHash(request);
  return `h${high.toString(36)}.${low.toString(36)}`;
}

/** The form older nodes kept: 22 characters of a SHA-256 of the fingerprint. */
function digestedFingerprint(request: FindRequest): string {
  return createHash('sha256').update(fingerprint(request)).digest('base64url').slice(0, 22);
}

/**
 * A find answered from a kept assignment (the ticket's owner took it on another node) is checked
 * as the core checks a retry: the same request, from its owner. Throws ALREADY_EXISTS or PERMISSION_DENIED.
 */
export function checkKept(request: FindRequest, kept: KeptCheck | undefined): void {
  if (kept === undefined) return;
  // A digest is base64url, which has no '.'.
  const asked = kept.fingerprint.includes('.') ? hashedFingerprint(request) : digestedFingerprint(request);
  if (asked !== kept.fingerprint) throw ticketIdReused(request.ticketId);
  checkOwner(request.caller, kept.owner, request.ticketId, 'resume');
}

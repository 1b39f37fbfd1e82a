import { status, type ServiceError } from '@grpc/grpc-js';
import { retryAfterMs } from '@gamefactory/protocol';

/**
 * Why a ticket ended without a game: the gRPC status code (`status.INVALID_ARGUMENT`,
 * `status.FAILED_PRECONDITION`, ...), the coordinator's message naming the field or the reason, and
 * its retry hint when it gave one (a full queue).
 */
export class FindError extends Error {
  override readonly name = 'FindError';

  constructor(
    readonly ticketId: string,
    readonly code: status,
    readonly details: string,
    readonly retryAfterMs?: number,
  ) {
    super(`ticket ${ticketId}: ${status[code] ?? code}: ${details}`);
  }

  static fromStatus(ticketId: string, error: { code: status; details: string; metadata?: ServiceError['metadata'] }): FindError {
    return new FindError(ticketId, error.code, error.details, retryAfterMs(error.metadata));
  }
}

/**
 * The failures a ticket survives by sending itself again, to the next node: the node died, is
 * draining, or lost its shared store. The ticket id makes the second send a resume, not a new ticket.
 */
export function resumable(code: status): boolean {
  return code === status.UNAVAILABLE;
}

import type { status } from '@grpc/grpc-js';
import { retryAfterMs } from '@gamefactory/protocol/web';
import type { CallError } from './find-game-calls.js';
import { Code, codeName } from './status-code.js';

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
    super(`ticket ${ticketId}: ${codeName(code)}: ${details}`);
  }

  static fromStatus(ticketId: string, error: CallError): FindError {
    return new FindError(ticketId, error.code, error.details, retryAfterMs(error.metadata));
  }
}

/**
 * The failures a ticket survives by sending itself again, to the next node: the node died, is
 * draining, or lost its shared store. The ticket id makes the second send a resume, not a new ticket.
 */
export function resumable(code: status): boolean {
  return code === Code.UNAVAILABLE;
}

import { FindError } from './find-error.js';
import { wireFindRequest, type FindRequest } from './find-request.js';
import { Code } from './status-code.js';
import { Ticket } from './ticket.js';
import type { TicketTransport } from './transport.js';

export interface FindOptions {
  /**
   * Ends the search when it aborts: the ticket is cancelled on the coordinator and fails with
   * DEADLINE_EXCEEDED for `AbortSignal.timeout(ms)`, CANCELLED for any other reason.
   */
  readonly signal?: AbortSignal;
}

/** A ticket sent on its transport, cancelled when `signal` aborts: Matchmaker.find in Node and in browsers. */
export function openTicket(transport: TicketTransport, ticketId: string, request: FindRequest, options: FindOptions): Ticket {
  const { signal } = options;
  const { ticket, sink } = Ticket.open(ticketId, () => handle.cancel(new FindError(ticketId, Code.CANCELLED, 'cancelled by the client')));
  const handle = transport.find(sink, wireFindRequest(ticketId, request));
  if (signal) {
    const onAbort = () => void handle.cancel(abortError(ticketId, signal.reason));
    if (signal.aborted) onAbort();
    else {
      signal.addEventListener('abort', onAbort, { once: true });
      const forget = () => signal.removeEventListener('abort', onAbort);
      ticket.assignment.then(forget, forget);
    }
  }
  return ticket;
}

function abortError(ticketId: string, reason: unknown): FindError {
  const timeout = reason instanceof Error && reason.name === 'TimeoutError';
  const why = reason instanceof Error ? reason.message : String(reason ?? 'aborted');
  return new FindError(ticketId, timeout ? Code.DEADLINE_EXCEEDED : Code.CANCELLED, why);
}

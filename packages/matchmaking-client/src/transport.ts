import type { BackoffOptions } from '@gamefactory/protocol';
import type { FindGameRequest } from '@gamefactory/protocol/v1/matchmaker';
import type { FindError } from './find-error.js';
import type { TicketSink } from './ticket.js';

/** How a ticket travels: a FindGame call of its own, or a shared FindGames stream. */
export interface TicketTransport {
  find(sink: TicketSink, request: FindGameRequest): TicketHandle;
  close(): void;
}

export interface TicketHandle {
  /** Withdraws the ticket, which fails with `reason` if the cancel wins; true when it did. */
  cancel(reason: FindError): Promise<boolean>;
}

export interface ResumeOptions extends BackoffOptions {
  /** Stop resuming after this long without an answer from any node (default 60 s). */
  readonly giveUpAfterMs?: number;
}

import { CancelFindResponse } from '@gamefactory/protocol/web/v1/matchmaker';
import { FindError } from '../find-error.js';
import type { FindRequest } from '../find-request.js';
import { openTicket, type FindOptions } from '../find-ticket.js';
import type { Ticket } from '../ticket.js';
import { TicketCalls } from '../ticket-calls.js';
import type { ResumeOptions } from '../transport.js';
import { ConnectNodes, type ConnectNodeOptions } from './connect-nodes.js';

export interface BrowserMatchmakerOptions extends ConnectNodeOptions {
  /** How a ticket whose node failed is sent again: backoff, and when to give up. */
  readonly resume?: ResumeOptions;
}

/**
 * The Matchmaker client for browsers: the same `find` (a Ticket: async iterator, events,
 * `assignment`, AbortSignal, resume on another node) over the coordinator's HTTP gateway
 * (`--http-listen`), with fetch and the Connect protocol. No gRPC library is loaded.
 *
 * ```ts
 * const matchmaker = new Matchmaker({ addresses: 'https://mm.example.com:8443', token });
 * const ticket = matchmaker.find({ template: 'diablo', party: ['alice'], partition: { difficulty: 'hard' } });
 * for await (const update of ticket) console.log(update);
 * ```
 */
export class Matchmaker {
  private readonly nodes: ConnectNodes;
  private readonly transport: TicketCalls;

  constructor(options: BrowserMatchmakerOptions) {
    this.nodes = new ConnectNodes(options);
    this.transport = new TicketCalls(this.nodes, options.resume ?? {});
  }

  /** Starts finding a game for a party; the ticket reports its progress and its assignment. */
  find(request: FindRequest, options: FindOptions = {}): Ticket {
    return openTicket(this.transport, request.ticketId ?? globalThis.crypto.randomUUID(), request, options);
  }

  /** Cancels a ticket by id (kept from another page or session): true when it was waiting on the node asked. */
  async cancel(ticketId: string): Promise<boolean> {
    const answer = await this.nodes.cancel(this.nodes.address(0), ticketId);
    if (answer instanceof Uint8Array) return CancelFindResponse.decode(answer).cancelled;
    throw FindError.fromStatus(ticketId, answer);
  }

  /** Nothing to hang up over fetch; for the same API as Node's. Tickets still waiting are cancelled. */
  close(): void {
    this.transport.close();
  }
}

import type { FindGameRequest } from '@gamefactory/protocol/v1/matchmaker';
import type { CoordinatorNodes } from './coordinator-nodes.js';
import { RouteTable } from './route-table.js';
import type { TicketSink } from './ticket.js';
import { TicketStream, type MovedTicket } from './ticket-stream.js';
import type { ResumeOptions, TicketHandle, TicketTransport } from './transport.js';

interface Placed {
  stream: TicketStream;
  readonly sink: TicketSink;
}

/**
 * Every ticket over FindGames streams, as a gateway does, routed: a ticket whose template and
 * partition a hint tied to an owner goes on a stream to that owner, any other on the home stream
 * (the one a lone TicketStream would be: it turns through the configured nodes when its node
 * fails). When an owner's node fails (its stream ends, or one ticket is answered UNAVAILABLE),
 * its routes are forgotten and its tickets resume on the home stream, with the same ticket ids.
 */
export class RoutedStreams implements TicketTransport {
  private readonly home: TicketStream;
  /** A stream per owner that hints named, opened on first use. */
  private readonly owners = new Map<string, TicketStream>();
  /** The stream each waiting ticket is on now. */
  private readonly placed = new Map<string, Placed>();

  constructor(
    private readonly nodes: CoordinatorNodes,
    private readonly resume: ResumeOptions,
    private readonly batch: boolean,
    private readonly routes: RouteTable,
  ) {
    this.home = new TicketStream(nodes, resume, batch, { hint: this.hint });
  }

  find(sink: TicketSink, request: FindGameRequest): TicketHandle {
    const ticketId = request.ticketId;
    // One search per id on this client, whichever stream carries it.
    if (this.placed.has(ticketId)) throw new Error(`ticket ${ticketId} is already waiting on this client`);
    const owner = this.routes.get(RouteTable.keyOf(request));
    const stream = owner === undefined ? this.home : this.streamTo(owner);
    const placed: Placed = { stream, sink: this.tracked(sink, ticketId) };
    this.placed.set(ticketId, placed);
    stream.find(placed.sink, request);
    return { cancel: (reason) => (this.placed.get(ticketId) === placed ? placed.stream.cancelById(ticketId, reason) : Promise.resolve(false)) };
  }

  close(): void {
    this.home.close();
    for (const stream of this.owners.values()) stream.close();
    this.owners.clear();
  }

  private readonly hint = (request: FindGameRequest, ownerAddress: string): void => {
    this.routes.learn(RouteTable.keyOf(request), ownerAddress);
  };

  private streamTo(address: string): TicketStream {
    let stream = this.owners.get(address);
    if (!stream) {
      const made: TicketStream = new TicketStream(this.nodes, this.resume, this.batch, {
        address,
        hint: this.hint,
        moved: (tickets, reason, streamGone) => this.moved(address, made, tickets, reason, streamGone),
      });
      this.owners.set(address, (stream = made));
    }
    return stream;
  }

  /** The owner at `address` failed: its routes are forgotten, and its tickets resume on the home stream. */
  private moved(address: string, stream: TicketStream, tickets: readonly MovedTicket[], reason: string, streamGone: boolean): void {
    this.routes.forget(address);
    if (streamGone && this.owners.get(address) === stream) this.owners.delete(address);
    for (const { sink, request } of tickets) {
      const placed = this.placed.get(request.ticketId);
      if (placed?.sink !== sink) continue;
      placed.stream = this.home;
      sink.resuming({ kind: 'resuming', address: this.home.address, delayMs: 0, reason });
      this.home.find(sink, request);
    }
  }

  /** The ticket's sink, which also forgets where the ticket is once it settles. */
  private tracked(sink: TicketSink, ticketId: string): TicketSink {
    const done = () => {
      if (this.placed.get(ticketId)?.sink === tracked) this.placed.delete(ticketId);
    };
    const tracked: TicketSink = {
      get settled() {
        return sink.settled;
      },
      queued: (update) => sink.queued(update),
      proposed: (update) => sink.proposed(update),
      resuming: (update) => sink.resuming(update),
      assigned: (assignment) => {
        done();
        sink.assigned(assignment);
      },
      failed: (error) => {
        done();
        sink.failed(error);
      },
    };
    return tracked;
  }
}

import type { ServerChannel, ServerOrder, TicketListener, TicketUpdate } from '../../coordinator/messages.js';
import type { MatchmakingError } from '../../errors/index.js';
import { wireError, type KeptCheck, type OutMessage } from './relay-codec.js';

/** The matcher owner's fenced answer to a node (MatcherSeat.answer). */
export interface Answering {
  answer(node: string, message: OutMessage): void;
  /** The listener's call got its last answer. */
  answered(ticketId: string, listener: TicketListener): void;
}

/** A ticket's listener on the owner: its updates go to the node holding the client's stream. */
export class RelayListener implements TicketListener {
  constructor(
    private readonly seat: Answering,
    readonly node: string,
    private readonly ticketId: string,
    /** Kept with the assignment, so a resume from the kept copy is checked like one the core answers. */
    readonly kept: KeptCheck,
  ) {}

  update(update: TicketUpdate): void {
    if (update.kind === 'assigned') this.seat.answer(this.node, { k: 'update', ticketId: this.ticketId, update, kept: this.kept });
    else this.seat.answer(this.node, { k: 'update', ticketId: this.ticketId, update });
    if (update.kind === 'assigned') this.seat.answered(this.ticketId, this);
  }

  fail(error: MatchmakingError): void {
    this.seat.answer(this.node, { k: 'fail', ticketId: this.ticketId, error: wireError(error) });
    this.seat.answered(this.ticketId, this);
  }
}

/** A game server's stream as the owner sees it: orders go to the node holding the stream. */
export class RelayChannel implements ServerChannel {
  constructor(
    private readonly seat: Answering,
    /** Where the server's stream is; moves when the server reconnects through another node. */
    public node: string,
    private readonly serverId: string,
    /** Which of the server's connections on that node this is. */
    public conn: number,
  ) {}

  send(order: ServerOrder): void {
    this.seat.answer(this.node, { k: 'order', serverId: this.serverId, conn: this.conn, order });
  }

  close(error: MatchmakingError): void {
    this.seat.answer(this.node, { k: 'close', serverId: this.serverId, conn: this.conn, error: wireError(error) });
  }
}


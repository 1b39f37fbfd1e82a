import type { ServerChannel, ServerOrder, TicketListener, TicketUpdate } from '../../coordinator/messages.js';
import type { MatchmakingError } from '../../errors/index.js';
import { wireError, type KeptCheck, type OutMessage } from './relay-codec.js';

/** The matcher owner's fenced answer to a node (MatcherSeat.answer). */
export interface Answering {
  answer(node: string, message: OutMessage): void;
  /** The listener's call got its last answer. */
  answered(ticketId: string, listener: TicketListener): void;
  /** Runs `run` once the commit holding the writes made so far has succeeded (for a route in process). */
  deliver(run: () => void): void;
}

/** A server's stream held by the owner's own node, reached in process; `moved` with the term (fence) that ended. */
export interface LocalRoute {
  readonly channel: ServerChannel;
  readonly moved: (ended: string) => void;
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

/**
 * A game server's stream as the owner sees it: orders go to the node holding the stream, on its
 * out stream, or in process when that node is the owner's own (`local`), once committed.
 */
export class RelayChannel implements ServerChannel {
  constructor(
    private readonly seat: Answering,
    /** Where the server's stream is; moves when the server reconnects through another node. */
    public node: string,
    private readonly serverId: string,
    /** Which of the server's connections on that node this is. */
    public conn: number,
    /** The stream is the owner node's own: no out stream, no JSON. */
    public local?: LocalRoute,
  ) {}

  /** The inbox entry of the hello this route came from (undefined in process): the node's older messages about the server are superseded. */
  announcedAt: string | undefined;

  send(order: ServerOrder): void {
    const local = this.local;
    if (local) this.seat.deliver(() => local.channel.send(order));
    else this.seat.answer(this.node, { k: 'order', serverId: this.serverId, conn: this.conn, order });
  }

  close(error: MatchmakingError): void {
    const local = this.local;
    if (local) this.seat.deliver(() => local.channel.close(error));
    else this.seat.answer(this.node, { k: 'close', serverId: this.serverId, conn: this.conn, error: wireError(error) });
  }
}


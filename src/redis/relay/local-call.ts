import type { TicketListener, TicketUpdate } from '../../coordinator/messages.js';
import type { MatchmakingError } from '../../errors/index.js';
import type { KeptCheck, OutMessage } from './relay-codec.js';

/** What a call answered in process asks of its seat (MatcherSeat). */
export interface LocalAnswering {
  /** Runs `run` once the commit holding the writes made so far has succeeded; `drop` if it never will (the term ended). */
  deliver(run: () => void, drop?: () => void): void;
  /** Keeps an assignment for a client that resumes on another node (fenced, with the step's commit). */
  keep(ticketId: string, message: OutMessage): void;
  /** The call got its last answer (told, or about to be once committed). */
  answered(ticketId: string, listener: TicketListener): void;
  /** The call's last answer was handed over: the seat no longer owes it anything. */
  settled(call: LocalCall): void;
}

/**
 * A find of the owner's own node taken by its seat in process: no inbox entry, no out stream,
 * no JSON either way. The core's updates reach the client's listener only after the commit that
 * holds them (its ticket record, a kept assignment) has succeeded, so what a client is told
 * survives a kill -9 of the node. If the term ends first, `moved` hands the call back to its
 * gateway, which sends it to the shard's next owner (the same ticket id: it resumes).
 */
export class LocalCall implements TicketListener {
  /** A relayed find from this same node keeps this listener (as a resend keeps a RelayListener). */
  readonly local = true;

  constructor(
    private readonly seat: LocalAnswering,
    readonly node: string,
    private readonly ticketId: string,
    /** Kept with the assignment, so a resume from the kept copy is checked like one the core answers. */
    readonly kept: KeptCheck,
    /** The gateway's listener of the call. */
    readonly call: TicketListener,
    /** The term ended before the call's last answer: the gateway routes it again. */
    readonly moved: () => void,
  ) {}

  update(update: TicketUpdate): void {
    const id = this.ticketId;
    if (update.kind !== 'assigned') {
      this.seat.deliver(() => this.call.update(update, id));
      return;
    }
    this.seat.keep(id, { k: 'update', ticketId: id, update, kept: this.kept });
    this.seat.answered(id, this);
    this.seat.deliver(() => {
      this.seat.settled(this);
      this.call.update(update, id);
    });
  }

  fail(error: MatchmakingError): void {
    const id = this.ticketId;
    this.seat.answered(id, this);
    this.seat.deliver(() => {
      this.seat.settled(this);
      this.call.fail(error, id);
    });
  }
}

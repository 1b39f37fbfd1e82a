import { status, type ClientDuplexStream, type ServiceError } from '@grpc/grpc-js';
import { Backoff, retryAfterMs, TickBatch } from '@gamefactory/protocol';
import type { FindGameRequest, FindGamesRequest, FindGameUpdate } from '@gamefactory/protocol/v1/matchmaker';
import type { CoordinatorNodes } from './coordinator-nodes.js';
import { FindError, resumable } from './find-error.js';
import type { TicketSink } from './ticket.js';
import type { ResumeOptions, TicketHandle, TicketTransport } from './transport.js';

/** A ticket sent on the stream and not answered yet; also its handle (one object a ticket). */
class Waiting implements TicketHandle {
  /** Set by a cancel: the error the ticket fails with when the coordinator confirms it. */
  withdrawn: { reason: FindError; done: (cancelled: boolean) => void } | undefined;

  constructor(
    readonly sink: TicketSink,
    readonly request: FindGameRequest,
    private readonly transport: TicketStream,
  ) {}

  cancel(reason: FindError): Promise<boolean> {
    return this.transport.cancel(this, reason);
  }
}

/** A cancel waiting in the outbox beside the finds (which are sent as they are). */
class Cancel {
  constructor(readonly ticketId: string) {}
}

type Outgoing = FindGameRequest | Cancel;

/** A ticket taken off a stream, to be sent on another. */
export interface MovedTicket {
  readonly sink: TicketSink;
  readonly request: FindGameRequest;
}

/** The part a stream plays among several (RoutedStreams); a lone stream has none of these. */
export interface StreamLane {
  /** A routed stream's node, the owner a hint named: it never turns to another node. Absent: the stream turns through the configured nodes. */
  readonly address?: string;
  /** A route hint arrived for one of this stream's tickets. */
  hint?(request: FindGameRequest, ownerAddress: string): void;
  /**
   * A routed stream's node failed: tickets taken off this stream, for another to resume
   * (`streamGone`: the whole stream ended, not one ticket's UNAVAILABLE).
   */
  moved?(tickets: readonly MovedTicket[], reason: string, streamGone: boolean): void;
}

/**
 * Every ticket over one FindGames stream, as a gateway does. With `batch`, the finds and cancels
 * of one event-loop tick leave in one message and the coordinator answers in batches too. When
 * the stream fails (UNAVAILABLE, or it ends), every waiting ticket is sent again on a new stream
 * to the next node after a backoff: the same ticket ids, so they resume where they were.
 */
export class TicketStream implements TicketTransport {
  private readonly waiting = new Map<string, Waiting>();
  private stream: ClientDuplexStream<FindGamesRequest, FindGameUpdate> | undefined;
  private outbox: TickBatch<Outgoing> | undefined;
  private reopen: NodeJS.Timeout | undefined;
  private node = 0;
  private failingSince: number | undefined;
  private readonly backoff: Backoff;
  private closed = false;

  constructor(
    private readonly nodes: CoordinatorNodes,
    private readonly resume: ResumeOptions,
    private readonly batch: boolean,
    private readonly lane: StreamLane = {},
  ) {
    this.backoff = new Backoff(resume);
  }

  /** The node this stream talks to now (or will, once it opens). */
  get address(): string {
    return this.lane.address ?? this.nodes.address(this.node);
  }

  /** Cancels one of this stream's waiting tickets by id; false when it is not waiting here. */
  cancelById(ticketId: string, reason: FindError): Promise<boolean> {
    const entry = this.waiting.get(ticketId);
    return entry ? this.cancel(entry, reason) : Promise.resolve(false);
  }

  find(sink: TicketSink, request: FindGameRequest): TicketHandle {
    // One stream carries one search per id: a second would leave the first without its answers.
    if (this.waiting.has(request.ticketId)) throw new Error(`ticket ${request.ticketId} is already waiting on this client`);
    const entry = new Waiting(sink, request, this);
    this.waiting.set(request.ticketId, entry);
    if (this.stream) this.send(request);
    else if (!this.reopen) this.open();
    return entry;
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.reopen);
    this.outbox?.flush();
    this.stream?.cancel();
    this.failAll((id) => new FindError(id, status.CANCELLED, 'the matchmaking client was closed'));
  }

  private open(): void {
    this.reopen = undefined;
    if (this.closed) return;
    const stream = this.nodes.clientAt(this.address).findGames(this.nodes.metadata());
    this.stream = stream;
    this.outbox = this.batch
      ? new TickBatch<Outgoing>((items) => {
          const finds: FindGameRequest[] = [];
          const cancels: { ticketId: string }[] = [];
          for (const item of items) {
            if (item instanceof Cancel) cancels.push({ ticketId: item.ticketId });
            else finds.push(item);
          }
          stream.write({ request: { $case: 'batch', value: { finds, cancels } } });
        })
      : undefined;
    stream.on('data', (update: FindGameUpdate) => this.receive(update));
    stream.on('error', (error: ServiceError) => this.lost(stream, error));
    stream.on('end', () => this.lost(stream, undefined));
    for (const entry of this.waiting.values()) this.send(entry.request);
  }

  private send(item: Outgoing): void {
    if (this.outbox) this.outbox.push(item);
    else if (item instanceof Cancel) this.stream?.write({ request: { $case: 'cancel', value: { ticketId: item.ticketId } } });
    else this.stream?.write({ request: { $case: 'find', value: item } });
  }

  private receive(update: FindGameUpdate): void {
    const u = update.update;
    if (u?.$case === 'batch') {
      for (const inner of u.value.updates) this.receive(inner);
      return;
    }
    const entry = this.waiting.get(update.ticketId);
    if (!entry || !u) return;
    this.failingSince = undefined;
    this.backoff.reset();
    if (update.ownerAddress) this.lane.hint?.(entry.request, update.ownerAddress);
    if (u.$case === 'queued') {
      entry.sink.queued({ kind: 'queued', ...u.value });
      return;
    }
    if (u.$case === 'proposed') {
      entry.sink.proposed({ kind: 'proposed', ...u.value });
      return;
    }
    this.waiting.delete(update.ticketId);
    if (u.$case === 'assignment') {
      entry.sink.assigned(u.value);
      entry.withdrawn?.done(false);
    } else if (entry.withdrawn && u.value.code === status.CANCELLED) {
      entry.sink.failed(entry.withdrawn.reason);
      entry.withdrawn.done(true);
    } else if (resumable(u.value.code) && !entry.withdrawn && this.lane.moved) {
      // The owner this ticket was routed to cannot take it now: resumed elsewhere, as any ticket.
      this.lane.moved([entry], u.value.message, false);
    } else if (resumable(u.value.code) && !entry.withdrawn) {
      // One ticket's node lost its store: send that ticket again, the stream itself is fine.
      this.waiting.set(update.ticketId, entry);
      const delayMs = this.backoff.next();
      entry.sink.resuming({ kind: 'resuming', address: this.nodes.address(this.node), delayMs, reason: u.value.message });
      setTimeout(() => this.waiting.get(update.ticketId) === entry && this.send(entry.request), delayMs);
    } else {
      entry.sink.failed(new FindError(update.ticketId, u.value.code, u.value.message));
      entry.withdrawn?.done(false);
    }
  }

  private lost(stream: ClientDuplexStream<FindGamesRequest, FindGameUpdate>, error: ServiceError | undefined): void {
    if (this.stream !== stream) return;
    this.stream = undefined;
    this.outbox = undefined;
    if (this.closed || this.waiting.size === 0) return;
    this.failingSince ??= Date.now();
    const giveUp = Date.now() - this.failingSince > (this.resume.giveUpAfterMs ?? 60_000);
    if ((error && !resumable(error.code)) || giveUp) {
      const cause = error ?? { code: status.UNAVAILABLE, details: 'the stream ended while tickets waited', metadata: undefined };
      this.failAll((id) => FindError.fromStatus(id, cause));
      return;
    }
    // Cancels not yet confirmed are settled here: the node that held them is gone.
    for (const [id, entry] of this.waiting) {
      if (!entry.withdrawn) continue;
      this.waiting.delete(id);
      entry.sink.failed(entry.withdrawn.reason);
      entry.withdrawn.done(true);
    }
    const reason = error?.details ?? 'the stream ended';
    if (this.lane.moved) {
      // A routed stream does not turn: its tickets resume on another stream, which does.
      const moved = [...this.waiting.values()];
      this.waiting.clear();
      this.lane.moved(moved, reason, true);
      return;
    }
    const sameNode = this.nodes.addresses.length === 1;
    this.node++;
    const delayMs = Math.max(this.backoff.next(), sameNode ? (retryAfterMs(error?.metadata) ?? 0) : 0);
    for (const entry of this.waiting.values()) entry.sink.resuming({ kind: 'resuming', address: this.nodes.address(this.node), delayMs, reason });
    this.reopen = setTimeout(() => this.open(), delayMs);
  }

  /** A waiting ticket's cancel (Waiting.cancel). */
  cancel(entry: Waiting, reason: FindError): Promise<boolean> {
    const id = entry.request.ticketId;
    if (entry.sink.settled || this.waiting.get(id) !== entry) return Promise.resolve(false);
    if (entry.withdrawn) return Promise.resolve(false); // the first cancel answers
    if (!this.stream) {
      // Between two streams: nothing waits for it on any node until the next one opens.
      this.waiting.delete(id);
      entry.sink.failed(reason);
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      entry.withdrawn = { reason, done: resolve };
      this.send(new Cancel(id));
    });
  }

  private failAll(error: (ticketId: string) => FindError): void {
    for (const [id, entry] of this.waiting) {
      this.waiting.delete(id);
      entry.sink.failed(entry.withdrawn?.reason ?? error(id));
      entry.withdrawn?.done(entry.withdrawn !== undefined);
    }
  }
}

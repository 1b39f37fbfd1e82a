import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Span, type Tracer } from '@opentelemetry/api';
import type { CoordinatorCommands } from '../coordinator/edges/commands.js';
import type { CoordinatorEventMap, CoordinatorEvents } from '../coordinator/edges/events.js';
import type { CoordinatorView } from '../coordinator/edges/view.js';
import type { FindRequest, TicketListener } from '../coordinator/messages.js';
import type { FindMethod, FindTracing, TraceHeader } from './find-tracing.js';
import { parentContext } from './trace-parent.js';

/** How a traced find ended: the core's outcomes, and the edge's own. */
export type TracedOutcome = CoordinatorEventMap['findFinished']['outcome'] | 'refused' | 'untracked' | 'stopped';

/** One find's open spans, keyed by its ticket id: the core never sees them. */
interface TracedFind {
  readonly root: Span;
  /** From the find's turn in the core until its game is decided: a seat in an open game, or a game to create. */
  match: Span | undefined;
  /** From a CreateGame order for its seats until the server confirms (a creation taken back gets a new one). */
  creation: Span | undefined;
  /** The creation whose order `creation` follows. */
  requestId: string | undefined;
  readonly startedAt: number;
}

export interface FindTracesOptions {
  readonly tracer: Tracer;
  /** Where a ticket stands once its find has been taken in. */
  readonly view: Pick<CoordinatorView, 'ticket'>;
  /**
   * A find traced longer than this is ended as `untracked`: the core said nothing of it (a find a
   * cluster node passed to another), so it would be held for ever. The ticket TTL and a margin.
   */
  readonly maxAgeMs: number;
  /** Most finds traced at once; past it the oldest is ended as `untracked`. */
  readonly maxOpen?: number;
  /** The spans' clock, ms since the epoch. */
  readonly now?: () => number;
}

const RPC_SERVICE = 'gamefactory.v1.Matchmaker';
const DEFAULT_MAX_OPEN = 200_000;
/** Outcomes that are the find's failure (a cancel is the client's wish, not an error). */
const FAILED = new Set<TracedOutcome>(['expired', 'failed', 'refused']);

const epochMs = (): number => performance.timeOrigin + performance.now();

/**
 * The spans of finds, made at the edge from what the core reports (its events, and the view after
 * a find): a root span per FindGame ticket from the call's arrival to its assignment, cancel,
 * expiry or failure, with a `match` child (until its game is decided) and a `create game` child
 * per CreateGame order for its seats (until the server confirms, or the order is taken back).
 * Spans are held here by ticket id, never in the core's state.
 */
export class FindTraces implements FindTracing {
  private readonly finds = new Map<string, TracedFind>();
  /** The tickets of each creation ordered for a traced find (the `placed` event's list). */
  private readonly orders = new Map<string, readonly string[]>();
  private readonly tracer: Tracer;
  private readonly maxOpen: number;
  readonly now: () => number;

  constructor(private readonly options: FindTracesOptions) {
    this.tracer = options.tracer;
    this.maxOpen = options.maxOpen ?? DEFAULT_MAX_OPEN;
    this.now = options.now ?? epochMs;
  }

  /** Follows the core's reports; returns a function that stops following them. */
  attach(events: CoordinatorEvents): () => void {
    const off = [
      events.on('findFinished', (e) => this.finished(e.ticketId, e.outcome, e.factory)),
      events.on('placed', (e) => this.placed(e)),
      events.on('requeued', (e) => this.requeued(e.requestId, e.cause)),
      events.on('competitiveGameFormed', (e) => this.formed(e)),
    ];
    return () => off.forEach((f) => f());
  }

  /** Finds traced now (their root span open). */
  get open(): number {
    return this.finds.size;
  }

  find(commands: CoordinatorCommands, request: FindRequest, listener: TicketListener, header: TraceHeader, arrivedAt: number | undefined, method: FindMethod): void {
    const ticketId = request.ticketId;
    const live = this.finds.get(ticketId);
    if (live) {
      // A resume of a ticket still waiting: the same find, one more call.
      live.root.addEvent('resumed', { 'rpc.method': method });
      return commands.find(request, listener);
    }
    const now = this.now();
    this.endStale(now);
    const root = this.tracer.startSpan(
      'FindGame',
      {
        kind: SpanKind.SERVER,
        startTime: arrivedAt ?? now,
        attributes: {
          'rpc.system': 'grpc',
          'rpc.service': RPC_SERVICE,
          'rpc.method': method,
          'gamefactory.ticket.id': ticketId,
          'gamefactory.template': request.template,
          'gamefactory.party.size': request.party.length,
        },
      },
      parentContext(header),
    );
    // Sampled out: nothing is kept for it.
    if (!root.isRecording()) return commands.find(request, listener);
    const traced: TracedFind = { root, match: this.child(root, 'match', now), creation: undefined, requestId: undefined, startedAt: now };
    this.finds.set(ticketId, traced);
    try {
      commands.find(request, listener);
    } catch (error) {
      // Refused before it became a ticket (a resume refused leaves the ticket's trace as it was).
      if (this.finds.get(ticketId) === traced) this.end(ticketId, traced, 'refused', error instanceof Error ? error.message : String(error));
      throw error;
    }
    // Ended within the step (a seat in an open game), or waiting: what the core holds says which.
    if (this.finds.get(ticketId) !== traced) return;
    const state = this.options.view.ticket(ticketId)?.state;
    // A creation's tickets had their game decided (waiting for a slot, or riding a creation in flight).
    if (state === 'placing') this.matched(traced, 'create');
    // An answer kept for retries: the core reports nothing more of this ticket.
    else if (state === 'assigned') {
      traced.root.setAttribute('gamefactory.retry', true);
      this.end(ticketId, traced, 'assigned');
    }
    // pooled (a competitive batch, a factory waiting for its servers) or parked: matching goes on.
  }

  /** Ends every open span: the process stops (its exporter flushes next). */
  close(): void {
    for (const [ticketId, traced] of this.finds) this.end(ticketId, traced, 'stopped');
  }

  // ---------------------------------------------------------------- the core's reports

  private finished(ticketId: string, outcome: TracedOutcome, factory: string): void {
    const traced = this.finds.get(ticketId);
    if (!traced) return;
    traced.root.setAttribute('gamefactory.factory', factory);
    // Assigned from a seat in an open game: matching found it.
    if (outcome === 'assigned') this.matched(traced, 'seat');
    this.end(ticketId, traced, outcome);
  }

  private placed(e: CoordinatorEventMap['placed']): void {
    let any = false;
    for (const ticketId of e.ticketIds) {
      const traced = this.finds.get(ticketId);
      if (!traced) continue;
      any = true;
      const now = this.now();
      this.matched(traced, 'create', now);
      traced.creation?.end(now); // not taken back, yet ordered again: cannot happen, but never left open
      traced.creation = this.child(traced.root, 'create game', now);
      traced.creation.setAttributes({ 'gamefactory.factory': e.factory, 'gamefactory.request.id': e.requestId, 'gamefactory.server.id': e.serverId, 'gamefactory.creation.tickets': e.ticketIds.length });
      traced.root.setAttribute('gamefactory.factory', e.factory);
      traced.requestId = e.requestId;
    }
    if (any) this.orders.set(e.requestId, e.ticketIds);
  }

  private requeued(requestId: string, cause: string): void {
    const ticketIds = this.orders.get(requestId);
    if (!ticketIds) return;
    this.orders.delete(requestId);
    const now = this.now();
    for (const ticketId of ticketIds) {
      const traced = this.finds.get(ticketId);
      if (!traced?.creation || traced.requestId !== requestId) continue;
      traced.creation.setAttribute('gamefactory.taken_back', cause);
      traced.creation.setStatus({ code: SpanStatusCode.ERROR, message: `taken back from its server: ${cause}` });
      traced.creation.end(now);
      traced.creation = undefined;
      traced.requestId = undefined;
      traced.root.addEvent('requeued', { 'gamefactory.request.id': requestId, 'gamefactory.taken_back': cause }, now);
    }
  }

  private formed(e: CoordinatorEventMap['competitiveGameFormed']): void {
    for (const ticketId of e.ticketIds) {
      const traced = this.finds.get(ticketId);
      if (!traced?.match) continue;
      traced.match.setAttributes({ 'gamefactory.match.gap_sigma': e.gapInSigma, 'gamefactory.match.quality': e.matchQuality, 'gamefactory.match.tickets': e.ticketIds.length });
      this.matched(traced, 'create');
    }
  }

  // ---------------------------------------------------------------- spans

  private child(root: Span, name: string, at: number): Span {
    return this.tracer.startSpan(name, { kind: SpanKind.INTERNAL, startTime: at }, trace.setSpan(ROOT_CONTEXT, root));
  }

  /** Matching is over: `seat` in an open game, or a game to `create`. */
  private matched(traced: TracedFind, into: 'seat' | 'create', at = this.now()): void {
    const match = traced.match;
    if (!match) return; // over already (its creation was ordered within the find's own step)
    match.setAttribute('gamefactory.match.into', into);
    match.end(at);
    traced.match = undefined;
  }

  private end(ticketId: string, traced: TracedFind, outcome: TracedOutcome, message?: string): void {
    const now = this.now();
    const failed = FAILED.has(outcome);
    for (const span of [traced.match, traced.creation]) {
      if (!span) continue;
      // A creation that assigned its ticket went as it should; anything cut short did not finish.
      if (outcome !== 'assigned') span.setAttribute('gamefactory.outcome', outcome);
      span.end(now);
    }
    traced.root.setAttribute('gamefactory.outcome', outcome);
    if (failed) traced.root.setStatus({ code: SpanStatusCode.ERROR, message: message ?? outcome });
    traced.root.end(now);
    this.finds.delete(ticketId);
    const requestId = traced.requestId;
    if (requestId !== undefined && !this.orders.get(requestId)?.some((id) => this.finds.get(id)?.requestId === requestId)) this.orders.delete(requestId);
  }

  /** Ends the oldest finds while they are too old or too many (insertion order: oldest first). */
  private endStale(now: number): void {
    for (const [ticketId, traced] of this.finds) {
      if (this.finds.size < this.maxOpen && now - traced.startedAt <= this.options.maxAgeMs) return;
      this.end(ticketId, traced, 'untracked');
    }
  }
}

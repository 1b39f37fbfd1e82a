import type { CoreContext } from '../core-context.js';
import type { Assignment, TicketListener } from '../messages.js';
import { fingerprintHash, type AnsweredTicket, type EndReason, type Ticket, type TicketState, type TicketStateKind } from './ticket.js';
import type { PlacedRecord } from './ticket-record.js';

/** A move the book refuses: a bug in the caller, never a client's doing. */
export class IllegalTicketMove extends Error {
  override readonly name = 'IllegalTicketMove';
  constructor(ticketId: string, from: TicketStateKind | 'absent', to: string) {
    super(`ticket "${ticketId}": cannot move from ${from} to ${to}`);
  }
}

type Fields = Omit<Ticket, 'state' | 'listener' | 'persisted' | 'playerIds'>;

/**
 * A live ticket as the book keeps it: one class, so one hidden class for all (a spread gave every
 * ticket a V8 map of its own). Its players are read from its request's party when asked for: a
 * list of its own was ~56 B a waiting ticket (a JSArray and its elements, for one player), and
 * it is read a few times in a ticket's life (matching, riding, release).
 */
class Entry implements Ticket {
  constructor(
    readonly id: string,
    readonly request: Ticket['request'],
    readonly factory: string,
    readonly createdAt: number,
    readonly arrival: number,
    readonly owner: Ticket['owner'],
    public state: TicketState,
    public listener: TicketListener | undefined,
    public persisted: boolean,
  ) {}

  get playerIds(): readonly string[] {
    const party = this.request.party;
    const ids = new Array<string>(party.length);
    for (let i = 0; i < party.length; i++) ids[i] = party[i]!.playerId;
    return ids;
  }
}

// The states without data are one object each for all tickets (states are never mutated).
const PARKED: TicketState = Object.freeze({ kind: 'parked' });
const POOLED: TicketState = Object.freeze({ kind: 'pooled' });

type PlacingState = Extract<TicketState, { kind: 'placing' }>;
/** Creations whose placing state is kept for sharing (each a Map entry and a state object). */
const PLACING_STATES_KEPT = 4096;

/**
 * The one owner of tickets: every ticket, its state, its listener, whether it is stored. Nothing
 * else moves a ticket; a move from a state that does not allow it throws IllegalTicketMove instead
 * of overwriting. Storing a ticket and ending its claim on its players are effects of its moves.
 */
export class TicketBook {
  /** Live tickets: waiting (parked, pooled) or in a game creation (placing). */
  private readonly tickets = new Map<string, Entry>();
  /** Tickets that got their game, kept compact until their retention ends (state `assigned`). */
  private readonly answeredTickets = new Map<string, AnsweredTicket>();
  private readonly counts: Record<TicketStateKind, number> = { parked: 0, pooled: 0, proposed: 0, placing: 0, assigned: 0 };
  private stopping = false;
  /**
   * The latest placing state of recent creations: the tickets of one creation are at one place
   * (joined, then queued at one position), so they share it instead of an object each. Keyed by
   * creation, since riders of different creations arrive interleaved (one "last state" was reused
   * for 3 tickets in 20k); bounded, started over when full.
   */
  private readonly placingStates = new Map<string, PlacingState>();
  /** The same for a creation's state before it has a position (a rider joining a queued creation passes through it). */
  private readonly joiningStates = new Map<string, PlacingState>();

  constructor(private readonly ctx: CoreContext) {}

  private placing(creationId: string, position: number | undefined): TicketState {
    const states = position === undefined ? this.joiningStates : this.placingStates;
    const last = states.get(creationId);
    if (last && last.position === position) return last;
    if (!last && states.size >= PLACING_STATES_KEPT) states.clear();
    const state: PlacingState = Object.freeze({ kind: 'placing', creationId, position });
    states.set(creationId, state);
    return state;
  }

  /** A live ticket (parked, pooled or placing); an assigned one is `answered`. */
  get(ticketId: string): Ticket | undefined {
    return this.tickets.get(ticketId);
  }

  /** What is kept of a ticket that got its game, until its retention is over. */
  answered(ticketId: string): AnsweredTicket | undefined {
    return this.answeredTickets.get(ticketId);
  }

  get size(): number {
    return this.tickets.size + this.answeredTickets.size;
  }

  countsByState(): Readonly<Record<TicketStateKind, number>> {
    return { ...this.counts, assigned: this.answeredTickets.size };
  }

  /** The tickets waiting in each factory's pool, in arrival order: a reload hands them to new settings. O(tickets). */
  pooledByFactory(): Map<string, Ticket[]> {
    const byFactory = new Map<string, Ticket[]>();
    for (const entry of this.tickets.values()) {
      if (entry.state.kind !== 'pooled') continue;
      const list = byFactory.get(entry.factory);
      if (list) list.push(entry);
      else byFactory.set(entry.factory, [entry]);
    }
    for (const list of byFactory.values()) list.sort((a, b) => a.arrival - b.arrival);
    return byFactory;
  }

  /** A new ticket whose players the edge has already claimed for it. */
  open(fields: Fields, initial: 'parked' | 'pooled', listener: TicketListener, persisted: boolean): Ticket {
    if (this.tickets.has(fields.id)) throw new IllegalTicketMove(fields.id, this.tickets.get(fields.id)!.state.kind, 'open');
    if (this.answeredTickets.has(fields.id)) throw new IllegalTicketMove(fields.id, 'assigned', 'open');
    const entry = new Entry(fields.id, fields.request, fields.factory, fields.createdAt, fields.arrival, fields.owner, initial === 'parked' ? PARKED : POOLED, listener, persisted);
    this.tickets.set(entry.id, entry);
    this.counts[initial]++;
    return entry;
  }

  /** Back to (or still) waiting in its factory: a competitive game that fell apart, a parked ticket admitted. */
  pool(ticketId: string): Ticket {
    return this.move(ticketId, ['parked', 'pooled', 'proposed', 'placing'], POOLED);
  }

  /** Its players are asked to accept a game (a ready check); it is out of its factory's pool meanwhile. */
  propose(ticketId: string, matchId: string): Ticket {
    return this.move(ticketId, ['pooled'], { kind: 'proposed', matchId });
  }

  /** Joins a game creation. */
  place(ticketId: string, creationId: string): Ticket {
    return this.move(ticketId, ['parked', 'pooled', 'proposed'], this.placing(creationId, undefined));
  }

  /** Its creation waits in line at `position`. */
  queued(ticketId: string, creationId: string, position: number): Ticket {
    const entry = this.entry(ticketId);
    if (entry.state.kind !== 'placing' || entry.state.creationId !== creationId) {
      throw new IllegalTicketMove(ticketId, entry.state.kind, `queued in ${creationId}`);
    }
    entry.state = this.placing(creationId, position);
    return entry;
  }

  /**
   * Got its game. Its players are free to find another once they leave it. The live ticket leaves
   * the book (returned as it was last, assigned) and an AnsweredTicket takes its place for retries.
   */
  assign(ticketId: string, assignment: Assignment): Ticket {
    const entry = this.move(ticketId, ['pooled', 'placing'], { kind: 'assigned', assignment });
    this.counts.assigned--; // counted as answeredTickets.size
    this.tickets.delete(ticketId);
    const [hashHigh, hashLow] = fingerprintHash(entry.request);
    this.answeredTickets.set(ticketId, {
      id: entry.id,
      factory: entry.factory,
      createdAt: entry.createdAt,
      arrival: entry.arrival,
      owner: entry.owner,
      assignment,
      hashHigh,
      hashLow,
    });
    this.unpersist(entry);
    this.release(entry);
    return entry;
  }

  /** An assigned ticket's retention is over: it leaves the book. */
  forget(ticketId: string): AnsweredTicket {
    const answered = this.answeredTickets.get(ticketId);
    if (!answered) throw new IllegalTicketMove(ticketId, this.tickets.get(ticketId)?.state.kind ?? 'absent', 'ended (retention-over)');
    this.answeredTickets.delete(ticketId);
    return answered;
  }

  /** A live ticket leaves the book: cancelled, expired or failed. */
  end(ticketId: string, reason: Exclude<EndReason, 'retention-over'>): Ticket {
    const entry = this.tickets.get(ticketId);
    if (!entry) throw new IllegalTicketMove(ticketId, this.answeredTickets.has(ticketId) ? 'assigned' : 'absent', `ended (${reason})`);
    this.tickets.delete(ticketId);
    this.counts[entry.state.kind]--;
    this.unpersist(entry);
    this.release(entry);
    return entry;
  }

  /** A new call took a live ticket over (a retry); returns the listener it replaced. */
  listen(ticketId: string, listener: TicketListener | undefined): TicketListener | undefined {
    const entry = this.entry(ticketId);
    const previous = entry.listener;
    entry.listener = listener;
    return previous;
  }

  /**
   * Stores a ticket that has to wait, or (with `placed`) whose game was just ordered on a server,
   * written again each time it is. Tickets matched into an open game at once are never written.
   */
  persist(ticketId: string, placed?: PlacedRecord): void {
    const entry = this.entry(ticketId);
    if ((entry.persisted && !placed) || this.stopping) return;
    entry.persisted = true;
    // Written out, not spread: one object a record, one hidden class for all (placed is undefined
    // for a ticket that waits; every store reads it as absent).
    this.ctx.out.push({ kind: 'store', record: { request: entry.request, createdAt: entry.createdAt, arrival: entry.arrival, owner: entry.owner, placed } });
  }

  /**
   * The process is going down (drain, SIGTERM, stop): every waiting ticket is stored first, those
   * riding a game creation in flight too (they were never written), so a restarted coordinator
   * gives each its place by arrival; then what the store holds must survive as it is.
   */
  beginShutdown(): number {
    let stored = 0;
    for (const entry of this.tickets.values()) {
      if (entry.persisted) continue;
      this.persist(entry.id);
      stored++;
    }
    this.stopping = true;
    return stored;
  }

  private unpersist(entry: Entry): void {
    if (!entry.persisted || this.stopping) return;
    entry.persisted = false;
    this.ctx.out.push({ kind: 'unstore', ticketId: entry.id });
  }

  private release(entry: Entry): void {
    this.ctx.out.push({ kind: 'release', ticketId: entry.id, playerIds: entry.playerIds });
  }

  private entry(ticketId: string): Entry {
    const entry = this.tickets.get(ticketId);
    if (!entry) throw new IllegalTicketMove(ticketId, 'absent', 'any state');
    return entry;
  }

  private move(ticketId: string, from: readonly TicketStateKind[], to: TicketState): Entry {
    const entry = this.entry(ticketId);
    if (!from.includes(entry.state.kind)) throw new IllegalTicketMove(ticketId, entry.state.kind, to.kind);
    this.counts[entry.state.kind]--;
    this.counts[to.kind]++;
    entry.state = to;
    return entry;
  }
}

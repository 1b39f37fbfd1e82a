import type { Database, RootDatabase } from 'lmdb';
import type { FindRequest } from '../coordinator/messages.js';
import type { TicketRecord, TicketStore } from '../coordinator/ports.js';
import type { PlacedRecord } from '../coordinator/tickets/ticket-record.js';
import type { TicketOwner } from '../security/roles/ticket-ownership.js';
import { withCommitCause } from './store-health.js';

/**
 * A FindRequest as plain data: maps become entry lists. Compact since records are kept per waiting
 * ticket (LMDB's pages count in the process's RSS): the ticket id is the key only, empty lists and
 * absent numbers are left out, and an owner whose party is the ticket's party does not repeat it.
 * Records written before (every field present) read the same.
 */
interface StoredTicket {
  readonly request: Omit<FindRequest, 'ticketId' | 'partition' | 'matchable' | 'latenciesMs' | 'party' | 'preferredMaps' | 'vetoedMaps' | 'caller' | 'softAttributes'> & {
    readonly ticketId?: string;
    readonly softAttributes?: [string, string][];
    readonly party: { playerId: string; score?: number | null }[];
    readonly partition: [string, string][];
    readonly matchable?: [string, string][];
    readonly latenciesMs?: [string, number][];
    readonly preferredMaps?: readonly string[];
    readonly vetoedMaps?: readonly string[];
  };
  readonly createdAt: number;
  readonly arrival: number;
  /** Who may cancel or resume it; absent in records written before it. No party: the ticket's. */
  readonly owner?: Omit<TicketOwner, 'partyPlayerIds'> & { readonly partyPlayerIds?: readonly string[] };
  /** Where its game was ordered, while that was not confirmed. */
  readonly placed?: PlacedRecord;
}

const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

export type TicketWriteOp = 'save' | 'remove';

/**
 * Told of every ticket write that did not reach the disk (a rejected LMDB write, a key LMDB
 * refuses, a write after close). The ticket lives on in memory; only its restart recovery is lost.
 */
export type WriteFailureHandler = (op: TicketWriteOp, error: Error, ticketId: string, failure: WriteFailureKind) => void;

/** refused: LMDB refused this one write at once (a key too long, a closed store); commit: a transaction failed (a full disk). */
export type WriteFailureKind = 'refused' | 'commit';

/**
 * Waiting tickets in LMDB, keyed by ticket id, so a restarted coordinator gives retrying clients
 * their original place. Writes are asynchronous (LMDB batches them into one transaction); the
 * caller does not wait, but a failed write is counted and reported, never an unhandled rejection
 * (which would end the process).
 */
export class LmdbTicketStore implements TicketStore {
  private readonly db: Database<StoredTicket, string>;
  private failures = 0;
  private closed = false;

  constructor(
    root: RootDatabase,
    private readonly onWriteFailed: WriteFailureHandler = () => {},
    /** A write reached the disk (the store can write again after a failure). */
    private readonly onWriteSucceeded: () => void = () => {},
  ) {
    this.db = root.openDB<StoredTicket, string>({ name: 'tickets' });
  }

  /** Writes that failed since the store was opened. */
  get failedWrites(): number {
    return this.failures;
  }

  save(record: TicketRecord): void {
    const r = record.request;
    const owner = record.owner;
    const playerIds = r.party.map((p) => p.playerId);
    this.write('save', r.ticketId, () => this.db.put(r.ticketId, {
      request: {
        template: r.template,
        party: r.party.map((p) => (p.score === undefined ? { playerId: p.playerId } : { playerId: p.playerId, score: p.score })),
        partition: [...r.partition],
        ...(r.matchable.size > 0 && { matchable: [...r.matchable] }),
        ...(r.latenciesMs.size > 0 && { latenciesMs: [...r.latenciesMs] }),
        ...(r.preferredMaps.length > 0 && { preferredMaps: r.preferredMaps }),
        ...(r.vetoedMaps.length > 0 && { vetoedMaps: r.vetoedMaps }),
        ...(r.waitBudgetMs !== undefined && { waitBudgetMs: r.waitBudgetMs }),
        ...(r.maxLatencyMs !== undefined && { maxLatencyMs: r.maxLatencyMs }),
        ...(r.location !== undefined && { location: r.location }),
        ...(r.softAttributes !== undefined && { softAttributes: [...r.softAttributes] }),
      },
      createdAt: record.createdAt,
      arrival: record.arrival,
      ...(owner && {
        owner: sameList(owner.partyPlayerIds, playerIds)
          ? { subject: owner.subject, role: owner.role }
          : { subject: owner.subject, role: owner.role, partyPlayerIds: [...owner.partyPlayerIds] },
      }),
      ...(record.placed ? { placed: { ...record.placed } } : {}),
    }));
  }

  remove(ticketId: string): void {
    this.write('remove', ticketId, () => this.db.remove(ticketId));
  }

  /** Later writes fail as "closed": lmdb-js would throw them from a timer, out of anyone's reach. */
  markClosed(): void {
    this.closed = true;
  }

  private write(op: TicketWriteOp, ticketId: string, start: () => Promise<boolean>): void {
    let pending: Promise<boolean>;
    try {
      if (this.closed) throw new Error('the ticket store is closed');
      pending = start(); // LMDB refuses some writes at once (a key over 1978 bytes)
    } catch (error) {
      this.failed(op, error, ticketId, 'refused');
      return;
    }
    pending.then(
      () => this.onWriteSucceeded(),
      (error: unknown) => withCommitCause(error, (cause) => this.failed(op, cause, ticketId, 'commit')),
    );
  }

  private failed(op: TicketWriteOp, error: unknown, ticketId: string, kind: WriteFailureKind): void {
    this.failures += 1;
    const reason = error instanceof Error ? error : new Error(String(error));
    try {
      this.onWriteFailed(op, reason, ticketId, kind);
    } catch {
      // a throwing handler must not turn into the unhandled rejection this exists to prevent
    }
  }

  /** Every stored ticket, oldest arrival first. */
  loadAll(): TicketRecord[] {
    const records: TicketRecord[] = [];
    for (const { key, value } of this.db.getRange()) {
      const { softAttributes, ...r } = value.request;
      const party = r.party.map((p) => ({ playerId: p.playerId, score: p.score ?? undefined }));
      const owner = value.owner;
      records.push({
        request: {
          ...r,
          ticketId: r.ticketId ?? key,
          party,
          partition: new Map(r.partition),
          matchable: new Map(r.matchable ?? []),
          latenciesMs: new Map(r.latenciesMs ?? []),
          preferredMaps: r.preferredMaps ?? [],
          vetoedMaps: r.vetoedMaps ?? [],
          ...(softAttributes !== undefined && { softAttributes: new Map(softAttributes) }),
        },
        createdAt: value.createdAt,
        arrival: value.arrival,
        ...(owner ? { owner: { subject: owner.subject, role: owner.role, partyPlayerIds: owner.partyPlayerIds ?? party.map((p) => p.playerId) } } : {}),
        ...(value.placed ? { placed: value.placed } : {}),
      });
    }
    return records.sort((a, b) => a.arrival - b.arrival);
  }

  /** Resolves when every write so far is on disk. */
  flushed(): Promise<boolean> {
    return this.db.flushed;
  }
}

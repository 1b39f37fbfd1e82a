import { asBinary, type Database, type RootDatabase } from 'lmdb';
import type { TicketRecord, TicketStore } from '../coordinator/ports.js';
import { withCommitCause } from './store-health.js';
import { decodeTicket, encodeTicket, type StoredTicket } from './stored-ticket.js';
import { TicketRecordPacker } from './ticket-record-packer.js';

export type TicketWriteOp = 'save' | 'remove';

/** One commit's promise and its writes, flat: op, ticket id, op, ticket id... */
interface PendingCommit {
  readonly commit: Promise<boolean>;
  readonly writes: string[];
}

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
  /**
   * The writes waiting on the latest commit. LMDB answers every plain write of one batch with the
   * same promise, so the store listens once per batch: a pair of handlers per write lived until the
   * commit, long enough to be promoted, ~200 B of old-space garbage a waiting ticket.
   */
  private batch: PendingCommit | undefined;
  /** Writes the common record's bytes itself; others go through the database's encoder. */
  private readonly packer = new TicketRecordPacker();

  constructor(
    root: RootDatabase,
    private readonly onWriteFailed: WriteFailureHandler = () => {},
  ) {
    this.db = root.openDB<StoredTicket, string>({ name: 'tickets' });
  }

  /** Writes that failed since the store was opened. */
  get failedWrites(): number {
    return this.failures;
  }

  save(record: TicketRecord): void {
    const ticketId = record.request.ticketId;
    this.write('save', ticketId, () => {
      const packed = this.packer.pack(record);
      return this.db.put(ticketId, packed ? (asBinary(packed) as StoredTicket) : encodeTicket(record));
    });
  }

  remove(ticketId: string): void {
    this.write('remove', ticketId, () => this.db.remove(ticketId));
  }

  /**
   * Another record's write in the same environment (a backfill request's), counted and reported as
   * a ticket's is, and joining the same commit: `inFlight` then holds what is told after it too.
   */
  writeAlongside(op: TicketWriteOp, key: string, start: () => Promise<boolean>): void {
    this.write(op, key, start);
  }

  /** The commit of the latest writes while LMDB has not answered it (the batch a write joins). */
  inFlight(): Promise<boolean> | undefined {
    return this.batch?.commit;
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
    const batch = this.batch;
    if (batch?.commit === pending) {
      batch.writes.push(op, ticketId);
      return;
    }
    const next: PendingCommit = { commit: pending, writes: [op, ticketId] };
    this.batch = next;
    pending.then(
      () => {
        if (this.batch === next) this.batch = undefined;
      },
      (error: unknown) => {
        if (this.batch === next) this.batch = undefined;
        for (let i = 0; i < next.writes.length; i += 2) {
          const failedOp = next.writes[i] as TicketWriteOp;
          const failedId = next.writes[i + 1]!;
          withCommitCause(error, (cause) => this.failed(failedOp, cause, failedId, 'commit'));
        }
      },
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
    for (const { key, value } of this.db.getRange()) records.push(decodeTicket(key, value));
    return records.sort((a, b) => a.arrival - b.arrival);
  }

  /** Resolves when every write so far is on disk. */
  flushed(): Promise<boolean> {
    return this.db.flushed;
  }
}

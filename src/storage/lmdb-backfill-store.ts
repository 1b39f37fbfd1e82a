import type { Database, RootDatabase } from 'lmdb';
import type { BackfillRecord, BackfillStore } from '../coordinator/backfill/backfill-record.js';
import type { LmdbTicketStore } from './lmdb-ticket-store.js';

/**
 * Open backfill requests in LMDB, beside the tickets (their own database of the same environment),
 * keyed by backfill id. Writes go through the ticket store's commit tracking, so a step's ticket and
 * backfill writes land in one transaction, a failed one is counted and reported alike, and what
 * a server is told of its request (QUEUED) waits for the commit as a client's `queued` does.
 */
export class LmdbBackfillStore implements BackfillStore {
  private readonly db: Database<BackfillRecord, string>;

  constructor(
    root: RootDatabase,
    private readonly tickets: LmdbTicketStore,
  ) {
    this.db = root.openDB<BackfillRecord, string>({ name: 'backfills' });
  }

  save(record: BackfillRecord): void {
    this.tickets.writeAlongside('save', `backfill:${record.backfillId}`, () => this.db.put(record.backfillId, record));
  }

  remove(backfillId: string): void {
    this.tickets.writeAlongside('remove', `backfill:${backfillId}`, () => this.db.remove(backfillId));
  }

  /** Every stored request, oldest first. */
  loadAll(): BackfillRecord[] {
    const records: BackfillRecord[] = [];
    for (const { value } of this.db.getRange()) records.push(value);
    return records.sort((a, b) => a.createdAt - b.createdAt);
  }
}

import type { Database, RootDatabase } from 'lmdb';
import type { FindRequest } from '../coordinator/messages.js';
import type { TicketRecord, TicketStore } from '../coordinator/ports.js';

/** A FindRequest as plain data: maps become entry lists. */
interface StoredTicket {
  readonly request: Omit<FindRequest, 'partition' | 'matchable' | 'latenciesMs' | 'party'> & {
    readonly party: { playerId: string; score: number | null }[];
    readonly partition: [string, string][];
    readonly matchable: [string, string][];
    readonly latenciesMs: [string, number][];
  };
  readonly createdAt: number;
  readonly arrival: number;
}

/**
 * Waiting tickets in LMDB, keyed by ticket id, so a restarted coordinator gives retrying clients
 * their original place. Writes are asynchronous (LMDB batches them into one transaction).
 */
export class LmdbTicketStore implements TicketStore {
  private readonly db: Database<StoredTicket, string>;

  constructor(root: RootDatabase) {
    this.db = root.openDB<StoredTicket, string>({ name: 'tickets' });
  }

  save(record: TicketRecord): void {
    const r = record.request;
    void this.db.put(r.ticketId, {
      request: {
        ticketId: r.ticketId,
        template: r.template,
        party: r.party.map((p) => ({ playerId: p.playerId, score: p.score ?? null })),
        partition: [...r.partition],
        matchable: [...r.matchable],
        latenciesMs: [...r.latenciesMs],
        preferredMaps: r.preferredMaps,
        vetoedMaps: r.vetoedMaps,
      },
      createdAt: record.createdAt,
      arrival: record.arrival,
    });
  }

  remove(ticketId: string): void {
    void this.db.remove(ticketId);
  }

  /** Every stored ticket, oldest arrival first. */
  loadAll(): TicketRecord[] {
    const records: TicketRecord[] = [];
    for (const { value } of this.db.getRange()) {
      const r = value.request;
      records.push({
        request: {
          ...r,
          party: r.party.map((p) => ({ playerId: p.playerId, score: p.score ?? undefined })),
          partition: new Map(r.partition),
          matchable: new Map(r.matchable),
          latenciesMs: new Map(r.latenciesMs),
        },
        createdAt: value.createdAt,
        arrival: value.arrival,
      });
    }
    return records.sort((a, b) => a.arrival - b.arrival);
  }

  /** Resolves when every write so far is on disk. */
  flushed(): Promise<boolean> {
    return this.db.flushed;
  }
}

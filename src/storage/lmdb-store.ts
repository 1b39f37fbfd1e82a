import { mkdirSync } from 'node:fs';
import { open, type RootDatabase } from 'lmdb';
import type { PlayerRating } from '../ratings/rating-system.js';
import { LmdbRatingStore } from './lmdb-rating-store.js';
import { LmdbTicketStore } from './lmdb-ticket-store.js';

/**
 * The embedded store: one LMDB environment in the data directory. Running games are not ours to
 * persist (servers re-announce them); what must survive a restart lives here.
 */
export class LmdbStore {
  readonly tickets: LmdbTicketStore;

  private constructor(readonly root: RootDatabase) {
    this.tickets = new LmdbTicketStore(root);
  }

  /** Ratings (issue 12) in the same environment; `standing` orders each ladder's board. */
  openRatings(standing: (ladder: string, rating: PlayerRating) => number): LmdbRatingStore {
    return new LmdbRatingStore(this.root, standing);
  }

  static open(dataDir: string): LmdbStore {
    mkdirSync(dataDir, { recursive: true });
    return new LmdbStore(open({ path: dataDir, compression: false, maxDbs: 8 }));
  }

  /** Counts coordinator starts, so logs and operators can tell a restart from a first start. */
  async recordStart(now: number): Promise<number> {
    const starts = ((this.root.get('meta:starts') as number | undefined) ?? 0) + 1;
    await this.root.put('meta:starts', starts);
    await this.root.put('meta:lastStart', now);
    return starts;
  }

  close(): Promise<void> {
    return this.root.close();
  }
}

import { mkdirSync } from 'node:fs';
import { open, type RootDatabase } from 'lmdb';
import type { PlayerRating } from '../ratings/rating-system.js';
import { LmdbRatingStore } from './lmdb-rating-store.js';
import { LmdbTicketStore, type WriteFailureHandler } from './lmdb-ticket-store.js';

export interface LmdbStoreOptions {
  /** Called for each ticket write that failed; the count is also on `tickets.failedWrites`. */
  readonly onWriteFailed?: WriteFailureHandler;
}

/**
 * The embedded store: one LMDB environment in the data directory. Running games are not ours to
 * persist (servers re-announce them); what must survive a restart lives here.
 */
export class LmdbStore {
  readonly tickets: LmdbTicketStore;

  private constructor(
    readonly root: RootDatabase,
    options: LmdbStoreOptions,
  ) {
    this.tickets = new LmdbTicketStore(root, options.onWriteFailed);
  }

  /** Ratings in the same environment; `standing` orders each ladder's board. */
  openRatings(standing: (ladder: string, rating: PlayerRating) => number): LmdbRatingStore {
    return new LmdbRatingStore(this.root, standing);
  }

  static open(dataDir: string, options: LmdbStoreOptions = {}): LmdbStore {
    mkdirSync(dataDir, { recursive: true });
    // lmdb-js guesses "a file" from any extension in the path (so `mktemp -d`'s tmp.XXXX or
    // ./gamefactory.d failed and left a stray -lock file beside it): say it is a directory.
    return new LmdbStore(open({ path: dataDir, noSubdir: false, compression: false, maxDbs: 8 }), options);
  }

  /** Counts coordinator starts, so logs and operators can tell a restart from a first start. */
  async recordStart(now: number): Promise<number> {
    const starts = ((this.root.get('meta:starts') as number | undefined) ?? 0) + 1;
    await this.root.put('meta:starts', starts);
    await this.root.put('meta:lastStart', now);
    return starts;
  }

  close(): Promise<void> {
    this.tickets.markClosed();
    return this.root.close();
  }
}

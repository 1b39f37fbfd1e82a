import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { open, type RootDatabase } from 'lmdb';
import type { PlayerRating } from '../ratings/rating-system.js';
import { DataDirectoryError } from './data-directory/check-data-directory.js';
import { LmdbBackfillStore } from './lmdb-backfill-store.js';
import { LmdbRatingStore } from './lmdb-rating-store.js';
import { LmdbTicketStore, type WriteFailureHandler } from './lmdb-ticket-store.js';
import { onStrayLmdbFailure, PROBE_HEADROOM_BYTES, StoreHealth, withCommitCause } from './store-health.js';

export interface LmdbStoreOptions {
  /** Called for each ticket write that failed; the count is also on `tickets.failedWrites`. */
  readonly onWriteFailed?: WriteFailureHandler;
  /** The store stopped (an error) or resumed (undefined) being able to write. */
  readonly onHealthChange?: (failing: Error | undefined) => void;
  /** While writes fail, how often a probe write checks whether space has returned. */
  readonly probeMs?: number;
}

/** Default interval of the probe write while the disk is full. */
export const DEFAULT_PROBE_MS = 1000;

/**
 * The embedded store: one LMDB environment in the data directory. Running games are not ours to
 * persist (servers re-announce them); what must survive a restart lives here.
 */
export class LmdbStore {
  readonly tickets: LmdbTicketStore;
  /** Open backfill requests, written with the tickets. */
  readonly backfills: LmdbBackfillStore;
  /** Whether writes land now (a full disk makes them fail until space returns). */
  readonly health: StoreHealth;
  private readonly unguard: () => void;

  private constructor(
    readonly root: RootDatabase,
    options: LmdbStoreOptions,
  ) {
    this.health = new StoreHealth(() => probeHeadroom(root), options.probeMs ?? DEFAULT_PROBE_MS, options.onHealthChange);
    this.tickets = new LmdbTicketStore(root, (op, error, ticketId, kind) => {
      if (kind === 'commit') this.health.failed(error);
      options.onWriteFailed?.(op, error, ticketId, kind);
    });
    this.backfills = new LmdbBackfillStore(root, this.tickets);
    // A commit failure LMDB raises where no caller can catch it: the store is failing, not the process.
    this.unguard = onStrayLmdbFailure((error) => withCommitCause(error, (cause) => this.health.failed(cause)));
  }

  /** Ratings in the same environment; `standing` orders each ladder's board. */
  openRatings(standing: (ladder: string, rating: PlayerRating) => number): LmdbRatingStore {
    return new LmdbRatingStore(this.root, standing);
  }

  static open(dataDir: string, options: LmdbStoreOptions = {}): LmdbStore {
    try {
      mkdirSync(dataDir, { recursive: true });
    } catch (error) {
      const { code, message } = error as NodeJS.ErrnoException;
      throw new DataDirectoryError(`data directory ${resolve(dataDir)} cannot be created (${code ?? 'error'}): ${message}`);
    }
    // lmdb-js guesses "a file" from any extension in the path (so `mktemp -d`'s tmp.XXXX or
    // ./gamefactory.d failed and left a stray -lock file beside it): say it is a directory.
    return new LmdbStore(open({ path: dataDir, noSubdir: false, compression: false, maxDbs: 8 }), options);
  }

  /** Counts coordinator starts, so logs and operators can tell a restart from a first start. */
  async recordStart(now: number): Promise<number> {
    const starts = ((this.root.get('meta:starts') as number | undefined) ?? 0) + 1;
    try {
      await this.root.put('meta:starts', starts);
      await this.root.put('meta:lastStart', now);
    } catch (error) {
      // A full disk at start: the coordinator runs, refusing new tickets until space returns.
      this.health.failed(error instanceof Error ? error : new Error(String(error)));
    }
    return starts;
  }

  close(): Promise<void> {
    this.health.stop();
    this.unguard();
    this.tickets.markClosed();
    return this.root.close();
  }
}

/**
 * Lands when the disk has room for `PROBE_HEADROOM_BYTES` more: written, then given back, each in
 * a transaction of its own, so a probe that fails takes no waiting ticket's write down with it
 * (LMDB's asynchronous writes share one transaction per batch). Runs only while writes fail.
 */
function probeHeadroom(root: RootDatabase): Promise<void> {
  try {
    root.transactionSync(() => root.putSync('meta:probe', Buffer.alloc(PROBE_HEADROOM_BYTES)));
    root.transactionSync(() => root.removeSync('meta:probe'));
    return Promise.resolve();
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
}

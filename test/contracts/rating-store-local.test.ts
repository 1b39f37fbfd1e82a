import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { InMemoryRatingStore } from '../../src/ratings/index.js';
import { LmdbStore } from '../../src/storage/lmdb-store.js';
import { runContract } from './contract.js';
import { byStanding, ratingStoreCases } from './rating-store.contract.js';

// A store in one process is one node: every "node" is the same store, and nothing to wait for.
runContract('RatingStore', 'in memory', ratingStoreCases, () => {
  const store = new InMemoryRatingStore(byStanding);
  return { node: async () => store, settle: async () => {} };
});

const opened: { lmdb: LmdbStore; dir: string }[] = [];
afterAll(async () => {
  for (const { lmdb, dir } of opened.splice(0)) {
    await lmdb.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
runContract('RatingStore', 'LMDB in a temp dir', ratingStoreCases, () => {
  const dir = mkdtempSync(join(tmpdir(), 'gf-ratings-contract-'));
  const lmdb = LmdbStore.open(dir);
  opened.push({ lmdb, dir });
  const store = lmdb.openRatings(byStanding);
  return { node: async () => store, settle: async () => {} };
});

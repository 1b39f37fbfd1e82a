import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { BackfillRecord } from '../../src/coordinator/backfill/backfill-record.js';
import { LmdbStore } from '../../src/storage/lmdb-store.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const record = (backfillId: string, createdAt: number): BackfillRecord => ({
  backfillId,
  serverId: 's1',
  gameId: `g-${backfillId}`,
  factory: 'squad/region=eu',
  players: [
    { playerId: 'a1', team: 0, score: 1500, softAttributes: { language: 'fr' } },
    { playerId: 'b1', team: 1, score: 1600.5 },
  ],
  map: 'dust',
  region: '',
  createdAt,
  expiresAt: createdAt + 60_000,
});

describe('LMDB backfill store', () => {
  it('keeps open requests across a reopen, oldest first, and forgets removed ones', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gamefactory-backfills-'));
    dirs.push(dir);
    const first = LmdbStore.open(dir);
    first.backfills.save(record('late', 20));
    first.backfills.save(record('early', 10));
    first.backfills.save(record('gone', 5));
    first.backfills.remove('gone');
    // Backfill writes join the tickets' commit tracking: what is told after them waits for it.
    expect(first.tickets.inFlight()).toBeDefined();
    await first.tickets.flushed();
    await first.close();
    const second = LmdbStore.open(dir);
    expect(second.backfills.loadAll()).toEqual([record('early', 10), record('late', 20)]);
    expect(second.tickets.loadAll()).toEqual([]);
    await second.close();
  });
});

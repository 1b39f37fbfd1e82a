import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RootDatabase } from 'lmdb';
import { afterEach, describe, expect, it } from 'vitest';
import type { TicketRecord } from '../../src/coordinator/ports.js';
import { LmdbStore } from '../../src/storage/lmdb-store.js';
import { LmdbTicketStore, type TicketWriteOp } from '../../src/storage/lmdb-ticket-store.js';

// Issue 10, defect 6: ticket writes were fired and forgotten (`void this.db.put`), so a failed write
// was an unhandled rejection that ends the process, and nobody counted it.

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function record(ticketId: string): TicketRecord {
  return {
    request: {
      ticketId,
      template: 't',
      party: [{ playerId: 'p', score: undefined }],
      partition: new Map(),
      matchable: new Map(),
      latenciesMs: new Map(),
      preferredMaps: [],
      vetoedMaps: [],
    },
    createdAt: 0,
    arrival: 1,
  };
}

interface Failure {
  op: TicketWriteOp;
  message: string;
  ticketId: string;
}

/** Collects unhandled rejections while `body` runs and a few turns after. */
async function unhandledDuring(body: () => Promise<void>): Promise<unknown[]> {
  const seen: unknown[] = [];
  const listener = (reason: unknown) => seen.push(reason);
  process.on('unhandledRejection', listener);
  try {
    await body();
    await new Promise((resolve) => setTimeout(resolve, 20));
  } finally {
    process.off('unhandledRejection', listener);
  }
  return seen;
}

describe('ticket writes that fail', () => {
  it('a key LMDB refuses is reported and counted, not thrown into the coordinator', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gamefactory-writes-'));
    dirs.push(dir);
    const failures: Failure[] = [];
    const store = LmdbStore.open(dir, { onWriteFailed: (op, error, ticketId) => failures.push({ op, message: error.message, ticketId }) });
    const huge = 'x'.repeat(3000);
    expect(() => store.tickets.save(record(huge))).not.toThrow();
    expect(() => store.tickets.remove(huge)).not.toThrow();
    store.tickets.save(record('fine'));
    await store.tickets.flushed();
    expect(failures.map((f) => f.op)).toEqual(['save', 'remove']);
    expect(failures[0]!.message).toMatch(/key size/i);
    expect(store.tickets.failedWrites).toBe(2);
    expect(store.tickets.loadAll().map((r) => r.request.ticketId)).toEqual(['fine']);
    await store.close();
  });

  it('a write after close is reported instead of crashing the process from an LMDB timer', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gamefactory-writes-'));
    dirs.push(dir);
    const failures: Failure[] = [];
    const store = LmdbStore.open(dir, { onWriteFailed: (op, error, ticketId) => failures.push({ op, message: error.message, ticketId }) });
    await store.close();
    store.tickets.save(record('late'));
    store.tickets.remove('late');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(failures).toEqual([
      { op: 'save', message: 'the ticket store is closed', ticketId: 'late' },
      { op: 'remove', message: 'the ticket store is closed', ticketId: 'late' },
    ]);
  });

  it('a write LMDB rejects later is counted and reported, never an unhandled rejection', async () => {
    // A real commit failure needs a full disk; this stands in for the environment and rejects.
    const rejecting = {
      openDB: () => ({
        put: () => Promise.reject(new Error('MDB_MAP_FULL: Environment mapsize limit reached')),
        remove: () => Promise.reject(new Error('EIO')),
      }),
    } as unknown as RootDatabase;
    const failures: Failure[] = [];
    let store!: LmdbTicketStore;
    const unhandled = await unhandledDuring(async () => {
      store = new LmdbTicketStore(rejecting, (op, error, ticketId) => failures.push({ op, message: error.message, ticketId }));
      store.save(record('a'));
      store.remove('b');
    });
    expect(unhandled).toEqual([]);
    expect(failures).toEqual([
      { op: 'save', message: 'MDB_MAP_FULL: Environment mapsize limit reached', ticketId: 'a' },
      { op: 'remove', message: 'EIO', ticketId: 'b' },
    ]);
    expect(store.failedWrites).toBe(2);
  });

  it('a failed commit reports each write it held (LMDB answers a batch with one promise)', async () => {
    const commit = Promise.reject(new Error('MDB_MAP_FULL: Environment mapsize limit reached'));
    const batching = { openDB: () => ({ put: () => commit, remove: () => commit }) } as unknown as RootDatabase;
    const failures: Failure[] = [];
    let store!: LmdbTicketStore;
    const unhandled = await unhandledDuring(async () => {
      store = new LmdbTicketStore(batching, (op, error, ticketId) => failures.push({ op, message: error.message, ticketId }));
      store.save(record('a'));
      store.save(record('b'));
      store.remove('c');
    });
    expect(unhandled).toEqual([]);
    expect(failures.map((f) => `${f.op} ${f.ticketId}`)).toEqual(['save a', 'save b', 'remove c']);
    expect(store.failedWrites).toBe(3);
  });

  it('a handler that throws does not turn a failed write into an unhandled rejection', async () => {
    const rejecting = { openDB: () => ({ put: () => Promise.reject(new Error('boom')) }) } as unknown as RootDatabase;
    let store!: LmdbTicketStore;
    const unhandled = await unhandledDuring(async () => {
      store = new LmdbTicketStore(rejecting, () => {
        throw new Error('handler bug');
      });
      store.save(record('a'));
    });
    expect(unhandled).toEqual([]);
    expect(store.failedWrites).toBe(1);
  });
});

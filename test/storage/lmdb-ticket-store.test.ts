import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TicketRecord } from '../../src/coordinator/ports.js';
import { LmdbStore } from '../../src/storage/lmdb-store.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function openStore(): { store: LmdbStore; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'gamefactory-tickets-'));
  dirs.push(dir);
  return { store: LmdbStore.open(dir), dir };
}

const bare: TicketRecord = {
  request: {
    ticketId: 'bare',
    template: 'coop',
    party: [{ playerId: 'p1', score: undefined }],
    partition: new Map([['region', 's:eu']]),
    matchable: new Map(),
    latenciesMs: new Map(),
    preferredMaps: [],
    vetoedMaps: [],
  },
  createdAt: 5,
  arrival: 1,
  owner: { subject: 'p1', role: 'player', partyPlayerIds: ['p1'] },
};

const full: TicketRecord = {
  request: {
    ticketId: 'full',
    template: 'duel',
    party: [{ playerId: 'a', score: 1500 }, { playerId: 'b', score: undefined }],
    partition: new Map([['version', 's:v1']]),
    matchable: new Map([['act', 'i:2']]),
    latenciesMs: new Map([['eu', 20], ['us', 90]]),
    preferredMaps: ['dust'],
    vetoedMaps: ['nuke'],
    waitBudgetMs: 3000,
    maxLatencyMs: 120,
  },
  createdAt: 7,
  arrival: 2,
  // A gateway speaking for a party other than the ticket's list (kept as given).
  owner: { subject: 'gw', role: 'gateway', partyPlayerIds: ['b', 'a'] },
};

// Every rarer field, so each reaches the record's `rest` and comes back.
const rare: TicketRecord = {
  request: {
    ticketId: 'rare',
    template: 'duel',
    party: [{ playerId: 'x', score: 1612.5 }],
    partition: new Map([['region', 's:eu'], ['hardcore', 'b:true']]),
    matchable: new Map(),
    latenciesMs: new Map([['eu', 12.5]]),
    preferredMaps: [],
    vetoedMaps: ['nuke'],
    location: { latitude: 48.85, longitude: 2.35 },
    softAttributes: new Map([['language', 'fr']]),
  },
  createdAt: 1_764_000_000_123,
  arrival: 3,
  placed: { requestId: 'r1', serverId: 's1', token: 'tok', at: 1_764_000_000_200, team: 1, map: 'dust', region: 'eu' },
};

describe('LmdbTicketStore records', () => {
  it('gives back the rarer fields too (location, soft attributes, where its game was ordered)', async () => {
    const { store } = openStore();
    // Where its game was ordered and nothing else rare (how the embedded process writes a ticket in flight).
    const placedOnly: TicketRecord = { ...bare, request: { ...bare.request, ticketId: 'placed' }, owner: undefined, arrival: 4, placed: rare.placed };
    store.tickets.save(rare);
    store.tickets.save(placedOnly);
    await store.tickets.flushed();
    expect(store.tickets.loadAll()).toEqual([rare, placedOnly]);
    await store.close();
  });

  it('stores a one-player ticket as a positional list, smaller than the compact object written before', async () => {
    const { store } = openStore();
    store.tickets.save(bare);
    await store.tickets.flushed();
    const db = store.root.openDB({ name: 'tickets' });
    expect(Array.isArray(db.get('bare'))).toBe(true);
    await db.put('object', { request: { template: 'coop', party: [{ playerId: 'p1' }], partition: [['region', 's:eu']] }, createdAt: 5, arrival: 1, owner: { subject: 'p1', role: 'player' } });
    expect(db.getBinary('bare')!.length).toBeLessThan(db.getBinary('object')!.length * 0.6);
    await store.close();
  });

  it('reads records in the compact object format (no id, empty fields left out)', async () => {
    const { store, dir } = openStore();
    const db = store.root.openDB({ name: 'tickets' });
    await db.put('bare', { request: { template: 'coop', party: [{ playerId: 'p1' }], partition: [['region', 's:eu']] }, createdAt: 5, arrival: 1, owner: { subject: 'p1', role: 'player' } });
    await store.close();
    const reopened = LmdbStore.open(dir);
    expect(reopened.tickets.loadAll()).toEqual([bare]);
    await reopened.close();
  });

  it('gives back every field of what it stored, minimal and full requests alike', async () => {
    const { store } = openStore();
    store.tickets.save(full);
    store.tickets.save(bare);
    await store.tickets.flushed();
    expect(store.tickets.loadAll()).toEqual([bare, full]);
    await store.close();
  });

  it('stores a waiting ticket in fewer bytes than the record with every field spelled out', async () => {
    const { store } = openStore();
    store.tickets.save(bare);
    await store.tickets.flushed();
    const db = store.root.openDB({ name: 'tickets' });
    const compact = db.getBinary('bare')!.length;
    await db.put('old', { request: { ticketId: 'bare', template: 'coop', party: [{ playerId: 'p1', score: null }], partition: [['region', 's:eu']], matchable: [], latenciesMs: [], preferredMaps: [], vetoedMaps: [] }, createdAt: 5, arrival: 1, owner: { subject: 'p1', role: 'player', partyPlayerIds: ['p1'] } });
    expect(compact).toBeLessThan(db.getBinary('old')!.length);
    await store.close();
  });

  it('reads records written in the earlier format (every field, the id in the value too)', async () => {
    const { store, dir } = openStore();
    const db = store.root.openDB({ name: 'tickets' });
    await db.put('old', {
      request: { ticketId: 'old', template: 'coop', party: [{ playerId: 'p1', score: null }], partition: [['region', 's:eu']], matchable: [['act', 'i:1']], latenciesMs: [], preferredMaps: [], vetoedMaps: [] },
      createdAt: 3,
      arrival: 9,
      owner: { subject: 'p1', role: 'player', partyPlayerIds: ['p1'] },
    });
    await store.close();
    const reopened = LmdbStore.open(dir);
    expect(reopened.tickets.loadAll()).toEqual([
      {
        request: { ticketId: 'old', template: 'coop', party: [{ playerId: 'p1', score: undefined }], partition: new Map([['region', 's:eu']]), matchable: new Map([['act', 'i:1']]), latenciesMs: new Map(), preferredMaps: [], vetoedMaps: [] },
        createdAt: 3,
        arrival: 9,
        owner: { subject: 'p1', role: 'player', partyPlayerIds: ['p1'] },
      },
    ]);
    await reopened.close();
  });
});

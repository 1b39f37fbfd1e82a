import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ValueKey } from '../../src/attributes/attribute-value.js';
import type { TicketRecord } from '../../src/coordinator/ports.js';
import { LmdbStore } from '../../src/storage/lmdb-store.js';
import { encodeTicket } from '../../src/storage/stored-ticket.js';
import { TicketRecordPacker } from '../../src/storage/ticket-record-packer.js';

const dir = mkdtempSync(join(tmpdir(), 'gamefactory-packer-'));
const store = LmdbStore.open(dir);
// The database's own msgpackr (records extension on), which lmdb-js keeps on the handle.
const db = store.root.openDB({ name: 'tickets' }) as unknown as { encoder: { encode(value: unknown): Uint8Array }; decoder: { decode(bytes: Uint8Array): unknown } };
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

// Strings of every kind the wire can bring (ASCII, multi-byte, astral), lengths across each header width.
const text = fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: 'grapheme', maxLength: 40 }), fc.string({ minLength: 200, maxLength: 300 }), fc.string({ unit: 'grapheme', minLength: 90, maxLength: 120 }));
// Integers around every width MessagePack has (64-127: the range the records extension takes), and doubles.
const number = fc.oneof(fc.integer({ min: -200, max: 300 }), fc.integer({ min: -(2 ** 31), max: 2 ** 32 - 1 }), fc.constantFrom(63, 64, 127, 128, 255, 256, 65535, 65536, 2 ** 32, -33, -128, -129, 1_764_000_000_123), fc.double({ noNaN: true }));
const attributes = fc.uniqueArray(fc.tuple(text, text), { maxLength: 10, selector: ([k]) => k }).map((pairs) => new Map(pairs as [string, ValueKey][]));
const record: fc.Arbitrary<TicketRecord> = fc.record({
  template: text,
  party: fc.array(fc.record({ playerId: text, score: fc.option(number, { nil: undefined }) }), { minLength: 1, maxLength: 20 }),
  partition: attributes,
  matchable: attributes,
  createdAt: number,
  arrival: number,
  placed: fc.option(fc.record({ requestId: text, serverId: text, token: text, at: number, team: number, map: text, region: text }), { nil: undefined }),
}).map(({ template, party, partition, matchable, createdAt, arrival, placed }) => ({
  request: { ticketId: 't', template, party, partition, matchable, latenciesMs: new Map(), preferredMaps: [], vetoedMaps: [] },
  createdAt,
  arrival,
  ...(placed && { placed }),
}));

describe('TicketRecordPacker', () => {
  it('writes the common record as bytes the database reads back as the tuple its own encoder writes', () => {
    const packer = new TicketRecordPacker();
    fc.assert(
      fc.property(record, (r) => {
        const packed = packer.pack(r);
        expect(packed).toBeDefined();
        expect(db.decoder.decode(packed!)).toEqual(db.decoder.decode(db.encoder.encode(encodeTicket(r))));
      }),
      { numRuns: 2000 },
    );
  });

  it('leaves records with any rarer field to the database encoder', () => {
    const packer = new TicketRecordPacker();
    const common: TicketRecord = { request: { ticketId: 't', template: 'coop', party: [{ playerId: 'p', score: undefined }], partition: new Map(), matchable: new Map(), latenciesMs: new Map(), preferredMaps: [], vetoedMaps: [] }, createdAt: 1, arrival: 1 };
    expect(packer.pack(common)).toBeDefined();
    for (const rare of [{ latenciesMs: new Map([['eu', 20]]) }, { preferredMaps: ['m'] }, { vetoedMaps: ['m'] }, { waitBudgetMs: 5 }, { maxLatencyMs: 5 }, { location: { latitude: 1, longitude: 2 } }, { softAttributes: new Map() }]) {
      expect(packer.pack({ ...common, request: { ...common.request, ...rare } })).toBeUndefined();
    }
    expect(packer.pack({ ...common, owner: { subject: 'p', role: 'player', partyPlayerIds: ['p'] } })).toBeUndefined();
  });

  it('records written one after another keep their bytes while later ones fill and replace the slab', async () => {
    // -0 comes back as 0 from either encoder (the first case compares them), so none here.
    const records = fc.sample(record, 3000).map((r, i) => ({
      ...r,
      request: { ...r.request, ticketId: `t${i}`, party: r.request.party.map((p) => ({ ...p, score: Object.is(p.score, -0) ? 0 : p.score })) },
      createdAt: Object.is(r.createdAt, -0) ? 0 : r.createdAt,
      arrival: i,
      ...(r.placed && { placed: { ...r.placed, at: Object.is(r.placed.at, -0) ? 0 : r.placed.at, team: Object.is(r.placed.team, -0) ? 0 : r.placed.team } }),
    }));
    for (const r of records) store.tickets.save(r);
    await store.tickets.flushed();
    const loaded = new Map(store.tickets.loadAll().map((r) => [r.request.ticketId, r]));
    for (const r of records) expect(loaded.get(r.request.ticketId)).toEqual(r);
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SlotLedger, StartRateBucket, type ServerPolicy } from '../../src/placement/index.js';

/**
 * The ledger's counters and choices against a brute-force model that keeps plain records and
 * scans every server on every question.
 */
const SERVERS = ['s0', 's1', 's2', 's3', 's4'];
const FACTORIES = ['f0', 'f1', 'f2', 'f3'];

interface ModelServer {
  factories: string[];
  maxGames: number;
  running: number;
  inFlight: number;
  bucket: StartRateBucket;
}

const free = (s: ModelServer): number => Math.max(0, s.maxGames - s.running - s.inFlight);

class BruteForceLedger {
  readonly servers = new Map<string, ModelServer>();
  now = 0;
  constructor(private readonly policy: ServerPolicy) {}

  candidates(factory: string): [string, ModelServer][] {
    return [...this.servers].filter(([, s]) => s.factories.includes(factory) && free(s) > 0);
  }

  claim(factory: string): string | undefined {
    const ready = this.candidates(factory).filter(([, s]) => s.bucket.allows(this.now));
    ready.sort(([ia, a], [ib, b]) => {
      const byFree = this.policy === 'fill' ? free(a) - free(b) : free(b) - free(a);
      return byFree !== 0 ? byFree : ia < ib ? -1 : 1;
    });
    const chosen = ready[0];
    if (chosen === undefined) return undefined;
    chosen[1].inFlight++;
    chosen[1].bucket.take(this.now);
    return chosen[0];
  }

  nextStartAt(factory: string): number | undefined {
    const c = this.candidates(factory);
    if (c.length === 0) return undefined;
    if (c.some(([, s]) => s.bucket.allows(this.now))) return this.now;
    return Math.min(...c.map(([, s]) => s.bucket.readyAt));
  }

  freeSlots(factory?: string): number {
    let total = 0;
    for (const s of this.servers.values()) if (factory === undefined || s.factories.includes(factory)) total += free(s);
    return total;
  }
}

const serverId = fc.constantFrom(...SERVERS);
const factory = fc.constantFrom(...FACTORIES);
const capacity = fc.record({
  maxGames: fc.integer({ min: 0, max: 5 }),
  maxStartsPerSecond: fc.constantFrom(0, 0.5, 1, 2, 3),
});
const op = fc.oneof(
  fc.record({
    kind: fc.constant('add' as const),
    serverId,
    factories: fc.subarray(FACTORIES, { minLength: 1 }),
    capacity,
    running: fc.integer({ min: 0, max: 6 }),
  }),
  fc.record({ kind: fc.constant('remove' as const), serverId }),
  fc.record({ kind: fc.constant('capacity' as const), serverId, capacity }),
  fc.record({ kind: fc.constant('claim' as const), factory }),
  fc.record({ kind: fc.constant('claim' as const), factory }),
  fc.record({ kind: fc.constantFrom('confirm' as const, 'release' as const, 'started' as const, 'ended' as const), serverId }),
  fc.record({ kind: fc.constant('tick' as const), ms: fc.integer({ min: 0, max: 1500 }) }),
);


describe('SlotLedger against a brute-force model', () => {
  for (const policy of ['fill', 'spread'] as const) {
    it(`${policy}: counters and choices match after every operation`, () => {
      fc.assert(
        fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
          const ledger = new SlotLedger(policy);
          const model = new BruteForceLedger(policy);
          for (const o of ops) {
            switch (o.kind) {
              case 'add':
                ledger.addServer(o.serverId, o.factories, o.capacity, o.running, model.now);
                model.servers.set(o.serverId, {
                  factories: [...o.factories],
                  maxGames: o.capacity.maxGames,
                  running: o.running,
                  inFlight: 0,
                  bucket: new StartRateBucket(o.capacity.maxStartsPerSecond, model.now),
                });
                break;
              case 'remove':
                ledger.removeServer(o.serverId);
                model.servers.delete(o.serverId);
                break;
              case 'capacity': {
                ledger.setCapacity(o.serverId, o.capacity, model.now);
                const s = model.servers.get(o.serverId);
                if (s !== undefined) {
                  s.maxGames = o.capacity.maxGames;
                  if (s.bucket.startsPerSecond !== o.capacity.maxStartsPerSecond) {
                    s.bucket = s.bucket.withRate(o.capacity.maxStartsPerSecond, model.now);
                  }
                }
                break;
              }
              case 'claim':
                expect(ledger.claim(o.factory, model.now)).toBe(model.claim(o.factory));
                break;
              case 'confirm': {
                ledger.confirm(o.serverId);
                const s = model.servers.get(o.serverId);
                if (s !== undefined) {
                  if (s.inFlight > 0) s.inFlight--;
                  s.running++;
                }
                break;
              }
              case 'release': {
                ledger.release(o.serverId);
                const s = model.servers.get(o.serverId);
                if (s !== undefined && s.inFlight > 0) s.inFlight--;
                break;
              }
              case 'started': {
                ledger.gameStarted(o.serverId);
                const s = model.servers.get(o.serverId);
                if (s !== undefined) s.running++;
                break;
              }
              case 'ended': {
                ledger.gameEnded(o.serverId);
                const s = model.servers.get(o.serverId);
                if (s !== undefined && s.running > 0) s.running--;
                break;
              }
              case 'tick':
                model.now += o.ms;
                break;
            }
            expect(ledger.freeSlots()).toBe(model.freeSlots());
            for (const f of FACTORIES) {
              expect(ledger.freeSlots(f)).toBe(model.freeSlots(f));
              expect(ledger.nextStartAt(f, model.now)).toBe(model.nextStartAt(f));
            }
            for (const id of SERVERS) {
              const s = model.servers.get(id);
              const view = ledger.server(id);
              if (s === undefined) expect(view).toBeUndefined();
              else {
                expect(view).toMatchObject({ running: s.running, inFlight: s.inFlight, free: free(s) });
                expect(view!.free).toBeGreaterThanOrEqual(0);
                expect(view!.free).toBeLessThanOrEqual(s.maxGames);
              }
            }
          }
        }),
        { numRuns: 300 },
      );
    });
  }
});

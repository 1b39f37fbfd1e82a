import { describe, expect, it } from 'vitest';
import { Placement } from '../../src/placement/index.js';
import type { ServerCapacity, ServerPolicy } from '../../src/placement/slot-ledger.js';

/**
 * Slots and the creation queue as the core uses them: one table of cases. Time is an argument of
 * Placement; `port` reads it from the case's manual clock so each case reads like a script.
 */
interface ManualClock {
  now: number;
}

function portOf(placement: Placement, clock: ManualClock) {
  return {
    addServer: (serverId: string, factories: readonly string[], capacity: ServerCapacity, running: number) => placement.addServer(serverId, factories, capacity, running, clock.now),
    removeServer: (serverId: string) => placement.removeServer(serverId),
    setCapacity: (serverId: string, capacity: ServerCapacity) => placement.setCapacity(serverId, capacity, clock.now),
    gameEnded: (serverId: string) => placement.gameEnded(serverId),
    recordDemand: (factory: string) => placement.recordDemand(factory, clock.now),
    place: (factory: string, requestId: string, priority: number) => placement.place(factory, requestId, priority, clock.now),
    confirm: (serverId: string) => placement.confirm(serverId),
    release: (serverId: string) => placement.release(serverId),
    withdraw: (requestId: string) => placement.withdraw(requestId),
    drain: () => placement.drain(clock.now),
    position: (requestId: string) => placement.position(requestId),
    head: (factory: string, count: number) => placement.head(factory, count),
    depth: (factory?: string) => placement.depth(factory),
    freeSlots: (factory?: string) => placement.freeSlots(factory),
  };
}

interface PlacementSubject {
  readonly port: ReturnType<typeof portOf>;
  readonly clock: ManualClock;
}

interface PlacementCase {
  readonly name: string;
  readonly policy?: ServerPolicy;
  run(subject: PlacementSubject): Promise<void>;
}

const open = { maxGames: 2, maxStartsPerSecond: 0 };

const placementCases: readonly PlacementCase[] = [
  {
    name: 'fill: the server with the fewest free slots gets the game, ties to the smaller id',
    policy: 'fill',
    async run({ port }) {
      await port.addServer('b', ['f'], { maxGames: 3, maxStartsPerSecond: 0 }, 0);
      await port.addServer('a', ['f'], { maxGames: 3, maxStartsPerSecond: 0 }, 0);
      await port.addServer('c', ['f'], { maxGames: 3, maxStartsPerSecond: 0 }, 1);
      expect(await port.place('f', 'r1', 1)).toEqual({ serverId: 'c' });
      expect(await port.place('f', 'r2', 2)).toEqual({ serverId: 'c' });
      expect(await port.place('f', 'r3', 3)).toEqual({ serverId: 'a' });
      expect(await port.freeSlots('f')).toBe(5);
    },
  },
  {
    name: 'spread: the server with the most free slots gets the game, ties to the smaller id',
    policy: 'spread',
    async run({ port }) {
      await port.addServer('b', ['f'], { maxGames: 3, maxStartsPerSecond: 0 }, 0);
      await port.addServer('a', ['f'], { maxGames: 3, maxStartsPerSecond: 0 }, 1);
      const got = [];
      for (let i = 0; i < 4; i++) got.push(await port.place('f', `r${i}`, i));
      expect(got).toEqual([{ serverId: 'b' }, { serverId: 'a' }, { serverId: 'b' }, { serverId: 'a' }]);
    },
  },
  {
    name: 'no free slot: requests queue FIFO by priority, and a request taken back keeps its place',
    async run({ port }) {
      expect(await port.place('f', 'r5', 5)).toEqual({ position: 1 });
      expect(await port.place('f', 'r7', 7)).toEqual({ position: 2 });
      expect(await port.place('f', 'r3', 3)).toEqual({ position: 1 });
      expect(await port.place('f', 'r6', 6)).toEqual({ position: 3 });
      expect(await port.head('f', 10)).toEqual(['r3', 'r5', 'r6', 'r7']);
      expect(await port.head('f', 2)).toEqual(['r3', 'r5']);
      expect(await port.head('f', 0)).toEqual([]);
      expect(await port.position('r7')).toBe(4);
      expect(await port.depth('f')).toBe(4);
      expect(await port.depth()).toBe(4);
      expect(await port.depth('other')).toBe(0);
    },
  },
  {
    name: 'equal priorities keep the order they were queued in; placing a queued id again moves it',
    async run({ port }) {
      await port.place('f', 'x', 1);
      await port.place('f', 'y', 1);
      await port.place('f', 'z', 1);
      expect(await port.head('f', 3)).toEqual(['x', 'y', 'z']);
      expect(await port.place('f', 'x', 1)).toEqual({ position: 3 });
      expect(await port.depth('f')).toBe(3);
    },
  },
  {
    name: 'while anyone of a factory waits, a new request queues even if a slot is free',
    async run({ port }) {
      await port.place('f', 'early', 1);
      await port.addServer('s', ['f'], open, 0);
      expect(await port.place('f', 'late', 2)).toEqual({ position: 2 });
      const drained = await port.drain();
      expect(drained.placed).toEqual([
        { requestId: 'early', factory: 'f', serverId: 's' },
        { requestId: 'late', factory: 'f', serverId: 's' },
      ]);
      expect(drained.retryAt).toBeUndefined();
      expect(await port.depth()).toBe(0);
      expect(await port.freeSlots()).toBe(0);
    },
  },
  {
    name: 'withdraw takes a request out of line once; its position is then undefined',
    async run({ port }) {
      await port.place('f', 'a', 1);
      await port.place('f', 'b', 2);
      expect(await port.withdraw('a')).toBe(true);
      expect(await port.withdraw('a')).toBe(false);
      expect(await port.withdraw('never')).toBe(false);
      expect(await port.position('a')).toBeUndefined();
      expect(await port.position('b')).toBe(1);
      expect(await port.withdraw('b')).toBe(true);
      expect(await port.depth('f')).toBe(0);
      expect(await port.head('f', 5)).toEqual([]);
    },
  },
  {
    name: 'confirm, release and gameEnded move slots; extra calls and unknown servers are ignored',
    async run({ port }) {
      await port.addServer('s', ['f'], open, 0);
      expect(await port.place('f', 'a', 1)).toEqual({ serverId: 's' });
      expect(await port.freeSlots('f')).toBe(1);
      await port.release('s');
      await port.release('s'); // nothing in flight: ignored
      expect(await port.freeSlots('f')).toBe(2);
      await port.place('f', 'b', 2);
      await port.confirm('s');
      await port.gameEnded('s');
      await port.gameEnded('s'); // nothing running: ignored
      expect(await port.freeSlots('f')).toBe(2);
      await port.confirm('ghost');
      await port.release('ghost');
      await port.gameEnded('ghost');
      await port.removeServer('ghost');
      await port.setCapacity('ghost', open);
      expect(await port.freeSlots()).toBe(2);
    },
  },
  {
    name: 'a server hosting two factories shares its slots between them',
    async run({ port }) {
      await port.addServer('s', ['a', 'b', 'a'], open, 0);
      expect(await port.freeSlots('a')).toBe(2);
      expect(await port.freeSlots('b')).toBe(2);
      expect(await port.freeSlots()).toBe(2);
      await port.place('a', 'r1', 1);
      expect(await port.freeSlots('b')).toBe(1);
      await port.place('b', 'r2', 2);
      expect(await port.place('a', 'r3', 3)).toEqual({ position: 1 });
      await port.removeServer('s');
      expect(await port.freeSlots('a')).toBe(0);
      expect(await port.freeSlots()).toBe(0);
    },
  },
  {
    name: 're-announcing a server replaces it, with the games it already runs',
    async run({ port }) {
      await port.addServer('s', ['f'], { maxGames: 4, maxStartsPerSecond: 0 }, 0);
      await port.place('f', 'a', 1);
      await port.addServer('s', ['f', 'g'], { maxGames: 4, maxStartsPerSecond: 0 }, 3);
      expect(await port.freeSlots('f')).toBe(1);
      expect(await port.freeSlots('g')).toBe(1);
      await port.setCapacity('s', { maxGames: 6, maxStartsPerSecond: 0 });
      expect(await port.freeSlots()).toBe(3);
      await port.setCapacity('s', { maxGames: 1, maxStartsPerSecond: 0 });
      expect(await port.freeSlots()).toBe(0);
    },
  },
  {
    name: 'a rate-limited server: a burst, then drain says when the next start token comes',
    async run({ port, clock }) {
      clock.now = 1000;
      await port.addServer('s', ['f'], { maxGames: 10, maxStartsPerSecond: 2 }, 0);
      expect(await port.place('f', 'a', 1)).toEqual({ serverId: 's' });
      expect(await port.place('f', 'b', 2)).toEqual({ serverId: 's' });
      expect(await port.place('f', 'c', 3)).toEqual({ position: 1 });
      const waiting = await port.drain();
      expect(waiting.placed).toEqual([]);
      expect(waiting.retryAt).toBe(1500);
      clock.now = 1500;
      expect((await port.drain()).placed).toEqual([{ requestId: 'c', factory: 'f', serverId: 's' }]);
      // Re-advertising the same rate does not refill the burst; a faster one carries spent starts over.
      await port.setCapacity('s', { maxGames: 10, maxStartsPerSecond: 2 });
      expect(await port.place('f', 'd', 4)).toEqual({ position: 1 });
      await port.setCapacity('s', { maxGames: 10, maxStartsPerSecond: 4 });
      expect((await port.drain()).placed).toEqual([{ requestId: 'd', factory: 'f', serverId: 's' }]);
    },
  },
  {
    name: 'time read from an earlier clock is taken as the latest seen',
    async run({ port, clock }) {
      clock.now = 5000;
      await port.addServer('s', ['f'], { maxGames: 10, maxStartsPerSecond: 1 }, 0);
      await port.place('f', 'a', 1);
      clock.now = 100;
      expect(await port.place('f', 'b', 2)).toEqual({ position: 1 });
      expect((await port.drain()).retryAt).toBe(6000);
    },
  },
  {
    name: 'drain shares freed slots across factories: the rare one is served early, the popular one more',
    policy: 'spread',
    async run({ port, clock }) {
      for (let i = 0; i < 30; i++) await port.place('popular', `p${i}`, i);
      for (let i = 0; i < 5; i++) await port.place('rare', `r${i}`, 100 + i);
      for (let i = 0; i < 20; i++) await port.recordDemand('popular');
      clock.now = 10;
      await port.addServer('s', ['popular', 'rare'], { maxGames: 12, maxStartsPerSecond: 0 }, 0);
      const { placed } = await port.drain();
      expect(placed).toHaveLength(12);
      const rare = placed.filter((p) => p.factory === 'rare').map((p) => p.requestId);
      const popular = placed.filter((p) => p.factory === 'popular').map((p) => p.requestId);
      expect(placed.slice(0, 3).some((p) => p.factory === 'rare')).toBe(true);
      expect(rare.length).toBeGreaterThanOrEqual(1);
      expect(popular.length).toBeGreaterThan(rare.length);
      expect(popular).toEqual(popular.map((_, i) => `p${i}`)); // FIFO within a factory
      expect(rare).toEqual(rare.map((_, i) => `r${i}`));
      expect(await port.depth()).toBe(35 - 12);
    },
  },
  {
    name: 'bad capacity and priority are refused with a RangeError naming the field',
    async run({ port }) {
      expect(() => port.addServer('s', ['f'], { maxGames: -1, maxStartsPerSecond: 0 }, 0)).toThrow(/maxGames/);
      expect(() => port.addServer('s', ['f'], { maxGames: 1.5, maxStartsPerSecond: 0 }, 0)).toThrow(RangeError);
      expect(() => port.addServer('s', ['f'], { maxGames: 1, maxStartsPerSecond: -2 }, 0)).toThrow(/maxStartsPerSecond/);
      expect(() => port.place('f', 'a', Number.NaN)).toThrow(/priority/);
      expect(await port.freeSlots()).toBe(0);
    },
  },
];

describe('Placement (slot ledger and creation queue)', () => {
  for (const c of placementCases) {
    it(c.name, async () => {
      const clock = { now: 0 };
      await c.run({ port: portOf(new Placement(c.policy ?? 'fill'), clock), clock });
    });
  }
});

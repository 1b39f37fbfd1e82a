import { describe, expect, it } from 'vitest';
import { SlotLedger, type ServerCapacity } from '../../src/placement/index.js';

const unlimited = (maxGames: number): ServerCapacity => ({ maxGames, maxStartsPerSecond: 0 });

describe('SlotLedger: which server', () => {
  function ledgerWith(policy: 'fill' | 'spread'): SlotLedger {
    const ledger = new SlotLedger(policy);
    ledger.addServer('a', ['coop'], unlimited(10), 2, 0); // 8 free
    ledger.addServer('b', ['coop'], unlimited(10), 7, 0); // 3 free
    ledger.addServer('c', ['coop'], unlimited(10), 0, 0); // 10 free
    return ledger;
  }

  it('fill picks the server with the fewest free slots, so idle ones can be shut down', () => {
    const ledger = ledgerWith('fill');
    expect(ledger.claim('coop', 1)).toBe('b');
    expect(ledger.claim('coop', 1)).toBe('b');
    expect(ledger.claim('coop', 1)).toBe('b');
    expect(ledger.claim('coop', 1)).toBe('a'); // b is full now
  });

  it('spread picks the server with the most free slots', () => {
    const ledger = ledgerWith('spread');
    expect(ledger.claim('coop', 1)).toBe('c');
    expect(ledger.claim('coop', 1)).toBe('c'); // 9 free vs 8
    expect(ledger.claim('coop', 1)).toBe('a'); // 8 vs 8: smaller id
    expect(ledger.claim('coop', 1)).toBe('c');
  });

  it("servers on the core's own node come first, each group in the policy's order, the others once they are full", () => {
    for (const policy of ['fill', 'spread'] as const) {
      const ledger = new SlotLedger(policy);
      ledger.addServer('a', ['coop'], unlimited(10), 9, 0); // 1 free, elsewhere: fill's first choice on one node
      ledger.addServer('x', ['coop'], unlimited(10), 8, 0, 0, true); // 2 free, here
      ledger.addServer('y', ['coop'], unlimited(10), 0, 0, 0, true); // 10 free, here
      const first = policy === 'fill' ? 'x' : 'y';
      expect(ledger.claim('coop', 1)).toBe(first);
      // Here first until both are full: 11 more games go here, then 'a'.
      const next = Array.from({ length: 11 }, () => ledger.claim('coop', 1));
      expect(next.every((s) => s === 'x' || s === 'y')).toBe(true);
      expect(ledger.claim('coop', 1)).toBe('a');
      expect(ledger.claim('coop', 1)).toBeUndefined();
    }
  });

  it('ties go to the smaller server id', () => {
    const ledger = new SlotLedger('fill');
    ledger.addServer('z', ['f'], unlimited(2), 0, 0);
    ledger.addServer('m', ['f'], unlimited(2), 0, 0);
    expect(ledger.claim('f', 0)).toBe('m');
  });

  it('only servers hosting the factory are candidates', () => {
    const ledger = new SlotLedger('spread');
    ledger.addServer('big', ['pvp'], unlimited(100), 0, 0);
    ledger.addServer('small', ['coop', 'pvp'], unlimited(1), 0, 0);
    expect(ledger.claim('coop', 0)).toBe('small');
    expect(ledger.claim('coop', 0)).toBeUndefined();
    expect(ledger.claim('unknown', 0)).toBeUndefined();
    expect(ledger.freeSlots('coop')).toBe(0);
    expect(ledger.freeSlots('pvp')).toBe(100);
    expect(ledger.serverCount('coop')).toBe(1);
    expect(ledger.factoriesOf('small')).toEqual(['coop', 'pvp']);
    expect(ledger.factoriesOf('gone')).toEqual([]);
  });

  it('a removed server takes its slots and is never picked again', () => {
    const ledger = new SlotLedger('fill');
    ledger.addServer('a', ['f', 'g'], unlimited(3), 0, 0);
    ledger.addServer('b', ['f'], unlimited(5), 0, 0);
    ledger.removeServer('a');
    expect(ledger.freeSlots('f')).toBe(5);
    expect(ledger.freeSlots('g')).toBe(0);
    expect(ledger.serverCount('g')).toBe(0);
    expect(ledger.freeSlots()).toBe(5);
    expect(ledger.claim('f', 0)).toBe('b');
    ledger.release('a'); // late news about a removed server is ignored
    ledger.gameEnded('a');
    expect(ledger.freeSlots()).toBe(4);
  });

  it('adding a server that exists replaces it', () => {
    const ledger = new SlotLedger('fill');
    ledger.addServer('a', ['f'], unlimited(3), 0, 0);
    ledger.claim('f', 0);
    ledger.addServer('a', ['g'], unlimited(4), 1, 0);
    expect(ledger.freeSlots('f')).toBe(0);
    expect(ledger.freeSlots('g')).toBe(3);
    expect(ledger.server('a')).toMatchObject({ running: 1, inFlight: 0, free: 3 });
  });
});

describe('SlotLedger: accounting', () => {
  it('claim, confirm, release and ended move slots between free, in flight and running', () => {
    const ledger = new SlotLedger('fill');
    ledger.addServer('s', ['f'], unlimited(2), 0, 0);
    expect(ledger.claim('f', 0)).toBe('s');
    expect(ledger.claim('f', 0)).toBe('s');
    expect(ledger.claim('f', 0)).toBeUndefined(); // never over max
    expect(ledger.server('s')).toMatchObject({ inFlight: 2, running: 0, free: 0 });
    ledger.confirm('s');
    ledger.release('s');
    expect(ledger.server('s')).toMatchObject({ inFlight: 0, running: 1, free: 1 });
    ledger.release('s'); // nothing in flight: no effect
    ledger.gameEnded('s');
    ledger.gameEnded('s'); // nothing running: no effect
    expect(ledger.server('s')).toMatchObject({ inFlight: 0, running: 0, free: 2 });
    expect(ledger.freeSlots('f')).toBe(2);
  });

  it('games the server reports without a claim use slots; free never goes below zero', () => {
    const ledger = new SlotLedger('fill');
    ledger.addServer('s', ['f'], unlimited(1), 0, 0);
    ledger.gameStarted('s');
    ledger.gameStarted('s');
    expect(ledger.server('s')).toMatchObject({ running: 2, free: 0 });
    expect(ledger.freeSlots()).toBe(0);
    ledger.gameEnded('s');
    expect(ledger.freeSlots()).toBe(0); // still 1 running of 1
    ledger.gameEnded('s');
    expect(ledger.freeSlots()).toBe(1);
  });

  it('capacity can go up and down, also below what is running', () => {
    const ledger = new SlotLedger('spread');
    ledger.addServer('a', ['f'], unlimited(4), 2, 0);
    ledger.addServer('b', ['f'], unlimited(3), 0, 0);
    expect(ledger.claim('f', 0)).toBe('b');
    ledger.setCapacity('b', unlimited(1), 0); // 1 in flight of 1
    expect(ledger.freeSlots('f')).toBe(2);
    expect(ledger.claim('f', 0)).toBe('a');
    ledger.setCapacity('a', unlimited(0), 0);
    expect(ledger.freeSlots('f')).toBe(0);
    expect(ledger.claim('f', 0)).toBeUndefined();
    ledger.setCapacity('a', unlimited(10), 0); // 2 running + 1 in flight
    expect(ledger.freeSlots('f')).toBe(7);
    expect(ledger.claim('f', 0)).toBe('a');
    expect(() => ledger.setCapacity('a', unlimited(-1), 0)).toThrow(RangeError);
  });
});

describe('SlotLedger: start rate', () => {
  it('a rate-limited server takes a burst of one second, then one start per token', () => {
    const ledger = new SlotLedger('fill');
    ledger.addServer('s', ['f'], { maxGames: 100, maxStartsPerSecond: 2 }, 0, 0);
    expect(ledger.claim('f', 0)).toBe('s');
    expect(ledger.claim('f', 0)).toBe('s');
    expect(ledger.claim('f', 0)).toBeUndefined(); // slots, but no token
    expect(ledger.freeSlots('f')).toBe(98);
    expect(ledger.canClaim('f', 0)).toBe(false);
    expect(ledger.nextStartAt('f', 0)).toBe(500);
    expect(ledger.claim('f', 499)).toBeUndefined();
    expect(ledger.claim('f', 500)).toBe('s');
    expect(ledger.claim('f', 500)).toBeUndefined();
    expect(ledger.nextStartAt('f', 600)).toBe(1000);
    expect(ledger.claim('f', 5000)).toBe('s'); // a long pause refills the burst, not more
    expect(ledger.claim('f', 5000)).toBe('s');
    expect(ledger.claim('f', 5000)).toBeUndefined();
  });

  it('a server waiting for a token is passed over for one that has one', () => {
    const ledger = new SlotLedger('fill');
    ledger.addServer('slow', ['f'], { maxGames: 10, maxStartsPerSecond: 1 }, 5, 0);
    ledger.addServer('fast', ['f'], { maxGames: 10, maxStartsPerSecond: 0 }, 0, 0);
    expect(ledger.claim('f', 0)).toBe('slow'); // fewer free slots
    expect(ledger.claim('f', 10)).toBe('fast');
    expect(ledger.claim('f', 1000)).toBe('slow'); // token back: policy order again
    expect(ledger.nextStartAt('f', 1000)).toBe(1000); // fast can start now
  });

  it('nextStartAt is undefined when no hosting server has a free slot', () => {
    const ledger = new SlotLedger('fill');
    ledger.addServer('s', ['f'], { maxGames: 1, maxStartsPerSecond: 1 }, 0, 0);
    expect(ledger.claim('f', 0)).toBe('s');
    expect(ledger.nextStartAt('f', 0)).toBeUndefined();
    ledger.release('s'); // slot back, token still spent
    expect(ledger.nextStartAt('f', 0)).toBe(1000);
    expect(ledger.nextStartAt('other', 0)).toBeUndefined();
  });

  it('a shared server waiting for a token is re-admitted for all its factories', () => {
    const ledger = new SlotLedger('fill');
    ledger.addServer('s', ['f', 'g'], { maxGames: 10, maxStartsPerSecond: 1 }, 0, 0);
    expect(ledger.claim('f', 0)).toBe('s');
    expect(ledger.claim('g', 0)).toBeUndefined();
    expect(ledger.claim('f', 1000)).toBe('s'); // re-admitted through f
    expect(ledger.claim('g', 1500)).toBeUndefined(); // and f spent the token
    expect(ledger.claim('g', 2000)).toBe('s');
  });

  it('re-advertising a rate does not refill the burst', () => {
    const ledger = new SlotLedger('fill');
    ledger.addServer('s', ['f'], { maxGames: 10, maxStartsPerSecond: 1 }, 0, 0);
    expect(ledger.claim('f', 0)).toBe('s');
    ledger.setCapacity('s', { maxGames: 10, maxStartsPerSecond: 2 }, 0);
    expect(ledger.claim('f', 0)).toBe('s'); // burst 2, one spent
    expect(ledger.claim('f', 0)).toBeUndefined();
    ledger.setCapacity('s', { maxGames: 10, maxStartsPerSecond: 0 }, 0);
    expect(ledger.claim('f', 0)).toBe('s'); // unlimited
  });

  it('time never runs backwards for the ledger', () => {
    const ledger = new SlotLedger('fill');
    ledger.addServer('s', ['f'], { maxGames: 10, maxStartsPerSecond: 1 }, 0, 0);
    ledger.setCapacity('s', { maxGames: 10, maxStartsPerSecond: 1 }, 5000);
    expect(ledger.claim('f', 3000)).toBe('s'); // read as 5000
    expect(ledger.nextStartAt('f', 0)).toBe(6000);
  });
});

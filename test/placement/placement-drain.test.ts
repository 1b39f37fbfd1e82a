import { describe, expect, it } from 'vitest';
import { CreationQueue, Placement, SlotLedger } from '../../src/placement/index.js';

/**
 * Ledger and queue together, the way the coordinator drains the queue when a server frees a
 * slot: pop among that server's factories those that can claim now, then claim.
 */
function drainAfterSlotFreed(ledger: SlotLedger, queue: CreationQueue<null>, serverId: string, now: number): string[] {
  const started: string[] = [];
  for (;;) {
    const next = queue.pop((f) => ledger.canClaim(f, now), now, ledger.factoriesOf(serverId));
    if (next === undefined) return started;
    const claimed = ledger.claim(next.factory, now);
    expect(claimed).toBeDefined();
    ledger.confirm(claimed!);
    started.push(next.factory);
  }
}

describe('placement: servers shared by a popular and a rare factory', () => {
  it('the rare factory is not starved, and the popular one gets the larger share', () => {
    const ledger = new SlotLedger('spread');
    for (let k = 0; k < 4; k++) ledger.addServer(`s${k}`, ['popular', 'rare'], { maxGames: 5, maxStartsPerSecond: 0 }, 5, 0);
    const queue = new CreationQueue<null>();
    for (let i = 0; i < 400; i++) queue.push('popular', `p${i}`, null);
    for (let i = 0; i < 40; i++) queue.push('rare', `r${i}`, null);

    const started: string[] = [];
    let now = 0;
    for (let round = 0; round < 55; round++) {
      for (let k = 0; k < 4; k++) {
        now += 10;
        ledger.gameEnded(`s${k}`); // a game ends: one slot frees up
        started.push(...drainAfterSlotFreed(ledger, queue, `s${k}`, now));
      }
    }
    expect(started).toHaveLength(220); // every freed slot was used
    const rare = started.filter((f) => f === 'rare').length;
    expect(started.slice(0, 5)).toContain('rare'); // served promptly
    expect(rare).toBeGreaterThanOrEqual(15); // about 220 × 40 / 440 = 20
    expect(rare).toBeLessThanOrEqual(25);
    expect(ledger.freeSlots()).toBe(0);
  });

  it('a factory waiting on a rate-limited server becomes servable at nextStartAt', () => {
    const ledger = new SlotLedger('fill');
    ledger.addServer('s', ['f'], { maxGames: 10, maxStartsPerSecond: 1 }, 0, 0);
    const queue = new CreationQueue<null>();
    queue.push('f', 'a', null);
    queue.push('f', 'b', null);
    expect(drainAfterSlotFreed(ledger, queue, 's', 0)).toEqual(['f']);
    expect(queue.depth('f')).toBe(1);
    const at = ledger.nextStartAt('f', 0)!;
    expect(at).toBe(1000);
    expect(drainAfterSlotFreed(ledger, queue, 's', at)).toEqual(['f']);
  });
});

describe('placement: a request taken back from the server it failed on', () => {
  it('goes to another server with a free slot, at once or when it leaves the queue, and back to it only when no other has one', () => {
    const placement = new Placement('fill');
    // Fill prefers the fuller server: s1 runs more games, so every claim goes to it first.
    placement.addServer('s1', ['f'], { maxGames: 5, maxStartsPerSecond: 0 }, 3, 0);
    placement.addServer('s2', ['f'], { maxGames: 5, maxStartsPerSecond: 0 }, 0, 0);
    expect(placement.place('f', 'fresh', 0, 0)).toEqual({ serverId: 's1' });
    expect(placement.place('f', 'back', 0, 0, 's1')).toEqual({ serverId: 's2' });
    // From the queue: a request waiting ahead of it, then slots free up on both.
    const full = new Placement('fill');
    full.addServer('s1', ['f'], { maxGames: 1, maxStartsPerSecond: 0 }, 1, 0);
    full.addServer('s2', ['f'], { maxGames: 1, maxStartsPerSecond: 0 }, 1, 0);
    expect(full.place('f', 'waiting', 1, 0)).toEqual({ position: 1 });
    expect(full.place('f', 'back', 0, 0, 's1')).toEqual({ position: 1 }); // its original priority: first
    full.gameEnded('s1');
    full.gameEnded('s2');
    expect(full.drain(0).placed.map((p) => [p.requestId, p.serverId])).toEqual([
      ['back', 's2'],
      ['waiting', 's1'],
    ]);
    // The only server with a slot is the one it failed on: it goes there rather than wait.
    const lone = new Placement('fill');
    lone.addServer('s1', ['f'], { maxGames: 5, maxStartsPerSecond: 0 }, 0, 0);
    expect(lone.place('f', 'back', 0, 0, 's1')).toEqual({ serverId: 's1' });
  });
});

import { describe, expect, it } from 'vitest';
import { CreationQueue, SlotLedger } from '../../src/placement/index.js';

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

import { describe, expect, it } from 'vitest';
import { CreationQueue, DemandApportion, equalApportion, DecayingRate } from '../../src/placement/index.js';

const always = (): boolean => true;

function popAll<T>(queue: CreationQueue<T>, count: number, hasCapacity: (f: string) => boolean = always): string[] {
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const next = queue.pop(hasCapacity, i);
    if (next === undefined) break;
    out.push(next.ticketId);
  }
  return out;
}

describe('CreationQueue: one factory', () => {
  it('is FIFO, with positions that increase from 1', () => {
    const queue = new CreationQueue<string>();
    const seqs = ['a', 'b', 'c', 'd'].map((t) => queue.push('f', t, `payload-${t}`));
    expect(seqs).toEqual([1, 2, 3, 4]);
    expect(['a', 'b', 'c', 'd'].map((t) => queue.position(t))).toEqual([1, 2, 3, 4]);
    expect(queue.depth('f')).toBe(4);
    expect(queue.peek('f', 2)).toEqual(['a', 'b']);
    expect(queue.peek('f', 10)).toEqual(['a', 'b', 'c', 'd']);
    expect(queue.pop(always, 0)).toEqual({ factory: 'f', ticketId: 'a', payload: 'payload-a', priority: 1 });
    expect(queue.position('b')).toBe(1);
    expect(queue.position('a')).toBeUndefined();
    expect(popAll(queue, 10)).toEqual(['b', 'c', 'd']);
    expect(queue.depth()).toBe(0);
    expect(queue.pop(always, 0)).toBeUndefined();
  });

  it('remove takes a ticket out and closes the gap', () => {
    const queue = new CreationQueue<null>();
    for (const t of ['a', 'b', 'c']) queue.push('f', t, null);
    expect(queue.remove('b')).toBe(true);
    expect(queue.remove('b')).toBe(false);
    expect(queue.has('b')).toBe(false);
    expect(queue.position('c')).toBe(2);
    expect(queue.remove('a')).toBe(true); // the head
    expect(queue.position('c')).toBe(1);
    expect(popAll(queue, 10)).toEqual(['c']);
  });

  it('a request re-queued with its original priority goes back to the head', () => {
    const queue = new CreationQueue<null>();
    for (const t of ['a', 'b', 'c']) queue.push('f', t, null);
    const first = queue.pop(always, 0)!;
    queue.push('f', 'late', null);
    expect(queue.push('f', first.ticketId, null, first.priority)).toBe(first.priority);
    expect(queue.position('a')).toBe(1);
    expect(queue.peek('f', 10)).toEqual(['a', 'b', 'c', 'late']);
    expect(queue.push('f', 'new', null)).toBe(5); // sequence numbers keep counting
  });

  it('a restored priority beyond the counter pushes later arrivals behind it', () => {
    const queue = new CreationQueue<null>();
    queue.push('f', 'restored', null, 100);
    expect(queue.push('f', 'next', null)).toBe(101);
  });

  it('pushing a queued ticket again moves it', () => {
    const queue = new CreationQueue<null>();
    queue.push('f', 'a', null);
    queue.push('f', 'b', null);
    queue.push('g', 'a', null);
    expect(queue.depth('f')).toBe(1);
    expect(queue.depth('g')).toBe(1);
    expect(queue.depth()).toBe(2);
  });

  it('factories without capacity are skipped, and keep their requests', () => {
    const queue = new CreationQueue<null>();
    queue.push('full', 'x', null);
    queue.push('open', 'y', null);
    expect(queue.pop((f) => f === 'open', 0)?.ticketId).toBe('y');
    expect(queue.pop((f) => f === 'open', 0)).toBeUndefined();
    expect([...queue.waitingFactories()]).toEqual(['full']);
    expect(queue.pop(always, 0, ['open'])).toBeUndefined(); // `among` limits the choice
    expect(queue.pop(always, 0, ['full', 'unknown'])?.ticketId).toBe('x');
  });
});

describe('CreationQueue: apportioning across factories', () => {
  it('a rare factory is served promptly behind a long popular queue', () => {
    const queue = new CreationQueue<null>();
    for (let i = 0; i < 1000; i++) queue.push('popular', `p${i}`, null);
    queue.push('rare', 'r0', null);
    const served = popAll(queue, 3);
    expect(served).toContain('r0');
  });

  it('shares slots in proportion to demand, FIFO within each factory', () => {
    const queue = new CreationQueue<null>();
    for (let i = 0; i < 900; i++) queue.push('popular', `p${i}`, null);
    for (let i = 0; i < 100; i++) queue.push('rare', `r${i}`, null);
    const served = popAll(queue, 200);
    const rare = served.filter((t) => t.startsWith('r'));
    const popular = served.filter((t) => t.startsWith('p'));
    expect(rare.length).toBeGreaterThanOrEqual(15);
    expect(rare.length).toBeLessThanOrEqual(25);
    expect(popular.length).toBe(200 - rare.length);
    expect(rare).toEqual(rare.map((_, i) => `r${i}`));
    expect(popular).toEqual(popular.map((_, i) => `p${i}`));
  });

  it('recent requests count as demand, beyond what is queued', () => {
    const apportion = new DemandApportion({ recentHalfLifeMs: 60_000 });
    const queue = new CreationQueue<null>({ apportion });
    apportion.recordRequest('hot', 0, 1000); // matched into existing games, but popular
    for (let i = 0; i < 100; i++) queue.push('hot', `h${i}`, null);
    for (let i = 0; i < 100; i++) queue.push('cold', `c${i}`, null);
    const served = popAll(queue, 100);
    const hot = served.filter((t) => t.startsWith('h')).length;
    expect(hot).toBeGreaterThan(85);
    expect(hot).toBeLessThan(100); // cold still gets turns
  });

  it('with equal weights, factories take turns', () => {
    const queue = new CreationQueue<null>({ apportion: equalApportion });
    for (let i = 0; i < 3; i++) for (const f of ['a', 'b', 'c']) queue.push(f, `${f}${i}`, null);
    expect(popAll(queue, 9)).toEqual(['a0', 'b0', 'c0', 'a1', 'b1', 'c1', 'a2', 'b2', 'c2']);
  });

  it('idling earns no credit: a factory that comes back does not get a burst of turns', () => {
    const queue = new CreationQueue<null>({ apportion: equalApportion });
    for (let i = 0; i < 10; i++) queue.push('busy', `b${i}`, null);
    popAll(queue, 6);
    for (let i = 0; i < 4; i++) queue.push('back', `k${i}`, null);
    expect(popAll(queue, 4)).toEqual(['k0', 'b6', 'k1', 'b7']); // alternating from the start, no catch-up run
  });
});

describe('DecayingRate', () => {
  it('a decayed count halves every half-life and reads as a rate at steady state', () => {
    const rate = new DecayingRate(1000);
    rate.record(0, 8);
    expect(rate.count(1000)).toBeCloseTo(4);
    expect(rate.count(3000)).toBeCloseTo(1);
    const steady = new DecayingRate(1000);
    for (let t = 0; t <= 20_000; t += 100) steady.record(t); // 10 per second
    expect(steady.perSecond(20_000)).toBeGreaterThan(9.5);
    expect(steady.perSecond(20_000)).toBeLessThan(10.5);
  });
});

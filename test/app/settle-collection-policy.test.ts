import { describe, expect, it } from 'vitest';
import { SettleCollectionPolicy, type HeapReading, type SettleCollectionSettings } from '../../src/app/settle-collection-policy.js';

const MB = 1024 * 1024;
const settings: SettleCollectionSettings = { quietMs: 1_500, minGrowthBytes: 32 * MB, minGrowthRatio: 0.25, minIntervalMs: 30_000, maxPauseShare: 0.02, maxPauseMs: Infinity };

/** An old generation of `committed` MB with `used` MB in use (all of it unless said). */
const heap = (committed: number, used = committed): HeapReading => ({ committedBytes: committed * MB, usedBytes: used * MB });

/** A policy started at t = 0 with 40 MB live, and a fake clock stepped by the test. */
function policyAt(start = heap(40), s = settings) {
  let now = 0;
  const policy = new SettleCollectionPolicy(s, now, start);
  return {
    policy,
    /** One tick `ms` after the previous one. */
    tick: (ms: number, arrivals: number, reading: HeapReading) => policy.tick((now += ms), arrivals, reading),
    now: () => now,
  };
}

describe('the settle collection policy', () => {
  it('collects once arrivals have been quiet for the window and the heap grew enough', () => {
    const p = policyAt();
    expect(p.tick(250, 1_000, heap(100))).toBe(false); // arriving
    expect(p.tick(250, 5_000, heap(200))).toBe(false);
    expect(p.tick(1_000, 5_000, heap(200))).toBe(false); // quiet 1.0 s
    expect(p.tick(250, 5_000, heap(200))).toBe(false); // 1.25 s
    expect(p.tick(250, 5_000, heap(200))).toBe(true); // 1.5 s
  });

  it('waits while tickets keep arriving, however much the heap grew', () => {
    const p = policyAt();
    for (let i = 1; i <= 100; i++) expect(p.tick(1_000, i, heap(1_000))).toBe(false);
  });

  it('never collects without arrivals: growth alone is not a burst', () => {
    const p = policyAt();
    for (let i = 0; i < 20; i++) expect(p.tick(1_000, 0, heap(500))).toBe(false);
  });

  it('needs the absolute growth and the share of what the last mark-compact left', () => {
    const small = policyAt(heap(40));
    small.tick(250, 10, heap(60));
    expect(small.tick(2_000, 10, heap(71))).toBe(false); // +31 MB: under 32 MB
    expect(small.tick(250, 10, heap(73))).toBe(true); // +33 MB, and over a quarter of 40

    const large = policyAt(heap(800));
    large.tick(250, 10, heap(900));
    expect(large.tick(2_000, 10, heap(999))).toBe(false); // +199 MB: under a quarter of 800
    expect(large.tick(250, 10, heap(1_001))).toBe(true);
  });

  it("takes V8's own mark-compact as the new base: the garbage before it is gone", () => {
    const p = policyAt();
    p.tick(250, 10, heap(150));
    p.policy.markCompacted(heap(150, 140)); // a mark-compact late in the burst, its pages compact
    expect(p.tick(2_000, 10, heap(150))).toBe(false); // 10 MB past it
    expect(p.tick(250, 10, heap(180))).toBe(true); // 40 MB past it
  });

  it('counts the holes a mark-compact left in pages it kept: only compaction gives those back', () => {
    const p = policyAt();
    p.tick(250, 10, heap(1_200, 1_150));
    p.policy.markCompacted(heap(1_230, 700)); // 1M tickets: 700 MB live in 1,230 MB of pages
    expect(p.tick(2_000, 10, heap(1_230, 702))).toBe(true);
  });

  it('with both thresholds at 0 collects after any settled burst, even one the heap shrank over', () => {
    const p = policyAt(heap(40), { ...settings, minGrowthBytes: 0, minGrowthRatio: 0 });
    p.tick(250, 1, heap(30));
    expect(p.tick(2_000, 1, heap(30))).toBe(true);
  });

  it('after collecting, waits for new arrivals and for the interval', () => {
    const p = policyAt();
    p.tick(250, 10, heap(200));
    expect(p.tick(2_000, 10, heap(200))).toBe(true);
    p.policy.collected(p.now(), 100, heap(62, 60));
    expect(p.tick(5_000, 10, heap(200))).toBe(false); // no arrival since
    p.tick(250, 20, heap(200)); // a second burst at 7.5 s
    expect(p.tick(5_000, 20, heap(200))).toBe(false); // quiet and grown, but 30 s have not passed
    expect(p.tick(19_500, 20, heap(200))).toBe(false); // 29.75 s after the collection
    expect(p.tick(250, 20, heap(200))).toBe(true); // 30 s
  });

  it('spaces long pauses further apart: at most the given share of time in them', () => {
    const p = policyAt();
    p.tick(250, 10, heap(2_000));
    expect(p.tick(2_000, 10, heap(2_000))).toBe(true);
    p.policy.collected(p.now(), 1_000, heap(1_000)); // a 1 s pause: the next one 50 s later
    p.tick(250, 20, heap(2_000));
    expect(p.tick(49_500, 20, heap(2_000))).toBe(false); // 49.75 s
    expect(p.tick(250, 20, heap(2_000))).toBe(true); // 50 s
  });

  it('skips a collection whose pause would likely pass the bound, by the prior and then by what the last one measured', () => {
    const bounded = { ...settings, maxPauseMs: 500 };
    const p = policyAt(heap(40), bounded);
    p.tick(250, 10, heap(1_230, 1_150)); // a million tickets: ~1.1 GB in use, ~2.9 s at the prior rate
    expect(p.policy.estimatedPauseMs(heap(1_230, 1_150))).toBeCloseTo(1_150 * 2.5);
    for (let i = 0; i < 10; i++) expect(p.tick(2_000, 10, heap(1_230, 1_150))).toBe(false);
    // 160 MB in use: ~400 ms at the prior rate, within the bound.
    const q = policyAt(heap(40), bounded);
    q.tick(250, 10, heap(200, 160));
    expect(q.tick(2_000, 10, heap(200, 160))).toBe(true);
    // It measured 4 ms a MB here: 160 MB would now take ~640 ms, past the bound.
    q.policy.collected(q.now(), 640, heap(80, 78), heap(200, 160));
    q.tick(40_000, 20, heap(200, 160));
    expect(q.tick(2_000, 20, heap(200, 160))).toBe(false);
    expect(q.policy.estimatedPauseMs(heap(100, 100))).toBeCloseTo(400);
  });
});

import { describe, expect, it } from 'vitest';
import { ExpansionSchedule } from '../../src/competitive/index.js';
import { config, matcher, solo, steps } from './fixtures.js';

describe('expansion schedule', () => {
  const schedule = new ExpansionSchedule(steps([0, 1, 50], [10_000, 5, 100], [30_000, Infinity]));
  it.each([
    [0, 1],
    [9_999, 1],
    [10_000, 5],
    [29_999, 5],
    [30_000, Infinity],
    [1e9, Infinity],
  ])('after %i ms the window is %d', (wait, gap) => {
    expect(schedule.stepFor(wait).maxScoreGap).toBe(gap);
  });
  it('says when a window next widens', () => {
    expect(schedule.nextRelaxationAt(1_000, 5_000)).toBe(11_000);
    expect(schedule.nextRelaxationAt(1_000, 40_000)).toBeUndefined();
  });
  it('refuses a schedule that does not start at 0', () => {
    expect(() => new ExpansionSchedule(steps([5, 1]))).toThrow();
  });
});

describe('batch timing', () => {
  const c = config({ batch: { maxTickets: 3, intervalMs: 1_000 }, expansion: steps([0, 1], [10_000, Infinity]) });

  it('is not due while nobody waits', () => {
    expect(matcher(c).nextBatchAt()).toBeUndefined();
  });

  it('is due an interval after the first arrival', () => {
    const m = matcher(c);
    m.add(solo('a', 0, { enqueuedAt: 500 }));
    expect(m.nextBatchAt()).toBe(1_500);
  });

  it('is due at once when maxTickets wait', () => {
    const m = matcher(c);
    m.add(solo('a', 0, { enqueuedAt: 500 }));
    m.add(solo('b', 100, { enqueuedAt: 600 }));
    m.add(solo('c', 200, { enqueuedAt: 700 }));
    expect(m.nextBatchAt()).toBeLessThanOrEqual(700);
  });

  it('after a batch with no arrivals, waits until a leftover window widens', () => {
    const m = matcher(c);
    for (const [id, s] of [['a', 0], ['b', 100], ['c', 200]] as const) m.add(solo(id, s, { enqueuedAt: 0 }));
    expect(m.formGames(1_000)).toEqual([]);
    expect(m.nextBatchAt()).toBe(10_000);
    m.add(solo('d', 1, { enqueuedAt: 2_000 }));
    expect(m.nextBatchAt()).toBeLessThanOrEqual(2_000);
    expect(m.formGames(2_000)).toHaveLength(1);
    expect(m.nextBatchAt()).toBe(10_000);
  });

  it('is not due after everyone was matched', () => {
    const m = matcher(c);
    m.add(solo('a', 0));
    m.add(solo('b', 0));
    m.formGames(0);
    expect(m.nextBatchAt()).toBeUndefined();
    m.add(solo('c', 0, { enqueuedAt: 100 }));
    expect(m.nextBatchAt()).toBe(1_100);
  });
});

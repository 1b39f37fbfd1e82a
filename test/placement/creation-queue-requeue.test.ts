import { describe, expect, it } from 'vitest';
import { CreationQueue } from '../../src/placement/index.js';

describe('CreationQueue re-queue churn', () => {
  it('keeps has, depth and position right across many removals, re-queues and pops of the same ids', () => {
    const queue = new CreationQueue<number>();
    const priorities = new Map<string, number>();
    for (let k = 0; k < 200; k++) priorities.set(`t${k}`, queue.push(`f${k % 3}`, `t${k}`, k));
    // Far more removals than queued tickets, so departed keys are swept several times.
    for (let round = 0; round < 2_000; round++) {
      const id = `t${(round * 7) % 10}`;
      expect(queue.remove(id)).toBe(true);
      expect(queue.has(id)).toBe(false);
      expect(queue.position(id)).toBeUndefined();
      expect(queue.remove(id)).toBe(false);
      expect(queue.depth()).toBe(199);
      queue.push(`f${Number(id.slice(1)) % 3}`, id, 0, priorities.get(id));
      expect(queue.has(id)).toBe(true);
      expect(queue.depth()).toBe(200);
    }
    expect(queue.position('t0')).toBe(1);
    expect(queue.position('t9')).toBe(4);
    const served: string[] = [];
    for (let popped = queue.pop(() => true, 0); popped !== undefined; popped = queue.pop(() => true, 0)) {
      served.push(popped.ticketId);
      expect(queue.has(popped.ticketId)).toBe(false);
    }
    expect(served).toHaveLength(200);
    expect(new Set(served).size).toBe(200);
    expect(queue.depth()).toBe(0);
    expect(queue.has('t0')).toBe(false);
    queue.push('f0', 't0', 1);
    expect(queue.depth()).toBe(1);
    expect(queue.position('t0')).toBe(1);
  });
});

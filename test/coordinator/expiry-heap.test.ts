import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Timers } from '../../src/coordinator/ports.js';
import { ExpiryHeap } from '../../src/coordinator/tickets/expiry-heap.js';

/** A manual clock and timers: advance(t) runs every timer due by t, earliest first, at its own time. */
function manualTime() {
  let now = 0;
  let nextId = 0;
  const pending = new Map<number, { at: number; fn: () => void }>();
  const timers: Timers = {
    set(fn, ms) {
      const id = nextId++;
      pending.set(id, { at: now + Math.max(0, ms), fn });
      return () => pending.delete(id);
    },
  };
  const advance = (to: number) => {
    for (;;) {
      let first: [number, { at: number; fn: () => void }] | undefined;
      for (const entry of pending) if (entry[1].at <= to && (!first || entry[1].at < first[1].at)) first = entry;
      if (!first) break;
      pending.delete(first[0]);
      now = first[1].at;
      first[1].fn();
    }
    now = to;
  };
  return { timers, now: () => now, advance, pendingTimers: () => pending.size };
}

type Op = { kind: 'set'; key: number; ms: number } | { kind: 'delete'; key: number } | { kind: 'advance'; by: number };
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('set' as const), key: fc.integer({ min: 0, max: 20 }), ms: fc.integer({ min: 0, max: 100 }) }),
  fc.record({ kind: fc.constant('delete' as const), key: fc.integer({ min: 0, max: 20 }) }),
  fc.record({ kind: fc.constant('advance' as const), by: fc.integer({ min: 0, max: 60 }) }),
);

describe('ExpiryHeap', () => {
  it('fires exactly what a timer per key would, in the same order, at the same times', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 200 }), (ops) => {
        const time = manualTime();
        const fired: [string, number][] = [];
        const heap = new ExpiryHeap(time.timers, time.now, (key) => fired.push([key, time.now()]));
        // The model: one deadline per key, fired in (deadline, order set) order.
        const model = new Map<string, { due: number; seq: number }>();
        const expected: [string, number][] = [];
        let seq = 0;
        let now = 0;
        for (const o of ops) {
          if (o.kind === 'set') {
            heap.set(`k${o.key}`, o.ms);
            model.set(`k${o.key}`, { due: now + o.ms, seq: seq++ });
          } else if (o.kind === 'delete') {
            heap.delete(`k${o.key}`);
            model.delete(`k${o.key}`);
          } else {
            now += o.by;
            const due = [...model].filter(([, d]) => d.due <= now).sort(([, a], [, b]) => a.due - b.due || a.seq - b.seq);
            for (const [key, d] of due) {
              expected.push([key, d.due]);
              model.delete(key);
            }
            time.advance(now);
          }
        }
        expect(fired).toEqual(expected);
        expect(heap.size).toBe(model.size);
        // One timer at most, whatever the number of keys.
        expect(time.pendingTimers()).toBeLessThanOrEqual(1);
      }),
    );
  });

  it('keeps its heap bounded when deadlines are replaced again and again (compaction), and still fires once', () => {
    const time = manualTime();
    const fired: string[] = [];
    const heap = new ExpiryHeap(time.timers, time.now, (key) => fired.push(key));
    for (let i = 0; i < 5000; i++) heap.set(`k${i % 3}`, 1000 - (i % 7));
    time.advance(2000);
    expect(fired.sort()).toEqual(['k0', 'k1', 'k2']);
    expect(heap.size).toBe(0);
  });
});

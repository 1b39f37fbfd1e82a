import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DeadlineKind, Deadlines } from '../../src/coordinator/deadlines.js';

type Op =
  | { kind: 'set'; deadline: number; key: number; at: number }
  | { kind: 'delete'; deadline: number; key: number }
  | { kind: 'advance'; by: number };
const deadline = fc.constantFrom(DeadlineKind.TicketExpiry, DeadlineKind.CreateTimeout, DeadlineKind.Batch);
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('set' as const), deadline, key: fc.integer({ min: 0, max: 20 }), at: fc.integer({ min: 0, max: 100 }) }),
  fc.record({ kind: fc.constant('delete' as const), deadline, key: fc.integer({ min: 0, max: 20 }) }),
  fc.record({ kind: fc.constant('advance' as const), by: fc.integer({ min: 0, max: 60 }) }),
);

/** The model of both tests: one deadline per key, due in (time, order set) order. */
type Model = Map<string, { due: number; seq: number }>;

/** What a timer per key would fire by `now`, in order, taken out of the model. */
function fallDue(model: Model, now: number): string[] {
  const due = [...model].filter(([, d]) => d.due <= now).sort(([, a], [, b]) => a.due - b.due || a.seq - b.seq);
  for (const [key] of due) model.delete(key);
  return due.map(([key, d]) => `${key}@${d.due}`);
}

const nextDue = (model: Model): number => [...model.values()].reduce((min, d) => Math.min(min, d.due), Infinity);

describe('Deadlines', () => {
  it('pops exactly what a timer per (kind, id) would fire, in the same order, and says when the next one is due', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 200 }), (ops) => {
        const heap = new Deadlines();
        const popped: string[] = [];
        // The model: one deadline per (kind, id), due in (time, order set) order.
        const model: Model = new Map();
        const expected: string[] = [];
        let seq = 0;
        let now = 0;
        for (const o of ops) {
          if (o.kind === 'set') {
            const at = now + o.at;
            heap.set(o.deadline, `k${o.key}`, at);
            model.set(`${o.deadline}/k${o.key}`, { due: at, seq: seq++ });
          } else if (o.kind === 'delete') {
            heap.delete(o.deadline, `k${o.key}`);
            model.delete(`${o.deadline}/k${o.key}`);
          } else {
            now += o.by;
            expected.push(...fallDue(model, now));
            for (let d = heap.popDue(now); d !== undefined; d = heap.popDue(now)) popped.push(`${d.kind}/${d.id}@${d.at}`);
          }
          expect(heap.nextAt() ?? Infinity).toBe(nextDue(model));
        }
        expect(popped).toEqual(expected);
        expect(heap.size).toBe(model.size);
      }),
    );
  });

  it('pops in (due, order set) order after compactions rebuilt the heap', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 500 }), fc.boolean()), { minLength: 1200, maxLength: 3000 }), (sets) => {
        const heap = new Deadlines();
        const model: Model = new Map();
        sets.forEach(([key, at, drop], seq) => {
          if (drop && key % 4 === 0) {
            heap.delete(DeadlineKind.TicketExpiry, `k${key}`);
            model.delete(`k${key}`);
            return;
          }
          heap.set(DeadlineKind.TicketExpiry, `k${key}`, at);
          model.set(`k${key}`, { due: at, seq });
        });
        const expected = [...model].sort(([, a], [, b]) => a.due - b.due || a.seq - b.seq).map(([key, d]) => `${key}@${d.due}`);
        const popped: string[] = [];
        for (let d = heap.popDue(Infinity); d !== undefined; d = heap.popDue(Infinity)) popped.push(`${d.id}@${d.at}`);
        expect(popped).toEqual(expected);
      }),
      { numRuns: 30 },
    );
  });

  it('appended deadlines (never replaced, mostly in time order) fall due with the others in (due, order set) order', () => {
    type Step = { kind: 'set'; key: number; at: number } | { kind: 'delete'; key: number } | { kind: 'append'; at: number } | { kind: 'advance'; by: number };
    const step: fc.Arbitrary<Step> = fc.oneof(
      fc.record({ kind: fc.constant('set' as const), key: fc.integer({ min: 0, max: 10 }), at: fc.integer({ min: 0, max: 100 }) }),
      fc.record({ kind: fc.constant('delete' as const), key: fc.integer({ min: 0, max: 10 }) }),
      // Mostly in time order (a fixed offset from a clock that moves on), now and then earlier.
      fc.record({ kind: fc.constant('append' as const), at: fc.oneof(fc.constant(30), fc.constant(30), fc.integer({ min: 0, max: 40 })) }),
      fc.record({ kind: fc.constant('advance' as const), by: fc.integer({ min: 0, max: 25 }) }),
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 300 }), (steps) => {
        const deadlines = new Deadlines();
        const model: Model = new Map();
        const popped: string[] = [];
        const expected: string[] = [];
        let seq = 0;
        let appended = 0;
        let now = 0;
        for (const o of steps) {
          if (o.kind === 'set') {
            deadlines.set(DeadlineKind.TicketExpiry, `k${o.key}`, now + o.at);
            model.set(`${DeadlineKind.TicketExpiry}/k${o.key}`, { due: now + o.at, seq: seq++ });
          } else if (o.kind === 'delete') {
            deadlines.delete(DeadlineKind.TicketExpiry, `k${o.key}`);
            model.delete(`${DeadlineKind.TicketExpiry}/k${o.key}`);
          } else if (o.kind === 'append') {
            const id = `r${appended++}`;
            deadlines.append(DeadlineKind.Retention, id, now + o.at);
            model.set(`${DeadlineKind.Retention}/${id}`, { due: now + o.at, seq: seq++ });
          } else {
            now += o.by;
            expected.push(...fallDue(model, now));
            for (let d = deadlines.popDue(now); d !== undefined; d = deadlines.popDue(now)) popped.push(`${d.kind}/${d.id}@${d.at}`);
          }
          expect(deadlines.nextAt() ?? Infinity).toBe(nextDue(model));
          expect(deadlines.size).toBe(model.size);
        }
        expect(popped).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });

  it('takes thousands of appended deadlines in order while more arrive (the queue cuts what it took)', () => {
    const deadlines = new Deadlines();
    const popped: number[] = [];
    let next = 0;
    for (let t = 0; t < 5000; t++) {
      deadlines.append(DeadlineKind.Retention, `r${t}`, t + 30);
      for (let d = deadlines.popDue(t); d !== undefined; d = deadlines.popDue(t)) popped.push(Number(d.id.slice(1)));
    }
    for (let d = deadlines.popDue(Infinity); d !== undefined; d = deadlines.popDue(Infinity)) popped.push(Number(d.id.slice(1)));
    for (const id of popped) expect(id).toBe(next++);
    expect(next).toBe(5000);
    expect(deadlines.size).toBe(0);
  });

  it('keeps its heap bounded when deadlines are replaced again and again (compaction), and pops each once', () => {
    const heap = new Deadlines();
    for (let i = 0; i < 5000; i++) heap.set(DeadlineKind.TicketExpiry, `k${i % 3}`, 1000 - (i % 7));
    const popped: string[] = [];
    for (let d = heap.popDue(2000); d !== undefined; d = heap.popDue(2000)) popped.push(d.id);
    expect(popped.sort()).toEqual(['k0', 'k1', 'k2']);
    expect(heap.size).toBe(0);
  });
});

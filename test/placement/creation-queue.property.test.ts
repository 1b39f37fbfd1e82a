import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CreationQueue } from '../../src/placement/index.js';

/**
 * The queue against per-factory arrays kept sorted by priority: positions, depths, peeks and
 * "pop takes the head of a factory that has capacity" must agree after every operation.
 */
const FACTORIES = ['a', 'b', 'c'];
const TICKETS = Array.from({ length: 12 }, (_, i) => `t${i}`);

interface ModelEntry {
  ticketId: string;
  priority: number;
  arrival: number;
}

const op = fc.oneof(
  fc.record({ kind: fc.constant('push' as const), factory: fc.constantFrom(...FACTORIES), ticketId: fc.constantFrom(...TICKETS) }),
  fc.record({ kind: fc.constant('remove' as const), ticketId: fc.constantFrom(...TICKETS) }),
  fc.record({ kind: fc.constant('popRequeue' as const), open: fc.subarray(FACTORIES), requeue: fc.boolean() }),
);

describe('CreationQueue against sorted arrays', () => {
  it('positions, depths and heads match after every operation', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 80 }), (ops) => {
        const queue = new CreationQueue<null>();
        const model = new Map<string, ModelEntry[]>(FACTORIES.map((f) => [f, []]));
        let arrivals = 0;
        const drop = (ticketId: string): void => {
          for (const list of model.values()) {
            const i = list.findIndex((e) => e.ticketId === ticketId);
            if (i >= 0) list.splice(i, 1);
          }
        };
        const insert = (factory: string, e: ModelEntry): void => {
          const list = model.get(factory)!;
          list.push(e);
          list.sort((x, y) => x.priority - y.priority || x.arrival - y.arrival);
        };
        for (const o of ops) {
          if (o.kind === 'push') {
            drop(o.ticketId);
            const priority = queue.push(o.factory, o.ticketId, null);
            insert(o.factory, { ticketId: o.ticketId, priority, arrival: arrivals++ });
          } else if (o.kind === 'remove') {
            const had = [...model.values()].some((l) => l.some((e) => e.ticketId === o.ticketId));
            expect(queue.remove(o.ticketId)).toBe(had);
            drop(o.ticketId);
          } else {
            const next = queue.pop((f) => o.open.includes(f), 0);
            const heads = o.open.map((f) => model.get(f)![0]).filter((e) => e !== undefined);
            if (next === undefined) expect(heads).toEqual([]);
            else {
              expect(o.open).toContain(next.factory);
              expect(model.get(next.factory)![0]!.ticketId).toBe(next.ticketId);
              model.get(next.factory)!.shift();
              if (o.requeue) {
                queue.push(next.factory, next.ticketId, null, next.priority);
                insert(next.factory, { ticketId: next.ticketId, priority: next.priority, arrival: arrivals++ });
              }
            }
          }
          let total = 0;
          for (const [f, list] of model) {
            total += list.length;
            expect(queue.depth(f)).toBe(list.length);
            expect(queue.peek(f, 100)).toEqual(list.map((e) => e.ticketId));
            list.forEach((e, i) => expect(queue.position(e.ticketId)).toBe(i + 1));
          }
          expect(queue.depth()).toBe(total);
        }
      }),
      { numRuns: 300 },
    );
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InputPacer, MAX_WAITING_CALLS } from '../../src/transport/grpc/input-pacer.js';

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('InputPacer', () => {
  it('handles a turn’s share at once and the rest on later turns, in arrival order', async () => {
    const pacer = new InputPacer(() => undefined, 3);
    const seen: string[] = [];
    const a = (n: number) => seen.push(`a${n}`);
    const b = (n: number) => seen.push(`b${n}`);
    for (let i = 0; i < 4; i++) {
      pacer.push(a, i);
      pacer.push(b, i);
    }
    expect(seen).toEqual(['a0', 'b0', 'a1']);
    expect(pacer.waiting).toBe(5);
    await nextTurn();
    expect(seen).toEqual(['a0', 'b0', 'a1', 'b1', 'a2', 'b2']);
    await nextTurn();
    expect(seen).toEqual(['a0', 'b0', 'a1', 'b1', 'a2', 'b2', 'a3', 'b3']);
    expect(pacer.waiting).toBe(0);
  });

  it('queues behind what waits even when the turn has room, and handles at once again once drained', async () => {
    const pacer = new InputPacer(() => undefined, 2);
    const seen: number[] = [];
    const handle = (n: number) => seen.push(n);
    [1, 2, 3].forEach((n) => pacer.push(handle, n));
    await nextTurn(); // 3 handled; the queue is empty
    expect(seen).toEqual([1, 2, 3]);
    pacer.push(handle, 4);
    expect(seen).toEqual([1, 2, 3, 4]);
  });

  it('reports a handler that throws and goes on with the others', async () => {
    const errors: unknown[] = [];
    const pacer = new InputPacer((error) => errors.push(error), 1);
    const seen: number[] = [];
    const handle = (n: number) => {
      if (n === 2) throw new Error('bad input');
      seen.push(n);
    };
    [1, 2, 3].forEach((n) => pacer.push(handle, n));
    await nextTurn();
    await nextTurn();
    expect(seen).toEqual([1, 3]);
    expect(errors).toHaveLength(1);
  });

  it('tells who waits for it once nothing waits', async () => {
    const pacer = new InputPacer(() => undefined, 1);
    let drained = 0;
    pacer.whenDrained(() => drained++);
    expect(drained).toBe(1);
    [1, 2, 3].forEach((n) => pacer.push(() => undefined, n));
    pacer.whenDrained(() => drained++);
    await nextTurn();
    expect(drained).toBe(1);
    await nextTurn();
    expect(drained).toBe(2);
  });

  it('does not keep what it handled while a backlog lasts', async () => {
    const pacer = new InputPacer(() => undefined, 256);
    const seen: number[] = [];
    const handle = (n: number) => seen.push(n);
    let next = 0;
    // Each turn brings more than a turn's share: the queue never drains for 40 turns.
    for (let turn = 0; turn < 40; turn++) {
      for (let i = 0; i < 300; i++) pacer.push(handle, next++);
      await nextTurn();
    }
    const queue = (pacer as unknown as { inputs: unknown[] }).inputs;
    expect(queue.length).toBeLessThan(2 * 40 * (300 - 256) + 2048);
    while (pacer.waiting > 0) await nextTurn();
    expect(seen).toEqual(Array.from({ length: next }, (_, i) => i));
  });

  it('is full, for new calls, once more than MAX_WAITING_CALLS inputs wait', async () => {
    const pacer = new InputPacer(() => undefined, 1);
    const handle = () => undefined;
    for (let i = 0; i <= MAX_WAITING_CALLS + 1; i++) pacer.push(handle, i);
    expect(pacer.full).toBe(true);
    await nextTurn();
    expect(pacer.full).toBe(false);
  });

  it('handles every input once, in push order, never more than twice its share in one event-loop turn', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 8 }), fc.array(fc.integer({ min: 0, max: 20 }), { maxLength: 12 }), async (perTurn, bursts) => {
        const pacer = new InputPacer(() => undefined, perTurn);
        const seen: number[] = [];
        let turn = 0;
        const perLoopTurn = new Map<number, number>();
        const handle = (n: number) => {
          seen.push(n);
          perLoopTurn.set(turn, (perLoopTurn.get(turn) ?? 0) + 1);
        };
        let next = 0;
        for (const burst of bursts) {
          for (let i = 0; i < burst; i++) pacer.push(handle, next++);
          // The check phase of this loop turn (where the pacer's own turn ends), then the next.
          await nextTurn();
          turn++;
        }
        while (pacer.waiting > 0) {
          await nextTurn();
          turn++;
        }
        expect(seen).toEqual(Array.from({ length: next }, (_, i) => i));
        for (const count of perLoopTurn.values()) expect(count).toBeLessThanOrEqual(2 * perTurn);
      }),
      { numRuns: 60 },
    );
  });
});

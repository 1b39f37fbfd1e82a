import { describe, expect, it } from 'vitest';
import type { Effect } from '../../src/coordinator/effects.js';
import { ToldAfterWrites } from '../../src/app/told-after-writes.js';

/** A commit in flight the test settles by hand. */
function commit() {
  let settle!: (ok: boolean) => void;
  let fail!: (error: Error) => void;
  const promise = new Promise<boolean>((resolve, reject) => {
    settle = resolve;
    fail = reject;
  });
  return { promise, settle, fail };
}

const log = (n: number): Effect => ({ kind: 'log', level: 'info', fields: { n }, message: String(n) });
const flush = () => new Promise((r) => setTimeout(r, 0));

describe('ToldAfterWrites', () => {
  it('tells at once while nothing is in flight', () => {
    const told: Effect[] = [];
    const gate = new ToldAfterWrites(() => undefined, (e) => told.push(e));
    gate.tellOrHold(log(1));
    expect(told).toEqual([log(1)]);
  });

  it('holds what follows a write until its commit, then tells it in order, later commits after earlier ones', async () => {
    const told: number[] = [];
    let inFlight: Promise<boolean> | undefined;
    const gate = new ToldAfterWrites(() => inFlight, (e) => told.push((e as { fields: { n: number } }).fields.n));
    const a = commit();
    const b = commit();
    inFlight = a.promise;
    gate.tellOrHold(log(1));
    gate.tellOrHold(log(2));
    inFlight = b.promise; // the next batch of writes
    gate.tellOrHold(log(3));
    inFlight = undefined; // nothing in flight, but what waits goes first
    gate.tellOrHold(log(4));
    expect(told).toEqual([]);
    expect(gate.waiting).toBe(4);
    b.settle(true); // a later commit answered first still waits for the earlier group
    await flush();
    expect(told).toEqual([]);
    a.settle(true);
    await flush();
    expect(told).toEqual([1, 2, 3, 4]);
    expect(gate.waiting).toBe(0);
    gate.tellOrHold(log(5));
    expect(told).toEqual([1, 2, 3, 4, 5]);
  });

  it('a commit that fails still releases what waits on it (the store reports the failure)', async () => {
    const told: number[] = [];
    const a = commit();
    const gate = new ToldAfterWrites(() => a.promise, (e) => told.push((e as { fields: { n: number } }).fields.n));
    gate.tellOrHold(log(1));
    a.fail(new Error('MDB_MAP_FULL'));
    await flush();
    expect(told).toEqual([1]);
  });

  it("a fenced owner's commit that fails tells nothing that waited on it, and what waits on the next is told", async () => {
    const told: number[] = [];
    const a = commit();
    const b = commit();
    let inFlight: Promise<boolean> = a.promise;
    const gate = new ToldAfterWrites(() => inFlight, (e) => told.push((e as { fields: { n: number } }).fields.n), true);
    gate.tellOrHold(log(1));
    inFlight = b.promise;
    gate.tellOrHold(log(2));
    a.fail(new Error('shard 3: term 9 of node-a is over'));
    b.settle(true);
    await flush();
    expect(told).toEqual([2]);
  });

  it('what a listener causes while a group is told goes after the rest of that group', async () => {
    const told: number[] = [];
    const a = commit();
    let inFlight: Promise<boolean> | undefined = a.promise;
    const gate: ToldAfterWrites = new ToldAfterWrites(
      () => inFlight,
      (e) => {
        const n = (e as { fields: { n: number } }).fields.n;
        told.push(n);
        if (n === 1) gate.tellOrHold(log(10)); // a reentrant input (a stream gone) told from inside
      },
    );
    gate.tellOrHold(log(1));
    gate.tellOrHold(log(2));
    inFlight = undefined;
    a.settle(true);
    await flush();
    expect(told).toEqual([1, 2, 10]);
  });
});

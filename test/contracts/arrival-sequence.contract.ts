import { expect } from 'vitest';
import type { ArrivalSequence } from '../../src/cluster/ports.js';
import type { ContractCase } from './contract.js';

/** What every ArrivalSequence adapter must do. */
export const arrivalSequenceCases: readonly ContractCase<ArrivalSequence>[] = [
  {
    name: 'numbers are positive and strictly increasing',
    async run(make) {
      const seq = await make();
      let last = 0;
      for (let i = 0; i < 50; i++) {
        const n = await seq.next();
        expect(n).toBeGreaterThan(last);
        last = n;
      }
    },
  },
  {
    name: 'concurrent callers never get the same number',
    async run(make) {
      const seq = await make();
      const got = await Promise.all(Array.from({ length: 100 }, () => Promise.resolve(seq.next())));
      expect(new Set(got).size).toBe(100);
    },
  },
  {
    name: 'after observing a restored arrival, next() is greater than it',
    async run(make) {
      const seq = await make();
      await seq.next();
      await seq.observe(1000);
      expect(await seq.next()).toBeGreaterThan(1000);
    },
  },
  {
    name: 'observing an older arrival does not move the sequence back',
    async run(make) {
      const seq = await make();
      await seq.observe(500);
      const a = await seq.next();
      await seq.observe(3);
      expect(await seq.next()).toBeGreaterThan(a);
    },
  },
];

import { defineCase } from './case.js';

/**
 * Operations whose complexity is known, used to show the harness classifies correctly and can
 * fail. Keys are visited in a scrambled order (an odd multiplier modulo a power of two) so no
 * case benefits from walking memory in order.
 */
function scrambled(i: number, n: number): number {
  return Math.imul(i, 40503) & (n - 1);
}

/** Array.prototype.includes for a value near the end: the hidden O(n) the talk warns about. */
export const arrayIncludes = defineCase({
  name: 'reference: Array.prototype.includes near the end',
  budget: 'O(1)',
  setup(n) {
    return Array.from({ length: n }, (_, k) => k);
  },
  run(items, i) {
    return items.includes(items.length - 1 - (i & 7));
  },
});

export const mapLookup = defineCase({
  name: 'reference: Map.get',
  budget: 'O(1)',
  setup(n) {
    const map = new Map<number, number>();
    for (let k = 0; k < n; k++) map.set(k, k);
    return { map, n };
  },
  run({ map, n }, i) {
    return map.get(scrambled(i, n));
  },
});

export const binarySearch = defineCase({
  name: 'reference: binary search of a sorted array',
  budget: 'O(log n)',
  setup(n) {
    return Float64Array.from({ length: n }, (_, k) => 2 * k);
  },
  run(sorted, i) {
    const target = 2 * scrambled(i, sorted.length) + 1;
    let low = 0;
    let high = sorted.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (sorted[middle]! < target) low = middle + 1;
      else high = middle;
    }
    return low;
  },
});

export const sortCopy = defineCase({
  name: 'reference: sort n numbers',
  budget: 'O(n log n)',
  setup(n) {
    let seed = 12345;
    const unsorted = Float64Array.from({ length: n }, () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0));
    return { unsorted, scratch: new Float64Array(n) };
  },
  run({ unsorted, scratch }) {
    scratch.set(unsorted);
    return scratch.sort()[0];
  },
});

import { describe, expect, it } from 'vitest';
import { RecentIds } from '../../src/collections/recent-ids.js';

describe('RecentIds', () => {
  it('keeps the last `capacity` ids and forgets the oldest first', () => {
    const recent = new RecentIds(3);
    for (const id of ['a', 'b', 'c']) recent.add(id);
    expect(['a', 'b', 'c'].map((id) => recent.has(id))).toEqual([true, true, true]);
    recent.add('d');
    expect(recent.has('a')).toBe(false);
    expect(['b', 'c', 'd'].every((id) => recent.has(id))).toBe(true);
    expect(recent.size).toBe(3);
  });

  it('agrees with an insertion-ordered Set trimmed from the front, over many adds', () => {
    const recent = new RecentIds(50);
    const model = new Set<string>();
    for (let i = 0; i < 1000; i++) {
      const id = `o${i}`;
      recent.add(id);
      model.add(id);
      if (model.size > 50) model.delete(model.values().next().value!);
      if (i % 37 === 0) for (let j = Math.max(0, i - 60); j <= i; j++) expect(recent.has(`o${j}`)).toBe(model.has(`o${j}`));
    }
    expect(recent.size).toBe(model.size);
  });
});

import { describe, expect, it } from 'vitest';
import { memorySlopes, slopePerMinute } from '../../perf/soak/memory-slope.js';

describe('the soak memory slope', () => {
  it('is the least-squares slope per minute', () => {
    expect(slopePerMinute([{ minute: 0, value: 10 }, { minute: 1, value: 12 }, { minute: 2, value: 14 }])).toBeCloseTo(2);
    expect(slopePerMinute([{ minute: 0, value: 5 }])).toBe(0);
  });

  it('leaves the warm-up out: a climb in the first minutes then flat is flat', () => {
    const samples = [0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4].map((minute) => ({ minute, rssMb: minute < 2 ? 100 + 50 * minute : 200 + (minute % 1 === 0 ? 0.2 : -0.2), heapMb: minute < 2 ? 20 * minute : 40 }));
    const slopes = memorySlopes(samples, 2);
    expect(Math.abs(slopes.rssMbPerMin)).toBeLessThan(1);
    expect(slopes.heapMbPerMin).toBe(0);
  });
});

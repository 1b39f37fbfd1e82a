import { afterEach, describe, expect, it, vi } from 'vitest';
import { StoreHealth } from '../../src/storage/store-health.js';

describe('StoreHealth', () => {
  afterEach(() => vi.useRealTimers());

  it('stays failing until a probe lands, then says so once', async () => {
    vi.useFakeTimers();
    let room = false;
    const changes: (string | undefined)[] = [];
    const health = new StoreHealth(() => (room ? Promise.resolve() : Promise.reject(new Error('ENOSPC'))), 1000, (e) => changes.push(e?.message));
    expect(health.failing()).toBeUndefined();

    health.failed(new Error('No space left on device'));
    health.failed(new Error('No space left on device')); // a second failure: no second change
    expect(health.failing()?.message).toBe('No space left on device');
    await vi.advanceTimersByTimeAsync(3000); // three probes, no room
    expect(health.failing()).toBeDefined();

    room = true;
    await vi.advanceTimersByTimeAsync(1000);
    expect(health.failing()).toBeUndefined();
    expect(changes).toEqual(['No space left on device', undefined]);
    health.stop();
  });

  it('probes no more once stopped', async () => {
    vi.useFakeTimers();
    const probe = vi.fn(() => Promise.reject(new Error('ENOSPC')));
    const health = new StoreHealth(probe, 1000);
    health.failed(new Error('No space left on device'));
    await vi.advanceTimersByTimeAsync(2000);
    health.stop();
    await vi.advanceTimersByTimeAsync(5000);
    expect(probe).toHaveBeenCalledTimes(2);
  });
});

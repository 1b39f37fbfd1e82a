import { afterEach, describe, expect, it, vi } from 'vitest';
import { Placement } from '../../src/placement/index.js';
import { setup, settle } from './fixture.js';

/**
 * A server that starts games slowly: creations wait for its next start token. A flood of
 * capacity_changed messages from it must not pile up retry timers or drains: the core keeps one
 * DrainRetry deadline, and its host one timer.
 */
describe('rate-limited starts', () => {
  afterEach(() => vi.restoreAllMocks());

  it('15,000 capacity_changed messages leave one timer, and the next 3 s drain a handful of times', async () => {
    const { coordinator, timers, find } = setup();
    const channel = { orders: [] as unknown[], send: (o: unknown) => channel.orders.push(o), close: () => {} };
    const capacity = { maxGames: 1000, maxStartsPerSecond: 1 };
    coordinator.connectServer({ serverId: 's1', endpoint: 's1:7777', attributes: new Map(), templates: [], capacity, runningGames: [] }, channel);
    for (let i = 0; i < 50; i++) find(`t${i}`);
    await settle();
    const creates = () => channel.orders.filter((o) => (o as { kind: string }).kind === 'createGame').length;
    expect(creates()).toBe(1); // a burst of one, then one a second

    const drains = vi.spyOn(Placement.prototype, 'drain');
    for (let i = 0; i < 15_000; i++) coordinator.onServerEvent('s1', { kind: 'capacityChanged', capacity });
    expect(timers.pending).toBe(1);
    expect(coordinator.core.nextWakeAt()).toBeDefined();
    drains.mockClear();

    await timers.advance(3000);
    // One start a second (the third token may fall on the 3 s mark itself), and the retries that gave them.
    expect(creates()).toBeGreaterThanOrEqual(3);
    expect(creates()).toBeLessThanOrEqual(4);
    expect(drains.mock.calls.length).toBeLessThanOrEqual(10);
    expect(timers.pending).toBeLessThanOrEqual(2);
  });
});

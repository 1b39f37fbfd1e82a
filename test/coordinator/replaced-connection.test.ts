import { describe, expect, it } from 'vitest';
import type { ServerHello } from '../../src/coordinator/messages.js';
import { RecordingChannel, setup, settle } from './fixture.js';

/**
 * A newer connection of a server replaces the older one. Its creations in flight go back in line,
 * unless the new hello says the server has not answered them yet (a cluster node re-announcing a
 * server it still holds, possibly twice): those stay in flight, hold their slots, and the answer
 * on the new connection is theirs. Otherwise the ticket is ordered again and the late answer
 * refused, and the player seated twice.
 */
describe('a replacing hello with creations still unanswered', () => {
  const hello = (pendingCreations?: string[]): ServerHello => ({
    serverId: 's1',
    endpoint: 's1:7777',
    attributes: new Map(),
    templates: [],
    capacity: { maxGames: 1, maxStartsPerSecond: 0 },
    runningGames: [],
    ...(pendingCreations && { pendingCreations }),
  });

  it('keeps them in flight: no second order, the answer on the new connection assigns the ticket', async () => {
    const { coordinator, find } = setup();
    const first = new RecordingChannel();
    coordinator.connectServer(hello(), first);
    const x = find('x');
    await settle();
    const [order] = first.creates();
    const second = new RecordingChannel();
    coordinator.connectServer(hello([order!.requestId]), second);
    find('y'); // the one slot is still the order's: y waits in line
    await settle();
    expect(second.creates()).toEqual([]);
    coordinator.onServerEvent('s1', { kind: 'gameCreated', requestId: order!.requestId, gameId: 'g' });
    expect(second.orders.filter((o) => o.kind === 'rejected')).toEqual([]);
    expect(x.listener.assignment).toMatchObject({ gameId: 'g', reservationToken: order!.reservationToken });
    expect(second.creates()).toEqual([]); // g holds the server's one slot
    coordinator.onServerEvent('s1', { kind: 'gameEnded', gameId: 'g' });
    expect(second.creates().map((o) => o.playerIds)).toEqual([['y']]);
  });

  it('a kept creation the server never answers times out as any other, and its ticket is ordered again', async () => {
    const { coordinator, find, timers } = setup();
    const first = new RecordingChannel();
    coordinator.connectServer(hello(), first);
    find('x');
    await settle();
    const second = new RecordingChannel();
    coordinator.connectServer(hello([first.creates()[0]!.requestId]), second);
    await timers.advance(1000); // SOLO's createTimeoutMs
    expect(second.creates().map((o) => o.playerIds)).toEqual([['x']]);
  });

  it('without them in the hello (a server reconnecting on its own) they go back in line at once', async () => {
    const { coordinator, find } = setup();
    const first = new RecordingChannel();
    coordinator.connectServer(hello(), first);
    find('x');
    await settle();
    const second = new RecordingChannel();
    coordinator.connectServer(hello(), second);
    await settle();
    expect(second.creates().map((o) => o.playerIds)).toEqual([['x']]);
  });
});

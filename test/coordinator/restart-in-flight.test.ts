import { describe, expect, it } from 'vitest';
import type { ServerHello } from '../../src/coordinator/messages.js';
import { RecordingChannel, setup, settle } from './fixture.js';

/**
 * The coordinator dies while a CreateGame is in flight: the server creates the game anyway and
 * re-announces it (with the order's request id) to the restarted coordinator. The tickets placed in
 * it were stored with where their game went, so their retries get that game, not a refusal or a new one.
 */
describe('a restart while a game creation is in flight', () => {
  const hello = (serverId: string, requestId: string | undefined, playerIds: string[] = []): ServerHello => ({
    serverId,
    endpoint: `${serverId}:7777`,
    attributes: new Map(),
    templates: [],
    capacity: { maxGames: 5, maxStartsPerSecond: 0 },
    runningGames: [{ gameId: 'g', factory: 'party/region=eu', matchable: new Map(), playerIds, open: true, startedAt: 0, ...(requestId !== undefined && { requestId }) }],
  });

  async function crashWithOrderInFlight() {
    const before = setup();
    const s1 = before.connect('s1', 5);
    before.find('x', ['x1', 'x2'], 'party');
    await settle();
    const [order] = s1.creates();
    // No GameCreated reaches the coordinator, and no drain stores anything: it is killed.
    const after = setup(undefined, [...before.store.records.values()], before.store);
    return { order: order!, after };
  }

  it('gives the retry the re-announced game, its endpoint and its token; its players hold their seats', async () => {
    const { order, after } = await crashWithOrderInFlight();
    const s1 = new RecordingChannel();
    after.coordinator.connectServer(hello('s1', order.requestId, ['x1']), s1);
    const retry = after.find('x', ['x1', 'x2'], 'party');
    await settle();
    expect(retry.listener.error).toBeUndefined();
    expect(retry.listener.assignment).toEqual({
      gameId: 'g',
      serverId: 's1',
      serverEndpoint: 's1:7777',
      factory: 'party/region=eu',
      reservationToken: order.reservationToken,
      created: true,
      map: '',
      region: '',
      team: 0,
    });
    expect(s1.creates()).toEqual([]);
    expect(after.store.records.has('x')).toBe(false);
    // x2 had not arrived yet: their seat was held for them, and they may join.
    after.coordinator.onServerEvent('s1', { kind: 'playerJoined', gameId: 'g', playerId: 'x2' });
    expect(s1.orders.filter((o) => o.kind === 'rejected')).toEqual([]);
    const stats = after.coordinator.view.queryStats({ factory: 'party/region=eu', template: '', partition: new Map(), predicates: [], mode: 'all' }, after.timers.now);
    expect(stats).toMatchObject({ games: 1, players: 2, openSlots: 2 });
  });

  it('ties the game only to the server the order went to, by the order\'s request id', async () => {
    const { order, after } = await crashWithOrderInFlight();
    const other = new RecordingChannel();
    after.coordinator.connectServer(hello('s2', order.requestId, ['o1', 'o2', 'o3']), other);
    const retry = after.find('x', ['x1', 'x2'], 'party');
    await after.timers.advance(1000); // s1 does not come back
    // Not s2's game (and the party does not fit in what is left of it): a game of its own.
    expect(retry.listener.assignment?.gameId).not.toBe('g');
    expect(other.creates().map((o) => o.playerIds)).toEqual([['x1', 'x2']]);
  });

  it('a retry that comes before the server waits for it, and gets the game it re-announces', async () => {
    const { order, after } = await crashWithOrderInFlight();
    const retry = after.find('x', ['x1', 'x2'], 'party');
    await settle();
    expect(retry.listener.updates).toEqual([{ kind: 'queued', factory: 'party/region=eu', position: 0, estimatedWaitMs: 0 }]);
    const s1 = new RecordingChannel();
    after.coordinator.connectServer(hello('s1', order.requestId), s1);
    expect(retry.listener.assignment).toMatchObject({ gameId: 'g', serverId: 's1', reservationToken: order.reservationToken });
    expect(s1.creates()).toEqual([]);
  });

  it('a retry whose server does not come back within createTimeoutMs goes on as a new ticket', async () => {
    const { after } = await crashWithOrderInFlight();
    const s2 = after.connect('s2', 5);
    const retry = after.find('x', ['x1', 'x2'], 'party');
    await settle();
    expect(s2.creates()).toEqual([]);
    await after.timers.advance(1000); // SOLO's createTimeoutMs
    expect(s2.creates().map((o) => o.playerIds)).toEqual([['x1', 'x2']]);
    after.coordinator.onServerEvent('s2', { kind: 'gameCreated', requestId: s2.creates()[0]!.requestId, gameId: 'g2' });
    expect(retry.listener.assignment?.gameId).toBe('g2');
  });
});

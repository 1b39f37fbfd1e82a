import { describe, expect, it } from 'vitest';
import type { ServerHello } from '../../src/coordinator/messages.js';
import { DEFAULT_STORE_IN_FLIGHT_AFTER_MS } from '../../src/config/config.js';
import { RecordingChannel, setup, settle } from './fixture.js';

/**
 * The coordinator dies while a CreateGame is in flight: the server creates the game anyway and
 * re-announces it (with the order's request id) to the restarted coordinator. The tickets placed in
 * it were stored with where their game went once it went unconfirmed for `placement.storeInFlightAfterMs`,
 * so their retries get that game, not a refusal or a new one.
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

  /** `unconfirmedMs` after the order (by default past `placement.storeInFlightAfterMs`, so its tickets were stored). */
  async function crashWithOrderInFlight(unconfirmedMs = DEFAULT_STORE_IN_FLIGHT_AFTER_MS) {
    const before = setup();
    const s1 = before.connect('s1', 5);
    before.find('x', ['x1', 'x2'], 'party');
    await settle();
    const [order] = s1.creates();
    await before.timers.advance(unconfirmedMs);
    // No GameCreated reaches the coordinator, and no drain stores anything: it is killed.
    const after = setup(undefined, [...before.store.records.values()], before.store);
    return { order: order!, after };
  }

  it('within storeInFlightAfterMs of the order nothing of it was written: the retry is a new ticket, seated in the re-announced game as in any open one', async () => {
    const { order, after } = await crashWithOrderInFlight(DEFAULT_STORE_IN_FLIGHT_AFTER_MS - 1);
    expect(after.store.records.size).toBe(0);
    const s1 = new RecordingChannel();
    after.coordinator.connectServer(hello('s1', order.requestId), s1);
    const retry = after.find('x', ['x1', 'x2'], 'party');
    await settle();
    // Not tied to the order (its reservation lapses on the server): seats reserved anew.
    expect(retry.listener.assignment).toMatchObject({ gameId: 'g', serverId: 's1', created: false });
    expect(retry.listener.assignment?.reservationToken).not.toBe(order.reservationToken);
    expect(s1.orders).toEqual([expect.objectContaining({ kind: 'reserveSeats', gameId: 'g', playerIds: ['x1', 'x2'] })]);
  });

  it('a ticket that waited keeps its waiting record, and its place, while its creation is in flight and not yet stored', async () => {
    const before = setup();
    const s1 = before.connect('s1', 1);
    before.find('first', ['f1'], 'party');
    before.find('waits', ['w1'], 'party', new Map([['act', 'i:2']]));
    await settle();
    expect(before.store.records.get('waits')?.placed).toBeUndefined(); // queued behind the first: stored as waiting
    before.coordinator.onServerEvent('s1', { kind: 'gameCreated', requestId: s1.creates()[0]!.requestId, gameId: 'g1' });
    before.coordinator.onServerEvent('s1', { kind: 'gameEnded', gameId: 'g1' });
    await settle();
    expect(s1.creates().map((o) => o.playerIds)).toEqual([['f1'], ['w1']]); // the slot is free: its creation is ordered
    const kept = before.store.records.get('waits');
    expect(kept).toMatchObject({ arrival: 2 });
    expect(kept?.placed).toBeUndefined();
    await before.timers.advance(DEFAULT_STORE_IN_FLIGHT_AFTER_MS);
    expect(before.store.records.get('waits')?.placed).toMatchObject({ requestId: s1.creates()[1]!.requestId, serverId: 's1' });
  });

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
      party: ['x1', 'x2'],
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
    expect(retry.listener.updates).toEqual([{ kind: 'queued', factory: 'party/region=eu', position: 0, estimatedWaitMs: undefined }]);
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

  describe('the server answers the order late, on the connection it announced with the order pending', () => {
    // What a cluster node says when it re-announces a server it still holds to a shard's new owner.
    const pending = (serverId: string, requestId: string): ServerHello => ({ ...hello(serverId, undefined), runningGames: [], pendingCreations: [requestId] });

    it('confirmed before the retry: the retry gets the game, its token, and the game takes a slot', async () => {
      const { order, after } = await crashWithOrderInFlight();
      const s1 = new RecordingChannel();
      after.coordinator.connectServer(pending('s1', order.requestId), s1);
      after.coordinator.onServerEvent('s1', { kind: 'gameCreated', requestId: order.requestId, gameId: 'g' });
      expect(s1.orders.filter((o) => o.kind === 'rejected')).toEqual([]);
      const retry = after.find('x', ['x1', 'x2'], 'party');
      await settle();
      expect(retry.listener.assignment).toMatchObject({ gameId: 'g', serverId: 's1', serverEndpoint: 's1:7777', reservationToken: order.reservationToken });
      expect(s1.creates()).toEqual([]);
      expect(after.coordinator.view.servers()).toMatchObject([{ serverId: 's1', games: 1 }]);
    });

    it('retried first: the retry waits for the answer instead of being ordered a second game', async () => {
      const { order, after } = await crashWithOrderInFlight();
      const s1 = new RecordingChannel();
      after.coordinator.connectServer(pending('s1', order.requestId), s1);
      const retry = after.find('x', ['x1', 'x2'], 'party');
      await settle();
      expect(retry.listener.assignment).toBeUndefined();
      expect(s1.creates()).toEqual([]);
      after.coordinator.onServerEvent('s1', { kind: 'gameCreated', requestId: order.requestId, gameId: 'g' });
      expect(retry.listener.assignment).toMatchObject({ gameId: 'g', reservationToken: order.reservationToken });
      expect(s1.creates()).toEqual([]);
    });

    it('the order fails late: its waiting ticket goes on as new at once', async () => {
      const { order, after } = await crashWithOrderInFlight();
      const s1 = new RecordingChannel();
      after.coordinator.connectServer(pending('s1', order.requestId), s1);
      const retry = after.find('x', ['x1', 'x2'], 'party');
      await settle();
      after.coordinator.onServerEvent('s1', { kind: 'gameCreationFailed', requestId: order.requestId, reason: 'no map' });
      expect(s1.orders.filter((o) => o.kind === 'rejected')).toEqual([]);
      expect(s1.creates().map((o) => o.playerIds)).toEqual([['x1', 'x2']]);
      expect(retry.listener.assignment).toBeUndefined();
    });

    it('never answered: the ticket goes on as new when the order’s window ends', async () => {
      const { order, after } = await crashWithOrderInFlight();
      const s1 = new RecordingChannel();
      after.coordinator.connectServer(pending('s1', order.requestId), s1);
      after.find('x', ['x1', 'x2'], 'party');
      await settle();
      expect(s1.creates()).toEqual([]);
      await after.timers.advance(1000); // SOLO's createTimeoutMs, from the order
      expect(s1.creates().map((o) => o.playerIds)).toEqual([['x1', 'x2']]);
    });

    it('a server whose own hello does not list the order: the retry goes on as new at once', async () => {
      const { after } = await crashWithOrderInFlight();
      const s1 = after.connect('s1', 5);
      after.find('x', ['x1', 'x2'], 'party');
      await settle();
      expect(s1.creates().map((o) => o.playerIds)).toEqual([['x1', 'x2']]);
    });

    it('a late confirmation nobody waits for any more is refused, as any unknown request id', async () => {
      const { order, after } = await crashWithOrderInFlight();
      const s1 = after.connect('s1', 5);
      const retry = after.find('x', ['x1', 'x2'], 'party');
      await settle();
      after.coordinator.onServerEvent('s1', { kind: 'gameCreated', requestId: s1.creates()[0]!.requestId, gameId: 'g2' });
      expect(retry.listener.assignment?.gameId).toBe('g2');
      after.coordinator.onServerEvent('s1', { kind: 'gameCreated', requestId: order.requestId, gameId: 'g' });
      expect(s1.orders.filter((o) => o.kind === 'rejected').map((o) => o.kind === 'rejected' && o.reason)).toEqual([expect.stringContaining(`unknown request_id "${order.requestId}"`)]);
    });
  });
});

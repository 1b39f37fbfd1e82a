import { describe, expect, it } from 'vitest';
import { valueKey } from '../../src/attributes/attribute-value.js';
import { setup, settle } from './fixture.js';

/** The coordinator core on a manual clock: faults and time without sleeping. */
describe('coordinator core, deterministic', () => {
  it('takes back creations a server does not confirm in time, re-places them, and backs the server off', async () => {
    const { coordinator, timers, connect, find } = setup();
    const deaf = connect('deaf', 1);
    const a = find('a');
    await settle();
    const b = find('b');
    await settle();
    expect(deaf.creates().map((o) => o.playerIds)).toEqual([['a']]);
    expect(b.listener.updates.at(-1)).toMatchObject({ kind: 'queued', position: 1 });

    const good = connect('good', 5);
    await settle();
    // b had a free slot on good at once; a is still waiting for deaf's answer.
    expect(good.creates().map((o) => o.playerIds)).toEqual([['b']]);
    coordinator.onServerEvent('good', { kind: 'gameCreated', requestId: good.creates()[0]!.requestId, gameId: 'g-b' });
    expect(b.listener.assignment?.gameId).toBe('g-b');
    // Taken back after the timeout: fill still prefers deaf (fewest free slots), but a request
    // taken back from a server goes to another with a free slot first (it went back to deaf until
    // the third timeout in a row backed deaf off).
    await timers.advance(1000);
    expect(deaf.creates().map((o) => o.playerIds)).toEqual([['a']]);
    expect(good.creates().map((o) => o.playerIds)).toEqual([['b'], ['a']]);
    coordinator.onServerEvent('good', { kind: 'gameCreated', requestId: good.creates()[1]!.requestId, gameId: 'g-a' });
    expect(a.listener.assignment).toMatchObject({ gameId: 'g-a', serverId: 'good', created: true });
    // A late confirmation from the deaf server is rejected, not double-counted.
    coordinator.onServerEvent('deaf', { kind: 'gameCreated', requestId: deaf.creates()[0]!.requestId, gameId: 'late' });
    expect(deaf.orders.at(-1)).toMatchObject({ kind: 'rejected' });
  });

  it('backs off a server that keeps failing creations, then gives it work again', async () => {
    const { coordinator, timers, connect, find } = setup();
    const flaky = connect('flaky', 10);
    const fail = () => {
      const order = flaky.creates().at(-1)!;
      coordinator.onServerEvent('flaky', { kind: 'gameCreationFailed', requestId: order.requestId, reason: 'boom' });
    };
    const x = find('x');
    await settle();
    fail();
    await settle();
    fail();
    await settle();
    expect(flaky.creates()).toHaveLength(3);
    fail(); // third failure in a row: backed off
    await settle();
    expect(flaky.creates()).toHaveLength(3);
    expect(x.listener.assignment).toBeUndefined();
    await timers.advance(1000);
    expect(flaky.creates()).toHaveLength(4);
    coordinator.onServerEvent('flaky', { kind: 'gameCreated', requestId: flaky.creates()[3]!.requestId, gameId: 'g' });
    expect(x.listener.assignment?.gameId).toBe('g');
  });

  it('does not back off a server that refused creations for want of a free slot (another shard took it), and places again', async () => {
    const { coordinator, connect, find } = setup();
    const busy = connect('busy', 10);
    const full = () => {
      const order = busy.creates().at(-1)!;
      coordinator.onServerEvent('busy', { kind: 'gameCreationFailed', requestId: order.requestId, reason: 'no free slot', noFreeSlot: true });
    };
    const x = find('x');
    for (let i = 0; i < 5; i++) {
      await settle();
      full();
    }
    await settle();
    expect(busy.creates()).toHaveLength(6);
    expect(coordinator.view.servers()[0]!.backedOff).toBe(false);
    coordinator.onServerEvent('busy', { kind: 'gameCreated', requestId: busy.creates()[5]!.requestId, gameId: 'g' });
    expect(x.listener.assignment?.gameId).toBe('g');
  });

  it('frees a reserved seat whose player never joins, and lets that player find again', async () => {
    const { coordinator, timers, connect, find } = setup();
    const server = connect('s', 10);
    const act1 = new Map([['act', valueKey({ kind: 'int', value: 1n })]]);
    const first = find('t1', ['p1'], 'party', act1);
    await settle();
    coordinator.onServerEvent('s', { kind: 'gameCreated', requestId: server.creates()[0]!.requestId, gameId: 'g1' });
    coordinator.onServerEvent('s', { kind: 'playerJoined', gameId: 'g1', playerId: 'p1' });
    expect(first.listener.assignment?.gameId).toBe('g1');

    const second = find('t2', ['p2'], 'party', act1);
    expect(second.listener.assignment).toMatchObject({ gameId: 'g1', created: false });
    expect(server.orders.at(-1)).toMatchObject({ kind: 'reserveSeats', gameId: 'g1', playerIds: ['p2'] });
    // p2 holds a seat: a second find for p2 is refused while the reservation lasts.
    expect(() => find('t3', ['p2'], 'party', act1)).toThrow(/in game "g1"/);
    await timers.advance(5000);
    const third = find('t4', ['p2'], 'party', act1);
    expect(third.listener.assignment?.gameId).toBe('g1');
  });

  it('ends a ticket that outlives its time to live with DEADLINE_EXCEEDED and frees its players', async () => {
    const { timers, connect, find } = setup();
    connect('full', 0);
    const t = find('t');
    await timers.advance(60_000);
    expect(t.listener.error?.code).toBe('DEADLINE_EXCEEDED');
    expect(() => find('t-again', ['t'])).not.toThrow();
  });

  it('stores only tickets that wait, and restores them at their original place after a restart', async () => {
    const before = setup();
    before.connect('full', 0);
    before.find('early');
    before.find('late');
    await settle();
    expect([...before.store.records.keys()]).toEqual(['early', 'late']);

    const after = setup(undefined, [...before.store.records.values()], before.store);
    const server = after.connect('back', 0);
    const late = after.find('late', ['late']);
    const fresh = after.find('fresh', ['fresh']);
    const early = after.find('early', ['early']);
    await settle();
    expect(late.listener.updates.at(-1)).toMatchObject({ kind: 'queued' });
    // Places count the restored tickets not yet retried that arrived earlier: 'early' is ahead of 'late' and 'fresh' until it comes back.
    expect([late, fresh, early].map((t) => t.listener.updates.filter((u) => u.kind === 'queued').map((u) => (u as { position: number }).position))).toEqual([[2], [3], [1]]);
    after.coordinator.onServerEvent('back', { kind: 'capacityChanged', capacity: { maxGames: 3, maxStartsPerSecond: 0 } });
    await settle();
    expect(server.creates().map((o) => o.playerIds[0])).toEqual(['early', 'late', 'fresh']);
    void fresh;
    void early;
  });
});

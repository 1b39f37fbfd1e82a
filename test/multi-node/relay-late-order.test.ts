import { describe, expect, it } from 'vitest';
import type { ServerHello, ServerOrder } from '../../src/coordinator/messages.js';
import { silentLog } from '../../src/coordinator/ports.js';
import { RelayGateway, type ReannouncingChannel } from '../../src/redis/relay/relay-gateway.js';
import { ManualTimers } from '../coordinator/fixture.js';
import { FakeRelay } from './fake-relay.js';
import { LEASE_MS, SOLO_CONFIG as CONFIG } from './in-process-cluster.js';

/**
 * A sharded node announces a server's stream to a shard's owner again without the stream closing
 * (a new owner, or the same owner twice in a race). An order the owner decided on the earlier
 * announcement can still be on its way; it was dropped as meant for a connection gone, yet its
 * owner may already have told a client of it (a seat reserved in an open game): the client held
 * a seat the server never heard of, and the owner's view, rebuilt from the newer hello, gave that
 * seat to someone else. Such a reservation now reaches the server, and the owner is told of the
 * server again with the seat. A creation is still not sent (nobody was told of it; it may have
 * been placed on another server since).
 */
describe('an order for an earlier announcement of a stream the node still holds', () => {
  const hello: ServerHello = { serverId: 's', endpoint: 's:1', attributes: new Map(), templates: [], capacity: { maxGames: 4, maxStartsPerSecond: 0 }, runningGames: [] };
  const reserve: ServerOrder = { kind: 'reserveSeats', gameId: 'g1', playerIds: ['p2'], reservationToken: 'tok', expiresInMs: 10_000 };

  function world() {
    const timers = new ManualTimers();
    const relay = new FakeRelay(() => timers.now);
    const gateway = new RelayGateway(relay.gateway('c', LEASE_MS), 'c', CONFIG.templates, silentLog, timers, LEASE_MS / 3);
    const received: ServerOrder[] = [];
    let announced = 0;
    const channel: ReannouncingChannel = {
      send: (order) => received.push(order),
      close: () => {},
      reannounce: () => ({ ...hello, runningGames: [{ gameId: 'g1', factory: 'solo', matchable: new Map(), playerIds: announced++ > 0 ? ['p1', 'p2'] : ['p1'], open: true, startedAt: 0 }] }),
    };
    /** An order the owner wrote to this node's out stream for connection `conn`. */
    const orderFor = (conn: number) => relay.owner('x', LEASE_MS).commit(relay.fence, [{ kind: 'answer', node: 'c', message: { k: 'order', serverId: 's', conn, order: reserve } }]);
    const hellos = () => relay.sent.filter((m) => m.k === 'hello').map((m) => (m.k === 'hello' ? { conn: m.conn, players: m.hello.runningGames.flatMap((g) => g.playerIds) } : undefined));
    return { timers, relay, gateway, channel, received, orderFor, hellos };
  }

  it('reaches the server, and the owner hears of the server again with the seat it made', async () => {
    const { timers, relay, gateway, channel, received, orderFor, hellos } = world();
    await relay.owner('a', LEASE_MS).acquire();
    await gateway.watchOwner();
    gateway.connectServer(hello, channel); // connection 1
    // The shard's owner changes: the stream is announced again (connection 2) and stays open.
    await timers.advance(LEASE_MS + 1);
    await relay.owner('b', LEASE_MS).acquire();
    await gateway.watchOwner();
    expect(hellos().map((h) => h?.conn)).toEqual([1, 2]);

    await orderFor(1); // decided on connection 1, arriving now
    await gateway.pump(0);
    await Promise.resolve();
    expect(received).toEqual([reserve]);
    expect(hellos()).toEqual([{ conn: 1, players: [] }, { conn: 2, players: ['p1'] }, { conn: 3, players: ['p1', 'p2'] }]);
    expect(relay.sent.filter((m) => m.k === 'bye')).toEqual([]);
  });

  it('a burst of them is announced once; a creation ordered there, or an order for a stream that closed, is answered with a bye', async () => {
    const { timers, relay, gateway, channel, received, orderFor, hellos } = world();
    await relay.owner('a', LEASE_MS).acquire();
    await gateway.watchOwner();
    gateway.connectServer(hello, channel);
    await timers.advance(LEASE_MS + 1);
    await relay.owner('b', LEASE_MS).acquire();
    await gateway.watchOwner();
    await orderFor(1);
    await orderFor(1);
    await gateway.pump(0);
    await Promise.resolve();
    expect(received).toHaveLength(2);
    expect(hellos().map((h) => h?.conn)).toEqual([1, 2, 3]);

    // A creation ordered there is not sent: nobody was told of it, and it may be placed elsewhere since.
    await relay.owner('x', LEASE_MS).commit(relay.fence, [{ kind: 'answer', node: 'c', message: { k: 'order', serverId: 's', conn: 2, order: { kind: 'createGame', requestId: 'r1', factory: 'solo', partition: new Map(), matchable: new Map(), playerIds: ['p3'], seatTeams: [], reservationToken: 't', confirmWithinMs: 1000, map: '', region: '' } } }]);
    await gateway.pump(0);
    expect(received).toHaveLength(2);
    expect(relay.sent.filter((m) => m.k === 'bye')).toMatchObject([{ serverId: 's', conn: 2 }]);

    // The server reconnects on a new stream: the old stream's connections are gone.
    gateway.connectServer(hello, { send: () => {}, close: () => {} }); // connection 4
    await orderFor(3);
    await gateway.pump(0);
    expect(received).toHaveLength(2);
    expect(relay.sent.filter((m) => m.k === 'bye')).toMatchObject([{ serverId: 's', conn: 2 }, { serverId: 's', conn: 3 }]);
  });
});

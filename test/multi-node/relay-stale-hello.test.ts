import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import type { ServerChannel, ServerHello, ServerOrder } from '../../src/coordinator/messages.js';
import type { MatchmakingError } from '../../src/errors/index.js';
import { LEASE_MS, Player, relayWorld, settle } from './in-process-cluster.js';

/**
 * An owner that stepped down while its read of the inbox was blocked still receives
 * the requests that arrive meanwhile; they stay pending under it until the next owner claims
 * them a lease later, behind requests sent after them. A node's hello claimed that late must not
 * replace the newer connection the same node announced since (the owner would close that one,
 * and with it the server's stream on its node).
 */
const CONFIG = parseConfig(`
placement: { policy: fill, createTimeoutMs: 60000, maxQueuedPerFactory: 100, ticketTtlSeconds: 600 }
factories:
  - { name: bravo, cooperative: { maxPlayers: 1 } }
`);

const HELLO: ServerHello = { serverId: 's', endpoint: 's:1', attributes: new Map(), templates: [], capacity: { maxGames: 4, maxStartsPerSecond: 0 }, runningGames: [] };

describe('a hello claimed late from a stepped-down owner', () => {
  it('does not replace the newer connection its node announced since (the server keeps its stream), nor undo a newer grant', async () => {
    const { timers, relay, nodes: [a, b, c] } = relayWorld(CONFIG, 'a', 'b', 'c');
    await a.seat.keepLease();
    await c.gateway.watchOwner(); // c knows a as the owner
    await a.seat.close(); // a hands the lease over (a real node's keeper releases it)
    await b.seat.keepLease();
    expect(b.seat.owner).toBe(true);

    // The server says hello through c; a's read, blocked when it stepped down, receives it.
    const closed: MatchmakingError[] = [];
    const orders: ServerOrder[] = [];
    const granted = (maxGames: number) => ({ ...HELLO, capacity: { maxGames, maxStartsPerSecond: 0 } });
    const channel: ServerChannel & { reannounce(): ServerHello } = { send: (o) => void orders.push(o), close: (e) => void closed.push(e), reannounce: () => granted(3) };
    c.gateway.connectServer(HELLO, channel);
    c.gateway.onServerEvent('s', { kind: 'capacityChanged', capacity: granted(3).capacity }); // the grant loop moved a slot away
    expect(await relay.owner('a', LEASE_MS).readInbox(10, 0)).toHaveLength(2);
    // c sees the owner changed and announces the server to b again, on a newer connection.
    await c.gateway.watchOwner();
    await settle([b, c]);
    expect(b.core!.view.servers().map((s) => s.serverId)).toEqual(['s']);
    c.gateway.onServerEvent('s', { kind: 'capacityChanged', capacity: granted(2).capacity }); // and another
    await settle([b, c]);
    const capacity = () => b.core!.view.servers()[0]?.capacity.maxGames;
    expect(capacity()).toBe(2);

    // A lease later b claims the stale hello a never applied.
    for (let beat = 0; beat < 4; beat++) {
      await timers.advance(LEASE_MS / 3);
      await c.gateway.watchOwner(); // c's heartbeat stays alive
      await b.seat.keepLease();
    }
    expect(b.seat.owner).toBe(true);
    await settle([b, c]);
    expect(closed).toEqual([]);
    expect(b.core!.view.servers().map((s) => s.serverId)).toEqual(['s']);
    expect(capacity()).toBe(2);
  });

  it("from another node, older than the hello the server moved with since, does not move the server back there", async () => {
    const { timers, relay, nodes: [a, b, c, d] } = relayWorld(CONFIG, 'a', 'b', 'c', 'd');
    await a.seat.keepLease();
    await c.gateway.watchOwner();
    await a.seat.close();
    await b.seat.keepLease();
    await d.gateway.watchOwner(); // d knows b as the owner

    // The server says hello through c (a's blocked read takes it), then its node dies and it
    // says hello through d, which b applies.
    const onC: ServerOrder[] = [];
    const onD: ServerOrder[] = [];
    c.gateway.connectServer(HELLO, { send: (o) => void onC.push(o), close: () => {} });
    expect(await relay.owner('a', LEASE_MS).readInbox(10, 0)).toHaveLength(1);
    d.gateway.connectServer(HELLO, { send: (o) => void onD.push(o), close: () => {} });
    await settle([b, d]);

    // A lease later b claims c's hello: older than d's, it does not route the server back to c.
    for (let beat = 0; beat < 4; beat++) {
      await timers.advance(LEASE_MS / 3);
      await d.gateway.watchOwner();
      await b.seat.keepLease();
    }
    await settle([b, d]);
    const player = new Player('t1');
    d.gateway.find({ ...player.request(), template: 'bravo', partition: new Map() }, player);
    await settle([b, d]);
    expect(onD.filter((o) => o.kind === 'createGame')).toHaveLength(1);
    expect(onC).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import { valueKey } from '../../src/attributes/attribute-value.js';
import { ArrivalCounter, LocalDelivery, PlayerClaims } from '../../src/cluster/in-process/index.js';
import type { ClusterPorts } from '../../src/cluster/ports.js';
import { parseConfig } from '../../src/config/load.js';
import { Coordinator } from '../../src/coordinator/coordinator.js';
import type { FindRequest } from '../../src/coordinator/messages.js';
import { silentLog } from '../../src/coordinator/ports.js';
import { InProcessPlacement } from '../../src/placement/index.js';
import { ManualTimers, RecordingChannel, RecordingListener, SOLO, settle } from './fixture.js';

/** Every call answers a tick later, as a shared store's adapter would. */
function asynchronous(): ClusterPorts {
  const later = <T>(value: T) => new Promise<T>((resolve) => setImmediate(() => resolve(value)));
  const arrivals = new ArrivalCounter();
  const players = new PlayerClaims();
  const orders = new LocalDelivery();
  return {
    arrivals: { next: () => later(arrivals.next()), observe: (n) => later(arrivals.observe(n)) },
    players: {
      claim: (t, p) => later(players.claim(t, p)),
      release: (t, p) => later(players.release(t, p)),
      holder: (p) => later(players.holder(p)),
    },
    orders: {
      attach: (s, sink) => later(orders.attach(s, sink)),
      detach: (s, sink) => later(orders.detach(s, sink)),
      deliver: (s, d) => later(orders.deliver(s, d)),
    },
  };
}

const request = (ticketId: string, playerId: string): FindRequest => ({
  ticketId,
  template: 'solo',
  party: [{ playerId, score: undefined }],
  partition: new Map([['region', valueKey({ kind: 'string', value: 'eu' })]]),
  matchable: new Map(),
  latenciesMs: new Map(),
  preferredMaps: [],
  vetoedMaps: [],
});

describe('the core with cluster ports that answer later (the seam a shared store uses)', () => {
  it('assigns tickets, and refuses a player already finding through the listener instead of a throw', async () => {
    const timers = new ManualTimers();
    const config = parseConfig(SOLO);
    let id = 0;
    const coordinator = new Coordinator(
      config,
      { now: () => timers.now, timers, newId: () => `id${++id}`, random: () => 0.5, log: silentLog, cluster: asynchronous() },
      new InProcessPlacement(config.placement.policy, () => timers.now),
    );
    const channel = new RecordingChannel();
    coordinator.connectServer(
      { serverId: 's1', endpoint: 's1:1', attributes: new Map(), templates: [], capacity: { maxGames: 5, maxStartsPerSecond: 0 }, runningGames: [] },
      channel,
    );
    const first = new RecordingListener();
    const second = new RecordingListener();
    coordinator.find(request('t1', 'alice'), first);
    coordinator.find(request('t2', 'alice'), second);
    for (let i = 0; i < 5; i++) await settle();
    expect(second.error?.code).toBe('ALREADY_EXISTS');
    expect(second.error?.message).toContain('"t1"');
    const create = channel.creates()[0]!;
    expect(create.playerIds).toEqual(['alice']);
    coordinator.onServerEvent('s1', { kind: 'gameCreated', requestId: create.requestId, gameId: 'g1' });
    expect(first.assignment).toMatchObject({ gameId: 'g1', serverEndpoint: 's1:1' });
    expect(coordinator.view.ticket('t1')?.arrival).toBe(1);
  });
});

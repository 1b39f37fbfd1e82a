import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { Coordinator } from '../../src/coordinator/coordinator.js';
import { silentLog } from '../../src/coordinator/ports.js';
import { InProcessPlacement, type PlacementPort } from '../../src/placement/index.js';
import { ManualTimers, RecordingChannel, RecordingListener, SOLO, settle } from './fixture.js';
import { valueKey } from '../../src/attributes/attribute-value.js';

/**
 * The placement port is asynchronous (a shared store may answer later): every answer must be
 * checked against what happened meanwhile. This port holds each answer until the test releases
 * it, wrapping the in-process adapter.
 */
class HeldPlacement implements PlacementPort {
  private readonly held: (() => void)[] = [];
  readonly calls: string[] = [];
  holding = true;
  constructor(private readonly inner: PlacementPort) {}

  /** Lets every held answer through, in order. */
  async deliver(): Promise<void> {
    while (this.held.length > 0) this.held.shift()!();
    await settle();
  }

  private hold<T>(name: string, call: () => Promise<T>): Promise<T> {
    this.calls.push(name);
    const result = call(); // takes effect now, in call order; only the answer is late
    if (!this.holding) return result;
    return new Promise((resolve, reject) => this.held.push(() => void result.then(resolve, reject)));
  }

  addServer: PlacementPort['addServer'] = (...a) => this.hold('addServer', () => this.inner.addServer(...a));
  removeServer: PlacementPort['removeServer'] = (...a) => this.hold('removeServer', () => this.inner.removeServer(...a));
  setCapacity: PlacementPort['setCapacity'] = (...a) => this.hold('setCapacity', () => this.inner.setCapacity(...a));
  gameEnded: PlacementPort['gameEnded'] = (...a) => this.hold('gameEnded', () => this.inner.gameEnded(...a));
  recordDemand: PlacementPort['recordDemand'] = (...a) => this.inner.recordDemand(...a);
  place: PlacementPort['place'] = (...a) => this.hold('place', () => this.inner.place(...a));
  release: PlacementPort['release'] = (...a) => this.hold('release', () => this.inner.release(...a));
  confirm: PlacementPort['confirm'] = (...a) => this.hold('confirm', () => this.inner.confirm(...a));
  withdraw: PlacementPort['withdraw'] = (...a) => this.hold('withdraw', () => this.inner.withdraw(...a));
  drain: PlacementPort['drain'] = (...a) => this.hold('drain', () => this.inner.drain(...a));
  position: PlacementPort['position'] = (...a) => this.hold('position', () => this.inner.position(...a));
  head: PlacementPort['head'] = (...a) => this.hold('head', () => this.inner.head(...a));
  depth: PlacementPort['depth'] = (...a) => this.inner.depth(...a);
  freeSlots: PlacementPort['freeSlots'] = (...a) => this.inner.freeSlots(...a);
}

function setupHeld() {
  const timers = new ManualTimers();
  const config = parseConfig(SOLO);
  const inner = new InProcessPlacement(config.placement.policy, () => timers.now);
  const placement = new HeldPlacement(inner);
  let id = 0;
  const coordinator = new Coordinator(
    config,
    { now: () => timers.now, timers, newId: () => `id${++id}`, random: () => 0.5, log: silentLog },
    placement,
  );
  const connect = (serverId: string, maxGames: number) => {
    const channel = new RecordingChannel();
    coordinator.connectServer(
      { serverId, endpoint: `${serverId}:1`, attributes: new Map(), templates: [], capacity: { maxGames, maxStartsPerSecond: 0 }, runningGames: [] },
      channel,
    );
    return channel;
  };
  const find = (ticketId: string) => {
    const listener = new RecordingListener();
    coordinator.find(
      {
        ticketId,
        template: 'solo',
        party: [{ playerId: ticketId, score: undefined }],
        partition: new Map([['region', valueKey({ kind: 'string', value: 'eu' })]]),
        matchable: new Map(),
        latenciesMs: new Map(),
        preferredMaps: [],
        vetoedMaps: [],
      },
      listener,
    );
    return listener;
  };
  return { coordinator, placement, inner, connect, find, timers };
}

describe('an asynchronous placement port', () => {
  it('gives back a slot claimed for a creation whose ticket was cancelled while the port answered', async () => {
    const { coordinator, placement, inner, connect, find } = setupHeld();
    const server = connect('s', 1);
    await placement.deliver();
    find('gone');
    expect(placement.calls).toContain('place');
    expect(await inner.freeSlots()).toBe(0); // claimed, answer held
    coordinator.cancel('gone');
    await placement.deliver();
    expect(server.creates()).toHaveLength(0);
    placement.holding = false;
    await settle();
    expect(await inner.freeSlots()).toBe(1); // the claim was given back
  });

  it('withdraws a queued request whose ticket left while the port answered, and serves the next', async () => {
    const { coordinator, placement, inner, connect, find } = setupHeld();
    const server = connect('s', 0);
    await placement.deliver();
    find('first');
    const second = find('second');
    await placement.deliver();
    expect(await inner.depth('solo/region=eu')).toBe(2);
    coordinator.cancel('first');
    placement.holding = false;
    await settle();
    expect(await inner.depth('solo/region=eu')).toBe(1);
    coordinator.onServerEvent('s', { kind: 'capacityChanged', capacity: { maxGames: 1, maxStartsPerSecond: 0 } });
    await settle();
    expect(server.creates().map((o) => o.playerIds)).toEqual([['second']]);
    expect(second.error).toBeUndefined();
  });

  it('re-places a creation whose server left between the claim and the answer', async () => {
    const { coordinator, placement, connect, find } = setupHeld();
    const leaving = connect('leaving', 1);
    await placement.deliver();
    const ticket = find('t');
    coordinator.disconnectServer('leaving', leaving);
    const staying = connect('staying', 1);
    placement.holding = false;
    await placement.deliver();
    await settle();
    expect(leaving.creates()).toHaveLength(0);
    expect(staying.creates().map((o) => o.playerIds)).toEqual([['t']]);
    coordinator.onServerEvent('staying', { kind: 'gameCreated', requestId: staying.creates()[0]!.requestId, gameId: 'g' });
    expect(ticket.assignment?.serverId).toBe('staying');
  });
});

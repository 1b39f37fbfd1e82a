import { describe, expect, it } from 'vitest';
import { valueKey } from '../../src/attributes/attribute-value.js';
import { parseConfig } from '../../src/config/load.js';
import type { FindRequest, ServerChannel, ServerOrder } from '../../src/coordinator/messages.js';
import type { MatchmakingError } from '../../src/errors/index.js';
import { ManualTimers, RecordingListener, SOLO, testCore } from './fixture.js';

/** The edge that runs a core: it claims, applies each step in order, once, and keeps one timer. */
const EU = new Map([['region', valueKey({ kind: 'string', value: 'eu' })]]);
const request = (ticketId: string, players = [ticketId]): FindRequest => ({
  ticketId,
  template: 'solo',
  party: players.map((playerId) => ({ playerId, score: undefined })),
  partition: EU,
  matchable: new Map(),
  latenciesMs: new Map(),
  preferredMaps: [],
  vetoedMaps: [],
});
const hello = (serverId: string, maxGames: number) => ({ serverId, endpoint: `${serverId}:1`, attributes: new Map(), templates: [], capacity: { maxGames, maxStartsPerSecond: 0 }, runningGames: [] });

describe('CoreHost', () => {
  it('refuses a player already finding before the core sees the find, and frees them once their ticket ends', () => {
    const timers = new ManualTimers();
    const host = testCore(parseConfig(SOLO), timers);
    host.connectServer(hello('s', 0), { send() {}, close() {} });
    host.find(request('a', ['p']), new RecordingListener());
    expect(() => host.find(request('b', ['p']), new RecordingListener())).toThrow(/"p" is already finding a game in ticket "a"/);
    expect(host.view.ticket('b')).toBeUndefined();
    expect(host.cancel('a')).toBe(true);
    expect(() => host.find(request('b', ['p']), new RecordingListener())).not.toThrow();
  });

  it('a refused find gives back only the players it claimed: a live ticket with the same id keeps its own', () => {
    const timers = new ManualTimers();
    const host = testCore(parseConfig(SOLO), timers);
    host.connectServer(hello('s', 0), { send() {}, close() {} });
    host.find(request('a', ['p']), new RecordingListener());
    // The same id for another party: refused, and "q" claimed for it on the way is freed; "p" stays held by "a".
    expect(() => host.find(request('a', ['p', 'q']), new RecordingListener())).toThrow(/already used by a different request/);
    expect(() => host.find(request('c', ['q']), new RecordingListener())).not.toThrow();
    expect(() => host.find(request('d', ['p']), new RecordingListener())).toThrow(/already finding/);
  });

  it('applies the effects of an input that comes in while a step is being applied after that step, in order', () => {
    const timers = new ManualTimers();
    const host = testCore(parseConfig(SOLO), timers);
    const seen: string[] = [];
    // The first connection's stream, when closed by its replacement, reports itself gone at once
    // (as a gRPC stream does): that input arrives in the middle of the hello's effects.
    const first: ServerChannel = {
      send: (order: ServerOrder) => seen.push(`first:${order.kind}`),
      close: (error: MatchmakingError) => {
        seen.push(`first closed: ${error.code}`);
        host.disconnectServer('s', first);
        seen.push('first reported gone');
      },
    };
    const second: ServerChannel = { send: (order) => seen.push(`second:${order.kind}`), close: () => seen.push('second closed') };
    host.connectServer(hello('s', 1), first);
    host.find(request('t'), new RecordingListener());
    expect(seen).toEqual(['first:createGame']);
    host.connectServer(hello('s', 1), second);
    // The replacement's effects run to the end (its CreateGame for t goes to the new stream);
    // the old stream's "gone" changes nothing, since it was already replaced.
    expect(seen).toEqual(['first:createGame', 'first closed: ABORTED', 'first reported gone', 'second:createGame']);
    expect(host.view.servers().map((s) => s.serverId)).toEqual(['s']);
  });

  it('keeps one timer, at the core deadline that comes first, and calls the core when it falls', async () => {
    const timers = new ManualTimers();
    const config = parseConfig(SOLO);
    const host = testCore(config, timers);
    host.connectServer(hello('s', 0), { send() {}, close() {} });
    const listeners = ['a', 'b', 'c'].map((id) => {
      const listener = new RecordingListener();
      host.find(request(id), listener);
      return listener;
    });
    expect(timers.pending).toBe(1);
    expect(host.core.nextWakeAt()).toBe(timers.now + 1000); // the queue-position refresh
    await timers.advance(config.placement.ticketTtlMs);
    expect(listeners.map((l) => l.error?.code)).toEqual(['DEADLINE_EXCEEDED', 'DEADLINE_EXCEEDED', 'DEADLINE_EXCEEDED']);
    expect(timers.pending).toBeLessThanOrEqual(1);
  });
});

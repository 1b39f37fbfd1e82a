import { describe, expect, it } from 'vitest';
import { valueKey } from '../../src/attributes/attribute-value.js';
import type { FindRequest } from '../../src/coordinator/messages.js';
import type { ServerHello } from '../../src/coordinator/messages.js';
import { RecordingChannel, RecordingListener, settle, setup } from './fixture.js';

/** Regression tests for defects found in the coordinator core by review and by the fuzzer. */

const DUEL = `
placement: { policy: fill, createTimeoutMs: 1000, maxQueuedPerFactory: 100, ticketTtlSeconds: 60 }
factories:
  - name: duel
    partitioning: { region: [eu] }
    competitive:
      teams: 2
      teamSize: 1
      batch: { maxTickets: 2, intervalMs: 100 }
      expansion:
        - { afterSeconds: 0, maxScoreGap: 1000 }
`;

const EU = new Map([['region', valueKey({ kind: 'string', value: 'eu' })]]);

const request = (ticketId: string, template: string, playerId: string, score?: number): FindRequest => ({
  ticketId,
  template,
  party: [{ playerId, score }],
  partition: EU,
  matchable: new Map(),
  latenciesMs: new Map(),
  preferredMaps: [],
  vetoedMaps: [],
});

describe('defects found in the core', () => {
  it('a restored ticket retried before older ones already hears its restored position first', async () => {
    const before = setup();
    before.connect('full', 0);
    for (const id of ['a', 'b', 'c']) before.find(id);
    await settle();
    const after = setup(undefined, [...before.store.records.values()], before.store);
    after.connect('back', 0);
    const c = after.find('c');
    await settle();
    const queued = c.listener.updates.filter((u) => u.kind === 'queued');
    expect(queued[0]).toMatchObject({ kind: 'queued', position: 3 });
    const a = after.find('a');
    await settle();
    expect(a.listener.updates.find((u) => u.kind === 'queued')).toMatchObject({ position: 1 });
  });

  it('a creation a server never confirmed goes to another server with a free slot, not back to it', async () => {
    // Under the fill policy the failing server stayed first in line: the same creation went back to
    // it until its breaker rested it, three timeouts later (a server accepting and never confirming).
    const { coordinator, timers, connect } = setup(DUEL);
    const servers = { s1: connect('s1', 10), s2: connect('s2', 10) };
    coordinator.find(request('p1', 'duel', 'p1', 1500), new RecordingListener());
    coordinator.find(request('p2', 'duel', 'p2', 1510), new RecordingListener());
    await timers.advance(200);
    const [first, other] = servers.s1.creates().length === 1 ? (['s1', 's2'] as const) : (['s2', 's1'] as const);
    const [create] = servers[first].creates();
    expect(create).toBeDefined();
    await timers.advance(1000); // createTimeoutMs: taken back
    const retried = servers[other].creates();
    expect(retried.map((c) => c.requestId)).toEqual([create!.requestId]);
    expect(servers[first].creates()).toHaveLength(1);
  });

  it('QueryStats on a competitive factory counts the duels it formed while they run', async () => {
    const { coordinator, timers, connect } = setup(DUEL);
    const server = connect('s1', 10);
    coordinator.find(request('p1', 'duel', 'p1', 1500), new RecordingListener());
    coordinator.find(request('p2', 'duel', 'p2', 1510), new RecordingListener());
    await timers.advance(200);
    const [create] = server.creates();
    expect(create).toBeDefined();
    coordinator.onServerEvent('s1', { kind: 'gameCreated', requestId: create!.requestId, gameId: 'g1' });
    await timers.advance(1000);
    const stats = coordinator.view.queryStats({ factory: '', template: 'duel', partition: new Map(), predicates: [], mode: 'all' }, timers.now);
    expect(stats).toMatchObject({ games: 1, players: 2, openGames: 0 });
    expect(stats.maxDurationMs).toBe(1000);
    coordinator.onServerEvent('s1', { kind: 'gameEnded', gameId: 'g1' });
    expect(coordinator.view.queryStats({ factory: '', template: 'duel', partition: new Map(), predicates: [], mode: 'all' }, timers.now).games).toBe(0);
  });

  it('a hello re-announcing games that break the rules counts what it can of each (seats, slot) and says what it did not', () => {
    const { coordinator, timers } = setup();
    const game = (gameId: string, playerIds: string[], startedAt = timers.now - 1000, factory = 'party/region=eu') => ({
      gameId,
      factory,
      matchable: new Map(),
      playerIds,
      open: true,
      startedAt,
    });
    const hello: ServerHello = {
      serverId: 's1',
      endpoint: 's1:7777',
      attributes: new Map(),
      templates: ['party'],
      capacity: { maxGames: 8, maxStartsPerSecond: 0 },
      runningGames: [
        game('ok', ['a', 'b']),
        game('too-many', ['c', 'd', 'e', 'f', 'g']),
        game('twice', ['h', 'h']),
        game('future', ['i'], timers.now + 60_000),
        game('other-game', ['a', 'm']),
        game('ok', ['z']),
        game('not-hosted', ['n'], timers.now - 1000, 'solo/region=eu'),
        game('ok2', ['j']),
        game('ok3', ['k']),
        game('over-capacity', ['l']),
      ],
    };
    const channel = new RecordingChannel();
    expect(coordinator.connectServer(hello, channel)).toEqual(['party/region=eu']);
    const rejections = channel.orders.filter((o) => o.kind === 'rejected').map((o) => (o.kind === 'rejected' ? o.reason : ''));
    expect(rejections).toEqual([
      'hello.running_games[too-many]: 5 players, more than the factory\'s maximum of 4: 1 not counted ("g")',
      'hello.running_games[twice]: player "h" is listed twice: counted once',
      'hello.running_games[future]: started_at is 60000 ms in the future: taken as now',
      'hello.running_games[other-game]: player "a" holds a seat in another game: not counted in this one',
      'hello.running_games[ok]: listed twice: counted once',
      'hello.running_games[not-hosted]: factory "solo/region=eu" is not one this server hosts: its slot is counted, the game is not adopted',
      'hello.running_games[over-capacity]: more running games than the server\'s max_games (8): counted, and no new game goes to it until enough end',
    ]);
    // Every game holds its slot; all but the one of a factory it does not host are adopted, with the seats they could count.
    expect(coordinator.view.snapshot().games).toBe(8);
    expect(coordinator.view.servers()[0]).toMatchObject({ games: 8 });
    expect(coordinator.view.freeSlots()).toBe(0);
    const stats = coordinator.view.queryStats({ factory: 'party/region=eu', template: '', partition: new Map(), predicates: [], mode: 'all' }, timers.now);
    expect(stats.players).toBe(2 + 4 + 1 + 1 + 1 + 1 + 1 + 1);
    // The adopted games' seats count, but a hello's word alone does not keep the players it names
    // from finding another game (a server could name strangers): only seats the coordinator gave do.
    const listener = new RecordingListener();
    expect(() => coordinator.find(request('t', 'party', 'a'), listener)).not.toThrow();
    expect(() => coordinator.find(request('t2', 'party', 'm'), new RecordingListener())).not.toThrow();
    // The game that only held a slot ends like any other: 9 games ran on 8 slots, two ended, one is free.
    coordinator.onServerEvent('s1', { kind: 'gameEnded', gameId: 'not-hosted' });
    expect(coordinator.view.freeSlots()).toBe(0);
    coordinator.onServerEvent('s1', { kind: 'gameEnded', gameId: 'ok' });
    expect(channel.orders.filter((o) => o.kind === 'rejected')).toHaveLength(7);
    expect(coordinator.view.freeSlots()).toBe(1);
  });
});

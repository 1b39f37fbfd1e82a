import { describe, expect, it } from 'vitest';
import type { ServerHello, ServerOrder } from '../../src/coordinator/messages.js';
import { valueKey } from '../../src/attributes/attribute-value.js';
import type { FindRequest } from '../../src/coordinator/messages.js';
import { RecordingChannel, RecordingListener, setup, settle } from './fixture.js';

/** What a game server's reports may change: only its own games, and only the seats the coordinator gave. */

const rejections = (channel: RecordingChannel) =>
  channel.orders.filter((o): o is Extract<ServerOrder, { kind: 'rejected' }> => o.kind === 'rejected').map((o) => o.reason);

const PARTY = 'party/region=eu';

function helloOf(serverId: string, runningGames: ServerHello['runningGames'] = [], maxGames = 5): ServerHello {
  return { serverId, endpoint: `${serverId}:7777`, attributes: new Map(), templates: [], capacity: { maxGames, maxStartsPerSecond: 0 }, runningGames };
}

const findRequest = (playerId: string, template: string, score?: number): FindRequest => ({
  ticketId: playerId,
  template,
  party: [{ playerId, score }],
  partition: new Map([['region', valueKey({ kind: 'string', value: 'eu' })]]),
  matchable: new Map(),
  latenciesMs: new Map(),
  preferredMaps: [],
  vetoedMaps: [],
});

const running = (gameId: string, playerIds: string[], startedAt: number) => ({ gameId, factory: PARTY, matchable: new Map(), playerIds, open: true, startedAt });

describe('player_joined', () => {
  it('seats only players the coordinator reserved for that game, up to its size; others are rejected and change nothing', async () => {
    const { coordinator, timers, connect, find } = setup();
    const good = connect('good', 5);
    const a = find('a', ['a'], 'party');
    await settle();
    const [create] = good.creates();
    coordinator.onServerEvent('good', { kind: 'gameCreated', requestId: create!.requestId, gameId: 'g-good' });
    expect(a.listener.assignment?.gameId).toBe('g-good');
    coordinator.onServerEvent('good', { kind: 'playerJoined', gameId: 'g-good', playerId: 'a' });
    // A party reserved into the open game may join it.
    const b = find('b', ['b'], 'party');
    expect(b.listener.assignment?.gameId).toBe('g-good');
    coordinator.onServerEvent('good', { kind: 'playerJoined', gameId: 'g-good', playerId: 'b' });
    expect(rejections(good)).toEqual([]);

    const evil = new RecordingChannel();
    coordinator.connectServer(helloOf('evil', [running('g-evil', ['e1'], timers.now - 1000)]), evil);
    // Another server's player, a stranger, and a flood of strangers into a 4-player game.
    coordinator.onServerEvent('evil', { kind: 'playerJoined', gameId: 'g-evil', playerId: 'a' });
    coordinator.onServerEvent('evil', { kind: 'playerJoined', gameId: 'g-evil', playerId: 'stranger' });
    for (let i = 0; i < 5000; i++) coordinator.onServerEvent('evil', { kind: 'playerJoined', gameId: 'g-evil', playerId: `fake${i}` });
    const reasons = rejections(evil);
    expect(reasons).toHaveLength(5002);
    expect(reasons[0]).toBe('playerJoined: player "a" holds a seat in another game');
    expect(reasons[1]).toBe('playerJoined: player "stranger" holds no seat in game "g-evil": only players the coordinator reserved for it may join');

    const stats = coordinator.view.queryStats({ factory: PARTY, template: '', partition: new Map(), predicates: [], mode: 'all' }, timers.now);
    expect(stats).toMatchObject({ games: 2, players: 3 });
    // a is still in g-good, whose seats are not offered again: two new parties fill it, the third gets a new game.
    expect(() => find('a2', ['a'], 'party')).toThrow(/player "a" is in game "g-good"/);
    expect(find('c', ['c'], 'party').listener.assignment?.gameId).toBe('g-good');
    expect(find('d', ['d'], 'party').listener.assignment?.gameId).toBe('g-good');
    const reserved = good.orders.filter((o) => o.kind === 'reserveSeats').flatMap((o) => (o.kind === 'reserveSeats' ? o.playerIds : []));
    expect(reserved).toEqual(['b', 'c', 'd']);
    // The stranger was not blocked from finding a game.
    expect(find('s', ['stranger'], 'party').listener.error).toBeUndefined();
  });

  it('lets a competitive game\'s own player come back after dropping out, and no one else in', async () => {
    const yaml = `
placement: { policy: fill, createTimeoutMs: 1000, maxQueuedPerFactory: 100, ticketTtlSeconds: 60 }
factories:
  - name: duel
    partitioning: { region: [eu] }
    competitive: { teams: 2, teamSize: 1, batch: { maxTickets: 2, intervalMs: 100 }, expansion: [{ afterSeconds: 0, maxScoreGap: 1000 }] }
`;
    const { coordinator, timers, connect } = setup(yaml);
    const s1 = connect('s1', 5);
    for (const id of ['p', 'q']) coordinator.find(findRequest(id, 'duel', 1500), new RecordingListener());
    await timers.advance(200);
    const [create] = s1.creates();
    coordinator.onServerEvent('s1', { kind: 'gameCreated', requestId: create!.requestId, gameId: 'duel-1' });
    coordinator.onServerEvent('s1', { kind: 'playerLeft', gameId: 'duel-1', playerId: 'p' });
    coordinator.onServerEvent('s1', { kind: 'playerJoined', gameId: 'duel-1', playerId: 'p' });
    coordinator.onServerEvent('s1', { kind: 'playerJoined', gameId: 'duel-1', playerId: 'x' });
    expect(rejections(s1)).toEqual(['playerJoined: player "x" holds no seat in game "duel-1": only players the coordinator reserved for it may join']);
  });

  it('a player a server only names in its hello may still find a game, and that server cannot then take them out of it', async () => {
    const { coordinator, timers, connect, find } = setup();
    const evil = new RecordingChannel();
    // A hello naming a stranger in its game: the coordinator never seated them there.
    coordinator.connectServer(helloOf('evil', [{ ...running('g-evil', ['victim'], timers.now - 1000), open: false }], 1), evil);
    const good = connect('good', 5);
    const victim = find('v', ['victim'], 'party');
    expect(victim.listener.error).toBeUndefined();
    await settle();
    const create = good.creates().find((o) => o.playerIds.includes('victim'));
    expect(create).toBeDefined();
    coordinator.onServerEvent('good', { kind: 'gameCreated', requestId: create!.requestId, gameId: 'g-good' });
    expect(victim.listener.assignment?.gameId).toBe('g-good');
    coordinator.onServerEvent('good', { kind: 'playerJoined', gameId: 'g-good', playerId: 'victim' });
    // Now the seat is the coordinator's: the naming server can neither leave nor rejoin them.
    coordinator.onServerEvent('evil', { kind: 'playerLeft', gameId: 'g-evil', playerId: 'victim' });
    coordinator.onServerEvent('evil', { kind: 'playerJoined', gameId: 'g-evil', playerId: 'victim' });
    expect(rejections(evil)).toEqual(['playerLeft: player "victim" is not in game "g-evil"', 'playerJoined: player "victim" holds a seat in another game']);
    expect(() => find('v2', ['victim'], 'party')).toThrow(/player "victim" is in game "g-good"/);
  });
});

import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import type { FindRequest, ServerOrder } from '../../src/coordinator/messages.js';
import { ladderStanding, ratedLadders } from '../../src/coordinator/results/game-results.js';
import { RESULT_RETENTION_MS } from '../../src/coordinator/servers/finished-games.js';
import { InMemoryRatingStore, partyScores, ratingSystem } from '../../src/ratings/index.js';
import type { PlayerRating } from '../../src/ratings/rating-system.js';
import { rateResult, type ReportedResult } from '../../src/ratings/result-rules.js';
import { ManualTimers, RecordingChannel, RecordingListener, settle, testCore } from './fixture.js';

/** Issue 12 in the core: results checked against the games it knows, and ratings standing in for scores. */
const YAML = `
placement: { policy: fill, createTimeoutMs: 1000, maxQueuedPerFactory: 100, ticketTtlSeconds: 600 }
ladders:
  - name: ranked
    system: glicko2
    minGameSeconds: 60
    earlyLeaverCountsAsLoss: true
factories:
  - name: duel
    competitive:
      teams: 2
      teamSize: 1
      batch: { maxTickets: 100, intervalMs: 100 }
      expansion: [{ afterSeconds: 0, maxScoreGap: 100 }]
      ladder: ranked
  - name: open-duel
    competitive:
      teams: 2
      teamSize: 1
      batch: { maxTickets: 100, intervalMs: 100 }
      expansion: [{ afterSeconds: 0, maxScoreGap: 100 }]
`;

function setup() {
  const timers = new ManualTimers();
  const config = parseConfig(YAML);
  const store = new InMemoryRatingStore(ladderStanding(ratedLadders(config.ladders)));
  const coordinator = testCore(config, timers, { ratings: store });
  const channels = new Map<string, RecordingChannel>();
  const connect = (serverId: string) => {
    const channel = new RecordingChannel();
    coordinator.connectServer(
      { serverId, endpoint: `${serverId}:7777`, attributes: new Map(), templates: [], capacity: { maxGames: 10, maxStartsPerSecond: 0 }, runningGames: [] },
      channel,
    );
    channels.set(serverId, channel);
    return channel;
  };
  const find = (ticketId: string, score?: number, template = 'duel') => {
    const listener = new RecordingListener();
    const request: FindRequest = {
      ticketId,
      template,
      party: [{ playerId: ticketId, score }],
      partition: new Map(),
      matchable: new Map(),
      latenciesMs: new Map(),
      preferredMaps: [],
      vetoedMaps: [],
    };
    coordinator.find(request, listener);
    return listener;
  };
  const ladder = config.ladders!.get('ranked')!;
  const system = ratingSystem(ladder);
  return { coordinator, timers, store, connect, find, channels, system, ladder };
}

const result = (gameId: string, winner: string, loser: string, durationSeconds = 120): ReportedResult => ({
  gameId,
  serverId: '',
  teams: [{ players: [winner], rank: 0 }, { players: [loser], rank: 1 }],
  durationSeconds,
  leftEarly: [],
});

const last = (channel: RecordingChannel): ServerOrder | undefined => channel.orders.at(-1);

/** Forms one duel between `a` and `b` and has s1 create it; returns its game id. */
async function duel(t: ReturnType<typeof setup>, a: string, b: string, gameId: string) {
  const [la, lb] = [t.find(a), t.find(b)];
  await t.timers.advance(100);
  const create = t.channels.get('s1')!.creates().at(-1)!;
  t.coordinator.onServerEvent('s1', { kind: 'gameCreated', requestId: create.requestId, gameId });
  await settle();
  expect(la.assignment?.gameId).toBe(gameId);
  expect(lb.assignment?.gameId).toBe(gameId);
  // Two minutes of play on the coordinator's clock: results are timed by it.
  await t.timers.advance(120_000);
  return gameId;
}

describe('game results in the core', () => {
  it('applies a result once, after GameEnded, and refuses wrong servers, unseated players and unranked games', async () => {
    const t = setup();
    const s1 = t.connect('s1');
    const s2 = t.connect('s2');
    await duel(t, 'a', 'b', 'g1');
    t.coordinator.onServerEvent('s1', { kind: 'gameEnded', gameId: 'g1' });

    t.coordinator.onServerEvent('s2', { kind: 'gameResult', result: result('g1', 'a', 'b') });
    expect(last(s2)).toEqual({ kind: 'rejected', reason: expect.stringMatching(/^gameResult: FAILED_PRECONDITION: game_result.game_id: server "s2" does not host game "g1"/) });

    t.coordinator.onServerEvent('s1', { kind: 'gameResult', result: result('g1', 'a', 'zed') });
    expect(last(s1)).toEqual({ kind: 'rejected', reason: expect.stringMatching(/FAILED_PRECONDITION: game_result.teams\[1\].player_ids\[0\]: player "zed" was not seated/) });

    t.coordinator.onServerEvent('s1', { kind: 'gameResult', result: { ...result('g1', 'a', 'b'), teams: [{ players: ['a'], rank: 0 }] } });
    expect(last(s1)).toEqual({ kind: 'rejected', reason: expect.stringMatching(/^gameResult: INVALID_ARGUMENT: game_result.teams:/) });

    t.coordinator.onServerEvent('s1', { kind: 'gameResult', result: result('g1', 'a', 'b') });
    await settle();
    expect(last(s1)).toEqual({ kind: 'gameResultAck', gameId: 'g1', applied: true, reason: '' });
    const expected = t.system.update({ teams: [['a'], ['b']], ranks: [0, 1], day: Math.floor(t.timers.now / 86_400_000) }, new Map());
    expect(t.store.get('ranked', 'a')).toEqual(expected.get('a'));
    expect(t.store.get('ranked', 'b')).toEqual(expected.get('b'));

    t.coordinator.onServerEvent('s1', { kind: 'gameResult', result: result('g1', 'b', 'a') });
    expect(last(s1)).toEqual({ kind: 'gameResultAck', gameId: 'g1', applied: false, reason: 'already applied' });
    expect(t.store.get('ranked', 'a')).toEqual(expected.get('a'));

    // An unranked factory's game: no ladder to apply it to.
    const [lc] = [t.find('c', 1000, 'open-duel'), t.find('d', 1000, 'open-duel')];
    await t.timers.advance(100);
    const create = s1.creates().at(-1)!;
    t.coordinator.onServerEvent('s1', { kind: 'gameCreated', requestId: create.requestId, gameId: 'g2' });
    await settle();
    expect(lc.assignment?.gameId).toBe('g2');
    t.coordinator.onServerEvent('s1', { kind: 'gameResult', result: result('g2', 'c', 'd') });
    expect(last(s1)).toEqual({ kind: 'rejected', reason: expect.stringMatching(/FAILED_PRECONDITION: .*"open-duel", whose template has no ladder/) });
  });

  it('counts a short game as played but not rated, and forgets an ended game after the retention time', async () => {
    const t = setup();
    const s1 = t.connect('s1');
    await duel(t, 'a', 'b', 'short');
    t.coordinator.onServerEvent('s1', { kind: 'gameResult', result: result('short', 'a', 'b', 10) });
    await settle();
    expect(last(s1)).toEqual({ kind: 'gameResultAck', gameId: 'short', applied: false, reason: expect.stringMatching(/10s, under the ladder's 60s minimum/) });
    expect(t.store.get('ranked', 'a')).toBeUndefined();

    await duel(t, 'c', 'd', 'late');
    t.coordinator.onServerEvent('s1', { kind: 'gameEnded', gameId: 'late' });
    await t.timers.advance(RESULT_RETENTION_MS);
    t.coordinator.onServerEvent('s1', { kind: 'gameResult', result: result('late', 'c', 'd') });
    expect(last(s1)).toEqual({ kind: 'rejected', reason: expect.stringMatching(/FAILED_PRECONDITION: game_result.game_id: server "s1" does not host game "late"/) });
  });

  it('rates an early leaver as a loss, though they left before the end', async () => {
    const t = setup();
    const s1 = t.connect('s1');
    await duel(t, 'a', 'b', 'g');
    t.coordinator.onServerEvent('s1', { kind: 'playerJoined', gameId: 'g', playerId: 'a' });
    t.coordinator.onServerEvent('s1', { kind: 'playerLeft', gameId: 'g', playerId: 'a' });
    t.coordinator.onServerEvent('s1', { kind: 'gameEnded', gameId: 'g' });
    t.coordinator.onServerEvent('s1', { kind: 'gameResult', result: { ...result('g', 'a', 'b'), leftEarly: ['a'] } });
    await settle();
    expect(last(s1)).toEqual({ kind: 'gameResultAck', gameId: 'g', applied: true, reason: '' });
    // The leaver is rated as the loser; the opponent keeps the real result (a loss to the leaver).
    const model = rateResult(t.system, t.ladder, { ...result('g', 'a', 'b'), leftEarly: ['a'] }, new Map(), Math.floor(t.timers.now / 86_400_000));
    if (!model.counted) throw new Error('the model did not count the game');
    expect(t.store.get('ranked', 'a')).toEqual(model.ratings.get('a'));
    expect(t.store.get('ranked', 'b')).toEqual(model.ratings.get('b'));
    expect(t.store.get('ranked', 'a')!.mean).toBeLessThan(t.system.initial().mean);
  });
});

describe('what a ranked result may rest on', () => {
  it('refuses a result for a game only announced in a hello, whatever it says of its players and length', async () => {
    const t = setup();
    const evil = new RecordingChannel();
    const hello = (startedAt: number) => ({
      serverId: 'evil',
      endpoint: 'evil:7777',
      attributes: new Map(),
      templates: [],
      capacity: { maxGames: 10, maxStartsPerSecond: 0 },
      runningGames: [{ gameId: 'forged', factory: 'duel', matchable: new Map(), playerIds: ['u1', 'u2'], open: false, startedAt }],
    });
    t.coordinator.connectServer(hello(t.timers.now - 3_600_000), evil);
    await t.timers.advance(120_000);
    t.coordinator.onServerEvent('evil', { kind: 'gameEnded', gameId: 'forged' });
    t.coordinator.onServerEvent('evil', { kind: 'gameResult', result: result('forged', 'u1', 'u2', 3600) });
    await settle();
    expect(last(evil)).toEqual({
      kind: 'rejected',
      reason: 'gameResult: FAILED_PRECONDITION: game_result.game_id: game "forged" was announced in a hello, not created by this coordinator with the players it assigned: its result cannot count',
    });
    expect(t.store.get('ranked', 'u1')).toBeUndefined();
    expect(t.store.get('ranked', 'u2')).toBeUndefined();
  });

  it('times a game by the coordinator\'s clock: a server cannot stretch a short one past the minimum', async () => {
    const t = setup();
    const s1 = t.connect('s1');
    const [la] = [t.find('a'), t.find('b')];
    await t.timers.advance(100);
    t.coordinator.onServerEvent('s1', { kind: 'gameCreated', requestId: s1.creates()[0]!.requestId, gameId: 'quick' });
    expect(la.assignment?.gameId).toBe('quick');
    await t.timers.advance(5_000);
    t.coordinator.onServerEvent('s1', { kind: 'gameEnded', gameId: 'quick' });
    await t.timers.advance(600_000);
    t.coordinator.onServerEvent('s1', { kind: 'gameResult', result: result('quick', 'a', 'b', 3600) });
    await settle();
    expect(last(s1)).toEqual({ kind: 'gameResultAck', gameId: 'quick', applied: false, reason: "game lasted 5s, under the ladder's 60s minimum" });
    expect(t.store.get('ranked', 'a')).toBeUndefined();
  });

  it('keeps a created game rankable when its server\'s stream drops and it re-announces the game', async () => {
    const t = setup();
    const s1 = t.connect('s1');
    await duel(t, 'a', 'b', 'g');
    t.coordinator.disconnectServer('s1', s1);
    const back = new RecordingChannel();
    t.coordinator.connectServer(
      {
        serverId: 's1',
        endpoint: 's1:7777',
        attributes: new Map(),
        templates: [],
        capacity: { maxGames: 10, maxStartsPerSecond: 0 },
        runningGames: [{ gameId: 'g', factory: 'duel', matchable: new Map(), playerIds: ['a', 'intruder'], open: false, startedAt: t.timers.now - 3_600_000 }],
      },
      back,
    );
    t.coordinator.onServerEvent('s1', { kind: 'gameEnded', gameId: 'g' });
    // The intruder the server announced is not one the coordinator seated: a result naming them is refused.
    t.coordinator.onServerEvent('s1', { kind: 'gameResult', result: result('g', 'intruder', 'b') });
    expect(last(back)).toEqual({ kind: 'rejected', reason: expect.stringMatching(/player "intruder" was not seated in game "g"/) });
    t.coordinator.onServerEvent('s1', { kind: 'gameResult', result: result('g', 'a', 'b') });
    await settle();
    expect(last(back)).toEqual({ kind: 'gameResultAck', gameId: 'g', applied: true, reason: '' });
  });
});

describe('another server announcing the same game id', () => {
  it('hides nothing: the host\'s result for its ended game still counts', async () => {
    const t = setup();
    const s1 = t.connect('s1');
    await duel(t, 'a', 'b', 'g');
    t.coordinator.onServerEvent('s1', { kind: 'gameEnded', gameId: 'g' });
    const evil = new RecordingChannel();
    t.coordinator.connectServer(
      {
        serverId: 'evil',
        endpoint: 'evil:7777',
        attributes: new Map(),
        templates: [],
        capacity: { maxGames: 10, maxStartsPerSecond: 0 },
        runningGames: [{ gameId: 'g', factory: 'duel', matchable: new Map(), playerIds: ['u1', 'u2'], open: false, startedAt: t.timers.now - 3_600_000 }],
      },
      evil,
    );
    t.coordinator.onServerEvent('s1', { kind: 'gameResult', result: result('g', 'a', 'b') });
    await settle();
    expect(last(s1)).toEqual({ kind: 'gameResultAck', gameId: 'g', applied: true, reason: '' });
    t.coordinator.onServerEvent('evil', { kind: 'gameResult', result: result('g', 'u1', 'u2') });
    expect(last(evil)).toEqual({ kind: 'rejected', reason: expect.stringMatching(/FAILED_PRECONDITION: game_result.game_id: game "g" was announced in a hello/) });
  });
});

describe('ratings drive matching', () => {
  const settled = (mean: number): PlayerRating => ({ mean, deviation: 30, volatility: 0.06, games: 50 });
  const unsure = (mean: number): PlayerRating => ({ mean, deviation: 350, volatility: 0.06, games: 1 });

  it('widens a ticket\'s window by its rating\'s uncertainty: loose for a new player, tight for a settled one', () => {
    const { system } = setup();
    const ratings = new Map([['settled', settled(1500)], ['unsure', unsure(1500)]]);
    const of = (p: string) => ratings.get(p);
    expect(partyScores(system, [{ playerId: 'settled', score: undefined }], of)).toEqual({ scores: [1500], uncertainty: 60 });
    expect(partyScores(system, [{ playerId: 'unsure', score: undefined }], of)).toEqual({ scores: [1500], uncertainty: 700 });
    // A party: each member at their rating, the window from the composite (mean deviation 190).
    expect(partyScores(system, [{ playerId: 'settled', score: undefined }, { playerId: 'unsure', score: undefined }], of)).toEqual({ scores: [1500, 1500], uncertainty: 380 });
    // A score the game sends wins, and adds no uncertainty.
    expect(partyScores(system, [{ playerId: 'settled', score: 2000 }], of)).toEqual({ scores: [2000], uncertainty: 0 });
    // Nobody rated yet: the system's initial rating, as unsure as it gets.
    expect(partyScores(system, [{ playerId: 'nobody', score: undefined }], of)).toEqual({ scores: [1500], uncertainty: 700 });
  });

  it('pairs unsure players 300 apart but not settled ones; a ladder-less factory still needs scores', async () => {
    const t = setup();
    const s1 = t.connect('s1');
    await t.store.put('ranked', 'settled-low', settled(1500));
    await t.store.put('ranked', 'settled-high', settled(1800));
    await t.store.put('ranked', 'unsure-low', unsure(1500));
    await t.store.put('ranked', 'unsure-high', unsure(1800));
    // Settled pair: windows 100 + 60 < 300 apart; unsure pair: 100 + 700 reach each other.
    const settledLow = t.find('settled-low');
    t.find('settled-high');
    await t.timers.advance(100);
    expect(s1.creates()).toHaveLength(0);
    expect(settledLow.assignment).toBeUndefined();
    t.coordinator.cancel('settled-low');
    t.coordinator.cancel('settled-high');

    t.find('unsure-low');
    t.find('unsure-high');
    await t.timers.advance(100);
    expect(s1.creates().map((c) => [...c.playerIds].sort())).toEqual([['unsure-high', 'unsure-low']]);

    expect(() => t.find('x', undefined, 'open-duel')).toThrow(/party\[0\].score: required by competitive template "open-duel"/);
  });
});

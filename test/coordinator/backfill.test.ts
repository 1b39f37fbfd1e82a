import { describe, expect, it } from 'vitest';
import { valueKey } from '../../src/attributes/attribute-value.js';
import { parseConfig } from '../../src/config/load.js';
import type { BackfillRecord, BackfillStore } from '../../src/coordinator/backfill/backfill-record.js';
import { BACKFILL_SEAT_HOLD_MS } from '../../src/coordinator/backfill/backfill-desk.js';
import type { BackfillRequest, FindRequest, RunningGame, ServerOrder } from '../../src/coordinator/messages.js';
import { ManualTimers, MemoryStore, RecordingChannel, RecordingListener, testCore } from './fixture.js';

const YAML = `
placement: { policy: fill, createTimeoutMs: 1000, maxQueuedPerFactory: 100, ticketTtlSeconds: 60 }
factories:
  - name: squad
    partitioning: { region: [eu] }
    competitive:
      teams: 2
      teamSize: 2
      batch: { maxTickets: 1000, intervalMs: 100 }
      expansion: [{ afterSeconds: 0, maxScoreGap: 300 }, { afterSeconds: 10, maxScoreGap: 1000 }]
  - name: party
    partitioning: { region: [eu] }
    cooperative: { maxPlayers: 4 }
`;

const EU = new Map([['region', valueKey({ kind: 'string', value: 'eu' })]]);

const findRequest = (ticketId: string, score: number): FindRequest => ({
  ticketId,
  template: 'squad',
  party: [{ playerId: ticketId, score }],
  partition: EU,
  matchable: new Map(),
  latenciesMs: new Map(),
  preferredMaps: [],
  vetoedMaps: [],
});

class MemoryBackfills implements BackfillStore {
  readonly records = new Map<string, BackfillRecord>();
  save(record: BackfillRecord): void {
    this.records.set(record.backfillId, record);
  }
  remove(backfillId: string): void {
    this.records.delete(backfillId);
  }
}

const statuses = (channel: RecordingChannel) =>
  channel.orders.filter((o): o is Extract<ServerOrder, { kind: 'backfillStatus' }> => o.kind === 'backfillStatus').map((o) => `${o.backfillId}:${o.state}${o.code === 'OK' ? '' : `:${o.code}`}`);
const reservations = (channel: RecordingChannel) => channel.orders.filter((o): o is Extract<ServerOrder, { kind: 'reserveSeats' }> => o.kind === 'reserveSeats');

/** The 2v2 "g1" on s1: a1 1500 and a2 1500 on team 0, b1 1600 and b2 1600 on team 1; b2 then left. */
function twoVsTwoOneLeft(options: { backfills?: MemoryBackfills; restoredBackfills?: BackfillRecord[]; running?: RunningGame[] } = {}) {
  const timers = new ManualTimers();
  const config = parseConfig(YAML);
  const store = new MemoryStore();
  const backfills = options.backfills ?? new MemoryBackfills();
  const core = testCore(config, timers, { store, place: { backfills, restoredBackfills: options.restoredBackfills } });
  const channel = new RecordingChannel();
  const hello = (serverId: string, ch: RecordingChannel, runningGames: RunningGame[] = []) =>
    core.connectServer({ serverId, endpoint: `${serverId}:7777`, attributes: new Map(), templates: [], capacity: { maxGames: 10, maxStartsPerSecond: 0 }, runningGames }, ch);
  hello('s1', channel, options.running);
  const find = (ticketId: string, score: number) => {
    const listener = new RecordingListener();
    core.find(findRequest(ticketId, score), listener);
    return listener;
  };
  const ask = (backfill: Partial<BackfillRequest> & { gameId?: string; serverId?: string } = {}) => {
    const request: BackfillRequest = {
      backfillId: 'bf1',
      players: [
        { playerId: 'a1', team: 0, score: 1500 },
        { playerId: 'a2', team: 0, score: 1500 },
        { playerId: 'b1', team: 1, score: 1600 },
      ],
      ttlMs: 0,
      map: '',
      region: '',
      ...backfill,
    };
    core.onServerEvent(backfill.serverId ?? 's1', { kind: 'requestBackfill', gameId: backfill.gameId ?? 'g1', request });
  };
  return { core, timers, channel, store, backfills, hello, find, ask };
}

async function runningGame(t: ReturnType<typeof twoVsTwoOneLeft>) {
  for (const [id, score] of [['a1', 1500], ['a2', 1500], ['b1', 1600], ['b2', 1600]] as const) t.find(id, score);
  await t.timers.advance(100);
  const order = t.channel.creates()[0]!;
  t.core.onServerEvent('s1', { kind: 'gameCreated', requestId: order.requestId, gameId: 'g1' });
  for (const p of ['a1', 'a2', 'b1', 'b2']) t.core.onServerEvent('s1', { kind: 'playerJoined', gameId: 'g1', playerId: p });
  t.core.onServerEvent('s1', { kind: 'playerLeft', gameId: 'g1', playerId: 'b2' });
}

describe('competitive backfill in the core', () => {
  it('fills a 2v2 where one player left with the waiting ticket that keeps the teams balanced, reserving its seat as a drop-in', async () => {
    const t = twoVsTwoOneLeft();
    await runningGame(t);
    t.ask();
    expect(statuses(t.channel)).toEqual(['bf1:queued']);
    expect([...t.backfills.records.keys()]).toEqual(['bf1']);
    expect(t.core.view.queryStats({ factory: '', template: 'squad', partition: new Map(), predicates: [], mode: 'all' }, t.timers.now).backfill).toEqual({ openRequests: 1, openSeats: 1, filled: 0 });
    const near = t.find('n1600', 1600);
    const balancing = t.find('n1400', 1400);
    const far = t.find('n1800', 1800);
    await t.timers.advance(100);
    // 1400 brings team 1's mean to 1500, team 0's: balanced after the fill, which 1600 (nearer the leaver and the game) is not.
    expect(balancing.assignment).toMatchObject({ gameId: 'g1', serverId: 's1', created: false, team: 1 });
    expect(near.assignment).toBeUndefined();
    expect(far.assignment).toBeUndefined();
    const [seats] = reservations(t.channel);
    expect(seats).toMatchObject({ gameId: 'g1', playerIds: ['n1400'], reservationToken: balancing.assignment!.reservationToken, expiresInMs: BACKFILL_SEAT_HOLD_MS, backfill: { backfillId: 'bf1', seatTeams: [1] } });
    expect(statuses(t.channel)).toEqual(['bf1:queued', 'bf1:filled']);
    expect(t.backfills.records.size).toBe(0);
    expect(t.store.records.has('n1400')).toBe(false);
    // The newcomer holds its seat: it joins, and cannot find another game meanwhile.
    t.core.onServerEvent('s1', { kind: 'playerJoined', gameId: 'g1', playerId: 'n1400' });
    expect(t.channel.orders.filter((o) => o.kind === 'rejected')).toEqual([]);
    expect(t.core.view.queryStats({ factory: '', template: 'squad', partition: new Map(), predicates: [], mode: 'all' }, t.timers.now).backfill).toEqual({ openRequests: 0, openSeats: 0, filled: 1 });
  });

  it('a newcomer who never arrives loses the seat when its hold lapses, and may find a game again', async () => {
    const t = twoVsTwoOneLeft();
    await runningGame(t);
    t.ask();
    const newcomer = t.find('n1', 1500);
    await t.timers.advance(100);
    expect(newcomer.assignment?.gameId).toBe('g1');
    await t.timers.advance(BACKFILL_SEAT_HOLD_MS);
    t.core.onServerEvent('s1', { kind: 'playerJoined', gameId: 'g1', playerId: 'n1' });
    expect(t.channel.orders.at(-1)).toMatchObject({ kind: 'rejected' });
    const again = new RecordingListener();
    t.core.find({ ...findRequest('n1-again', 1500), party: [{ playerId: 'n1', score: 1500 }] }, again);
    expect(again.error).toBeUndefined();
  });

  it('a request cancelled by its server ends CANCELLED, leaves the store, and takes no ticket', async () => {
    const t = twoVsTwoOneLeft();
    await runningGame(t);
    t.ask();
    t.core.onServerEvent('s1', { kind: 'cancelBackfill', gameId: 'g1', backfillId: 'bf1' });
    expect(statuses(t.channel)).toEqual(['bf1:queued', 'bf1:cancelled:CANCELLED']);
    expect(t.backfills.records.size).toBe(0);
    const ticket = t.find('n1', 1400);
    await t.timers.advance(100);
    expect(ticket.assignment).toBeUndefined();
    // A second cancel names nothing open.
    t.core.onServerEvent('s1', { kind: 'cancelBackfill', gameId: 'g1', backfillId: 'bf1' });
    expect(statuses(t.channel).at(-1)).toBe('bf1:refused:NOT_FOUND');
  });

  it('a request not filled within its ttl_ms ends EXPIRED', async () => {
    const t = twoVsTwoOneLeft();
    await runningGame(t);
    t.ask({ ttlMs: 5000 });
    const tooStrong = t.find('n1', 2500);
    await t.timers.advance(4999);
    expect(statuses(t.channel)).toEqual(['bf1:queued']);
    await t.timers.advance(1);
    expect(statuses(t.channel)).toEqual(['bf1:queued', 'bf1:expired:DEADLINE_EXCEEDED']);
    expect(t.backfills.records.size).toBe(0);
    expect(tooStrong.assignment).toBeUndefined();
  });

  it('refuses, naming the field: another server\'s game, an unknown game, a cooperative game, a team past the template, a stranger, a second request for the game', async () => {
    const t = twoVsTwoOneLeft();
    await runningGame(t);
    const other = new RecordingChannel();
    t.hello('s2', other);
    t.ask({ serverId: 's2' });
    expect(other.orders.at(-1)).toMatchObject({ kind: 'backfillStatus', state: 'refused', code: 'PERMISSION_DENIED', reason: expect.stringMatching(/^game_id: .*hosted by another server/) });
    t.ask({ gameId: 'nope' });
    t.ask({ players: [{ playerId: 'a1', team: 2, score: 1500 }] });
    t.ask({ players: [{ playerId: 'zed', team: 0, score: 1500 }] });
    t.ask({ players: [{ playerId: 'a1', team: 0, score: undefined }] });
    t.ask({ ttlMs: 3_600_000 });
    t.ask({ region: 'mars' });
    const refused = t.channel.orders.filter((o): o is Extract<ServerOrder, { kind: 'backfillStatus' }> => o.kind === 'backfillStatus').map((o) => [o.code, o.reason.split(':')[0]]);
    expect(refused).toEqual([
      ['NOT_FOUND', 'game_id'],
      ['INVALID_ARGUMENT', 'players[0].team'],
      ['INVALID_ARGUMENT', 'players[0].player_id'],
      ['INVALID_ARGUMENT', 'players[0].score'],
      ['INVALID_ARGUMENT', 'ttl_ms'],
      ['INVALID_ARGUMENT', 'region'],
    ]);
    t.ask();
    t.ask({ backfillId: 'bf2' });
    expect(statuses(t.channel).slice(-2)).toEqual(['bf1:queued', 'bf2:refused:ALREADY_EXISTS']);
    // A cooperative game refills by drop-in.
    const coop = new RecordingListener();
    t.core.find({ ...findRequest('c1', 0), template: 'party' }, coop);
    const create = t.channel.creates().at(-1)!;
    t.core.onServerEvent('s1', { kind: 'gameCreated', requestId: create.requestId, gameId: 'coop1' });
    t.ask({ backfillId: 'bf3', gameId: 'coop1' });
    expect(statuses(t.channel).at(-1)).toBe('bf3:refused:FAILED_PRECONDITION');
  });

  it('sending the same id again replaces the players and keeps its wait: a second leaver widens the fill to two seats', async () => {
    const t = twoVsTwoOneLeft();
    await runningGame(t);
    t.ask();
    t.core.onServerEvent('s1', { kind: 'playerLeft', gameId: 'g1', playerId: 'a2' });
    t.ask({ players: [{ playerId: 'a1', team: 0, score: 1500 }, { playerId: 'b1', team: 1, score: 1600 }] });
    expect(t.backfills.records.get('bf1')?.players).toHaveLength(2);
    const x = t.find('x', 1500);
    const y = t.find('y', 1600);
    await t.timers.advance(100);
    expect([x.assignment?.team, y.assignment?.team].sort()).toEqual([0, 1]);
    expect(reservations(t.channel)[0]?.backfill?.seatTeams).toHaveLength(2);
  });

  it('survives a restart: the stored request waits for its server to re-announce the game, keeps its wait, and is filled', async () => {
    const first = twoVsTwoOneLeft();
    await runningGame(first);
    first.ask();
    const stored = [...first.backfills.records.values()];
    expect(stored).toHaveLength(1);
    // A new core from what was stored; the server comes back with its game (b2 gone).
    const running: RunningGame[] = [{ gameId: 'g1', factory: 'squad/region=eu', matchable: new Map(), playerIds: ['a1', 'a2', 'b1'], open: true, startedAt: 0 }];
    const second = twoVsTwoOneLeft({ restoredBackfills: stored, running });
    expect(statuses(second.channel)).toEqual(['bf1:queued']);
    const newcomer = second.find('n1', 1450);
    await second.timers.advance(100);
    expect(newcomer.assignment).toMatchObject({ gameId: 'g1', team: 1, created: false });
    expect(statuses(second.channel)).toEqual(['bf1:queued', 'bf1:filled']);
  });

  it('a restored request whose server comes back without the game ends GAME_ENDED', async () => {
    const first = twoVsTwoOneLeft();
    await runningGame(first);
    first.ask({ ttlMs: 10_000 });
    const stored = [...first.backfills.records.values()];
    const gone = twoVsTwoOneLeft({ restoredBackfills: stored });
    expect(statuses(gone.channel)).toEqual(['bf1:gameEnded']);
    expect(gone.backfills.records.size).toBe(0);
  });

  it('a game server whose stream drops parks its requests; back with the game, they are matched again', async () => {
    const t = twoVsTwoOneLeft();
    await runningGame(t);
    t.ask();
    t.hello('s2', new RecordingChannel());
    t.core.disconnectServer('s1', t.channel);
    const ticket = t.find('n1', 1400);
    await t.timers.advance(100);
    expect(ticket.assignment).toBeUndefined();
    const back = new RecordingChannel();
    t.hello('s1', back, [{ gameId: 'g1', factory: 'squad/region=eu', matchable: new Map(), playerIds: ['a1', 'a2', 'b1'], open: true, startedAt: t.timers.now - 1000 }]);
    expect(statuses(back)).toEqual(['bf1:queued']);
    await t.timers.advance(100);
    expect(ticket.assignment).toMatchObject({ gameId: 'g1', team: 1 });
  });
});

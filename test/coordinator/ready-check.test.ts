import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import type { FindRequest, MatchProposal } from '../../src/coordinator/messages.js';
import type { CoordinatorEventMap } from '../../src/coordinator/edges/events.js';
import { EventHub } from '../../src/coordinator/edges/events.js';
import type { Principal } from '../../src/security/tokens/principal.js';
import { ManualTimers, RecordingChannel, RecordingListener, testCore } from './fixture.js';

/**
 * A ready check in the core, on a manual clock: a proposed game is created only once every party
 * accepts; a decline or the timeout breaks it, the accepters wait again with their original arrival
 * and creation time, the others end.
 */
const YAML = `
placement: { policy: fill, createTimeoutMs: 1000, maxQueuedPerFactory: 100, ticketTtlSeconds: 600 }
factories:
  - name: duel
    competitive:
      teams: 2
      teamSize: 1
      batch: { maxTickets: 100, intervalMs: 100 }
      pairWindow: longer-waiter
      expansion:
        - { afterSeconds: 0, maxScoreGap: 100 }
        - { afterSeconds: 5, maxScoreGap: 1000 }
      acceptance: { timeoutMs: 10000 }
`;

const player = (id: string): Principal => ({ role: 'player', subject: id, playerIds: [id] });

function setup(yaml = YAML) {
  const timers = new ManualTimers();
  const events = new EventHub();
  const formed: CoordinatorEventMap['competitiveGameFormed'][] = [];
  const finished: CoordinatorEventMap['findFinished'][] = [];
  events.on('competitiveGameFormed', (e) => formed.push(e));
  events.on('findFinished', (e) => finished.push(e));
  const coordinator = testCore(parseConfig(yaml), timers, { events });
  const server = new RecordingChannel();
  coordinator.connectServer(
    { serverId: 's1', endpoint: 's1:7777', attributes: new Map(), templates: [], capacity: { maxGames: 10, maxStartsPerSecond: 0 }, runningGames: [] },
    server,
  );
  const find = (ticketId: string, score: number) => {
    const listener = new RecordingListener();
    const request: FindRequest = {
      ticketId,
      template: 'duel',
      party: [{ playerId: ticketId, score }],
      partition: new Map(),
      matchable: new Map(),
      latenciesMs: new Map(),
      preferredMaps: [],
      vetoedMaps: [],
      caller: player(ticketId),
    };
    coordinator.find(request, listener);
    return listener;
  };
  const respond = (ticketId: string, matchId: string, accept: boolean, caller = player(ticketId)) => coordinator.respondToMatch(ticketId, matchId, accept, caller);
  return { coordinator, timers, server, find, respond, formed, finished };
}

const proposals = (listener: RecordingListener): MatchProposal[] =>
  listener.updates.flatMap((u) => (u.kind === 'proposed' ? [u.proposal] : []));

const codeOf = (fn: () => unknown): string => {
  try {
    fn();
    return 'OK';
  } catch (error) {
    return (error as { code: string }).code;
  }
};

describe('ready check', () => {
  it('creates the game only once every party has accepted', async () => {
    const t = setup();
    const a = t.find('a', 1000);
    const b = t.find('b', 1010);
    await t.timers.advance(100);
    const [pa] = proposals(a);
    const [pb] = proposals(b);
    expect(pa).toMatchObject({ factory: 'duel', expiresInMs: 10_000, players: 2, acceptedPlayers: 0 });
    expect(pb!.matchId).toBe(pa!.matchId);
    expect(t.coordinator.view.ticket('a')?.state).toBe('proposed');
    expect(t.server.creates()).toHaveLength(0); // nothing ordered, nothing reserved for a proposal
    // Still waiting, as QueryStats and the operator page count them.
    expect(t.coordinator.view.queryStats({ factory: 'duel', template: '', partition: new Map(), predicates: [], mode: 'all' }, t.timers.now).waitingTickets).toBe(2);
    expect(t.coordinator.view.factories(t.timers.now)[0]!.pooled).toBe(2);

    expect(t.respond('a', pa!.matchId, true)).toBe(false);
    expect(proposals(b).at(-1)).toMatchObject({ acceptedPlayers: 1 });
    expect(t.server.creates()).toHaveLength(0);
    expect(t.respond('b', pa!.matchId, true)).toBe(true);
    const [create] = t.server.creates();
    expect([...create!.playerIds].sort()).toEqual(['a', 'b']);
    expect(t.formed).toHaveLength(1);
    expect(t.coordinator.view.ticket('a')?.state).toBe('placing');
  });

  it('a decline ends the decliner and returns the accepter with its original arrival and clock', async () => {
    const t = setup();
    const a = t.find('a', 1000);
    await t.timers.advance(50);
    const b = t.find('b', 1010);
    const before = t.coordinator.view.ticket('a')!;
    await t.timers.advance(50);
    const matchId = proposals(a)[0]!.matchId;
    t.respond('a', matchId, true);
    await t.timers.advance(6000); // past the expansion's second step, still within the timeout
    expect(t.respond('b', matchId, false)).toBe(false);

    expect(b.error).toMatchObject({ code: 'CANCELLED', message: `ticket "b" declined match "${matchId}"` });
    expect(t.finished.find((f) => f.outcome === 'declined')).toBeTruthy();
    expect(a.updates.at(-1)).toMatchObject({ kind: 'queued', factory: 'duel', position: 0 });
    const after = t.coordinator.view.ticket('a')!;
    expect(after).toMatchObject({ state: 'pooled', createdAt: before.createdAt, arrival: before.arrival });
    expect(t.server.creates()).toHaveLength(0);

    // Its window is as wide as its wait says (gap 1000 after 5 s): a player 600 away pairs with it at once.
    const c = t.find('c', 1600);
    await t.timers.advance(100);
    const again = proposals(a).at(-1)!;
    expect(again.matchId).not.toBe(matchId);
    expect(proposals(c)[0]!.matchId).toBe(again.matchId);
    t.respond('a', again.matchId, true);
    t.respond('c', again.matchId, true);
    expect(t.formed.at(-1)!.waitsMs[t.formed.at(-1)!.ticketIds.indexOf('a')]).toBeGreaterThanOrEqual(6100);
    expect([...t.server.creates()[0]!.playerIds].sort()).toEqual(['a', 'c']);
  });

  it('a timeout ends whoever did not answer and returns the accepters', async () => {
    const t = setup();
    const a = t.find('a', 1000);
    const b = t.find('b', 1010);
    await t.timers.advance(100);
    const matchId = proposals(a)[0]!.matchId;
    t.respond('b', matchId, true);
    await t.timers.advance(9_999);
    expect(a.error).toBeUndefined();
    await t.timers.advance(1);
    expect(a.error).toMatchObject({ code: 'DEADLINE_EXCEEDED', message: `ticket "a" did not accept match "${matchId}" in time (acceptance timed out)` });
    expect(t.finished.find((f) => f.outcome === 'acceptance-timed-out')).toBeTruthy();
    expect(t.coordinator.view.ticket('b')?.state).toBe('pooled');
    expect(b.updates.at(-1)).toMatchObject({ kind: 'queued' });
    expect(codeOf(() => t.respond('b', matchId, true))).toBe('FAILED_PRECONDITION');
    expect(t.server.creates()).toHaveLength(0);
  });

  it('only the ticket owner may answer; a wrong match or ticket is named', async () => {
    const t = setup();
    const a = t.find('a', 1000);
    t.find('b', 1010);
    await t.timers.advance(100);
    const matchId = proposals(a)[0]!.matchId;
    expect(codeOf(() => t.respond('a', matchId, false, player('b')))).toBe('PERMISSION_DENIED');
    expect(codeOf(() => t.respond('a', matchId, true, { role: 'gateway', subject: 'gw' }))).toBe('OK');
    expect(codeOf(() => t.respond('a', 'other-match', true))).toBe('FAILED_PRECONDITION');
    expect(codeOf(() => t.respond('nobody', matchId, true))).toBe('NOT_FOUND');
    expect(t.coordinator.view.ticket('a')?.state).toBe('proposed');
  });

  it('a proposed ticket cancelled breaks the match; the other waits again', async () => {
    const t = setup();
    const a = t.find('a', 1000);
    const b = t.find('b', 1010);
    await t.timers.advance(100);
    expect(t.coordinator.cancel('a', player('a'))).toBe(true);
    expect(a.error?.code).toBe('CANCELLED');
    expect(t.coordinator.view.ticket('b')?.state).toBe('pooled');
    expect(b.updates.at(-1)).toMatchObject({ kind: 'queued' });
    // The deadline of the broken match is gone: nothing ends b later.
    await t.timers.advance(20_000);
    expect(b.error).toBeUndefined();
  });

  it('without `acceptance` a formed game is created at once', async () => {
    const t = setup(YAML.replace('      acceptance: { timeoutMs: 10000 }\n', ''));
    const a = t.find('a', 1000);
    t.find('b', 1010);
    await t.timers.advance(100);
    expect(proposals(a)).toHaveLength(0);
    expect(t.server.creates()).toHaveLength(1);
  });

  it('refuses an acceptance timeout outside 1-600 s', () => {
    expect(() => parseConfig(YAML.replace('timeoutMs: 10000', 'timeoutMs: 999'))).toThrow(/acceptance\.timeoutMs/);
    expect(() => parseConfig(YAML.replace('timeoutMs: 10000', 'timeoutMs: 600001'))).toThrow(/acceptance\.timeoutMs/);
  });
});

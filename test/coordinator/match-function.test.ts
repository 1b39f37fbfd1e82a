import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import type { CoordinatorEventMap } from '../../src/coordinator/edges/events.js';
import { EventHub } from '../../src/coordinator/edges/events.js';
import { answerProblem, type MatchBatchRequest, type ProposedGame } from '../../src/coordinator/match-functions/match-batch.js';
import type { MatchFunctionPort } from '../../src/coordinator/match-functions/match-function-port.js';
import type { FindRequest } from '../../src/coordinator/messages.js';
import { ManualTimers, RecordingChannel, RecordingListener, testCore } from './fixture.js';

/**
 * Match functions in the core, on a manual clock, with the port faked: the answer's games are
 * placed after a check, and a slow, failing or lying function costs its factory that batch only
 * (the built-in matcher forms it), counted, never another factory's.
 */
const YAML = `
placement: { policy: fill, createTimeoutMs: 1000, maxQueuedPerFactory: 100, ticketTtlSeconds: 600 }
factories:
  - name: custom
    competitive:
      teams: 2
      teamSize: 1
      batch: { maxTickets: 100, intervalMs: 100 }
      expansion: [{ afterSeconds: 0, maxScoreGap: 50 }]
      matchFunction: { address: "fn.example:50061", timeoutMs: 500 }
  - name: plain
    competitive:
      teams: 2
      teamSize: 1
      batch: { maxTickets: 100, intervalMs: 100 }
      expansion: [{ afterSeconds: 0, maxScoreGap: 50 }]
`;

/** A port whose calls the test answers (or never answers). */
class ScriptedFunctions implements MatchFunctionPort {
  readonly calls: { address: string; request: MatchBatchRequest; timeoutMs: number; resolve: (games: ProposedGame[]) => void; reject: (error: Error) => void }[] = [];
  propose(address: string, request: MatchBatchRequest, timeoutMs: number): Promise<readonly ProposedGame[]> {
    return new Promise((resolve, reject) => this.calls.push({ address, request, timeoutMs, resolve, reject }));
  }
  close(): void {}
}

const duel = (a: string, b: string, map = '', region = ''): ProposedGame => ({ teams: [[a], [b]], map, region });

function setup() {
  const timers = new ManualTimers();
  const events = new EventHub();
  const fallbacks: CoordinatorEventMap['matchFunctionFallback'][] = [];
  events.on('matchFunctionFallback', (e) => fallbacks.push(e));
  const functions = new ScriptedFunctions();
  const coordinator = testCore(parseConfig(YAML), timers, { events, matchFunctions: functions });
  const server = new RecordingChannel();
  coordinator.connectServer(
    { serverId: 's1', endpoint: 's1:7777', attributes: new Map(), templates: [], capacity: { maxGames: 100, maxStartsPerSecond: 0 }, runningGames: [] },
    server,
  );
  const find = (ticketId: string, score: number, template = 'custom') => {
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
  const games = () => server.creates().map((c) => [...c.playerIds].sort().join('+')).sort();
  return { coordinator, timers, functions, server, find, games, fallbacks };
}

describe('match function', () => {
  it('is offered the batch and its games are placed', async () => {
    const t = setup();
    t.find('a', 1000);
    t.find('b', 1010);
    t.find('c', 1020);
    t.find('d', 1030);
    await t.timers.advance(100);
    expect(t.functions.calls).toHaveLength(1);
    const call = t.functions.calls[0]!;
    expect(call).toMatchObject({ address: 'fn.example:50061', timeoutMs: 500 });
    expect(call.request).toMatchObject({ factory: 'custom', teams: 2, teamSize: 1 });
    expect(call.request.tickets.map((c) => [c.ticketId, c.players[0]!.score, c.waitedMs])).toEqual([
      ['a', 1000, 100],
      ['b', 1010, 100],
      ['c', 1020, 100],
      ['d', 1030, 100],
    ]);
    expect(t.games()).toEqual([]); // nothing placed while it thinks
    // Its own pairing (not the built-in's neighbours): a with d, b with c.
    call.resolve([duel('a', 'd'), duel('b', 'c')]);
    await t.timers.advance(0);
    expect(t.games()).toEqual(['a+d', 'b+c']);
    expect(t.fallbacks).toEqual([]);
  });

  it('leaves the tickets it did not use in the pool for the next batch', async () => {
    const t = setup();
    t.find('a', 1000);
    t.find('b', 1010);
    t.find('c', 1020);
    await t.timers.advance(100);
    t.functions.calls[0]!.resolve([duel('a', 'b')]);
    await t.timers.advance(0);
    expect(t.games()).toEqual(['a+b']);
    t.find('d', 1030);
    await t.timers.advance(100);
    expect(t.functions.calls[1]!.request.tickets.map((c) => c.ticketId)).toEqual(['c', 'd']);
  });

  it('timed out: the built-in matcher forms the batch, and a late answer is ignored', async () => {
    const t = setup();
    t.find('a', 1000);
    t.find('b', 1010);
    await t.timers.advance(100);
    await t.timers.advance(499);
    expect(t.games()).toEqual([]);
    await t.timers.advance(1);
    expect(t.games()).toEqual(['a+b']);
    expect(t.fallbacks).toEqual([{ factory: 'custom', reason: 'timeout', detail: 'no answer within 500 ms' }]);
    t.functions.calls[0]!.resolve([duel('a', 'b')]);
    await t.timers.advance(0);
    expect(t.games()).toEqual(['a+b']);
  });

  it('failed: the built-in matcher forms the batch', async () => {
    const t = setup();
    t.find('a', 1000);
    t.find('b', 1010);
    await t.timers.advance(100);
    t.functions.calls[0]!.reject(new Error('fn.example:50061: 14 connection refused'));
    await t.timers.advance(0);
    expect(t.games()).toEqual(['a+b']);
    expect(t.fallbacks).toEqual([{ factory: 'custom', reason: 'failed', detail: 'fn.example:50061: 14 connection refused' }]);
  });

  it.each([
    ['a ticket twice', [duel('a', 'b'), duel('a', 'c')], 'games[1].teams[0]: ticket "a" is used twice'],
    ['a foreign ticket', [duel('a', 'zed')], 'games[0].teams[1]: ticket "zed" was not offered in this batch'],
    ['a ticket of another factory', [duel('a', 'p1')], 'games[0].teams[1]: ticket "p1" was not offered in this batch'],
    ['a team too large', [{ teams: [['a', 'b'], ['c']], map: '', region: '' }], 'games[0].teams[0]: 2 players; a team has 1'],
    ['too few teams', [{ teams: [['a']], map: '', region: '' }], 'games[0]: 1 teams; the factory plays 2'],
    ['a map the factory lacks', [duel('a', 'b', 'moon')], `games[0].map: "moon" is not one of the factory's maps`],
  ])('refuses an answer with %s, counts it and falls back for that batch only', async (_name, answer, detail) => {
    const t = setup();
    t.find('a', 1000);
    t.find('b', 1010);
    t.find('c', 1500);
    t.find('d', 1510);
    t.find('p1', 1000, 'plain');
    t.find('p2', 1010, 'plain');
    await t.timers.advance(100);
    expect(t.games()).toEqual(['p1+p2']); // the other factory is not held up
    t.functions.calls[0]!.resolve(answer);
    await t.timers.advance(0);
    // The built-in matcher's neighbours, nothing of the answer; every ticket placed once.
    expect(t.games()).toEqual(['a+b', 'c+d', 'p1+p2']);
    expect(t.fallbacks).toEqual([{ factory: 'custom', reason: 'refused', detail }]);
    expect(t.coordinator.view.snapshot().ticketsByState).toMatchObject({ pooled: 0, placing: 6 });
  });

  it('drops a game whose ticket was cancelled while the function thought, and keeps the rest waiting', async () => {
    const t = setup();
    const a = t.find('a', 1000);
    t.find('b', 1010);
    t.find('c', 1020);
    t.find('d', 1030);
    await t.timers.advance(100);
    t.coordinator.cancel('a');
    expect(a.error?.code).toBe('CANCELLED');
    t.functions.calls[0]!.resolve([duel('a', 'b'), duel('c', 'd')]);
    await t.timers.advance(0);
    expect(t.games()).toEqual(['c+d']);
    expect(t.fallbacks).toEqual([]);
    expect(t.coordinator.view.ticket('b')?.state).toBe('pooled');
  });
});

describe('answerProblem', () => {
  const request: MatchBatchRequest = { factory: 'f', teams: 2, teamSize: 2, maps: ['harbor'], regions: ['eu'], tickets: [] };
  const offered = new Map([['duo', 2], ['s1', 1], ['s2', 1]]);
  it('takes parties by their size', () => {
    expect(answerProblem([{ teams: [['duo'], ['s1', 's2']], map: 'harbor', region: 'eu' }], offered, request)).toBeUndefined();
    expect(answerProblem([{ teams: [['duo'], ['s1']], map: '', region: '' }], offered, request)).toBe('games[0].teams[1]: 1 players; a team has 2');
    expect(answerProblem([{ teams: [['duo'], ['s1', 's2']], map: '', region: 'mars' }], offered, request)).toBe(`games[0].region: "mars" is not one of the factory's regions`);
  });
});

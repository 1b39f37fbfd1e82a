import { describe, expect, it } from 'vitest';
import { valueKey } from '../../src/attributes/attribute-value.js';
import { PlayerClaims } from '../../src/cluster/in-process/player-claims.js';
import { parseConfig } from '../../src/config/load.js';
import type { FindRequest } from '../../src/coordinator/messages.js';
import { fingerprintHash } from '../../src/coordinator/tickets/ticket.js';
import type { MatchmakingError } from '../../src/errors/index.js';
import { ManualTimers, RecordingChannel, RecordingListener, SOLO, testCore } from './fixture.js';

const request = (ticketId: string, playerId: string, act = 1n): FindRequest => ({
  ticketId,
  template: 'solo',
  party: [{ playerId, score: undefined }],
  partition: new Map([['region', valueKey({ kind: 'string', value: 'eu' })]]),
  matchable: new Map([['act', valueKey({ kind: 'int', value: act })]]),
  latenciesMs: new Map(),
  preferredMaps: [],
  vetoedMaps: [],
});

const codeOf = (fn: () => unknown) => {
  try {
    fn();
    return 'OK';
  } catch (error) {
    return (error as MatchmakingError).code;
  }
};

/** An assigned ticket is kept for retries as a compact record (its request's hash and its assignment), not whole: the retention tail was most of the coordinator's memory under load. */
describe('answered tickets kept for retries', () => {
  function assignedTicket() {
    const timers = new ManualTimers();
    const players = new PlayerClaims();
    const coordinator = testCore(parseConfig(SOLO), timers, { place: { players } });
    const server = new RecordingChannel();
    coordinator.connectServer(
      { serverId: 's', endpoint: 's:7777', attributes: new Map(), templates: [], capacity: { maxGames: 10, maxStartsPerSecond: 0 }, runningGames: [] },
      server,
    );
    const first = new RecordingListener();
    coordinator.find(request('t1', 'p1'), first);
    coordinator.onServerEvent('s', { kind: 'gameCreated', requestId: server.creates()[0]!.requestId, gameId: 'g1' });
    expect(first.assignment?.gameId).toBe('g1');
    return { coordinator, timers, players, assignment: first.assignment! };
  }

  it('gives a retry of the same request the same assignment, and leaves its players free', () => {
    const { coordinator, players, assignment } = assignedTicket();
    const retry = new RecordingListener();
    coordinator.find(request('t1', 'p1'), retry);
    expect(retry.updates).toEqual([{ kind: 'assigned', assignment }]);
    expect(retry.error).toBeUndefined();
    // The edge claimed p1 for the retry; the assigned ticket holds no player, so the claim is given back.
    expect(players.holder('p1')).toBeUndefined();
    expect(coordinator.view.ticket('t1')).toMatchObject({ state: 'assigned', playerIds: [] });
    expect(coordinator.view.snapshot().ticketsByState.assigned).toBe(1);
    // A second retry too: no listener is kept, nothing is sent to the first retry's.
    const again = new RecordingListener();
    coordinator.find(request('t1', 'p1'), again);
    expect(again.assignment).toEqual(assignment);
    expect(retry.error).toBeUndefined();
  });

  it('refuses a different request under the same id, and gives back the players claimed for it', () => {
    const { coordinator, players } = assignedTicket();
    expect(codeOf(() => coordinator.find(request('t1', 'p2'), new RecordingListener()))).toBe('ALREADY_EXISTS');
    expect(players.holder('p2')).toBeUndefined();
    expect(codeOf(() => coordinator.find(request('t1', 'p1', 2n), new RecordingListener()))).toBe('ALREADY_EXISTS');
    expect(codeOf(() => coordinator.find({ ...request('t1', 'p1'), maxLatencyMs: 80 }, new RecordingListener()))).toBe('ALREADY_EXISTS');
    // The same request is still answered after the refusals.
    const retry = new RecordingListener();
    coordinator.find(request('t1', 'p1'), retry);
    expect(retry.assignment?.gameId).toBe('g1');
  });

  it('forgets the answered ticket when its retention is over', async () => {
    const { coordinator, timers } = assignedTicket();
    await timers.advance(29_000);
    expect(coordinator.view.ticket('t1')?.state).toBe('assigned');
    await timers.advance(1_000);
    expect(coordinator.view.ticket('t1')).toBeUndefined();
    expect(coordinator.view.snapshot().ticketsByState.assigned).toBe(0);
    expect(coordinator.view.snapshot().tickets).toBe(0);
  });

  it('hashes requests that differ in any field apart, and equal requests alike', () => {
    const base = fingerprintHash(request('t', 'p'));
    expect(fingerprintHash(request('t', 'p'))).toEqual(base);
    // The ticket id is not part of the fingerprint (it is the key).
    expect(fingerprintHash(request('other', 'p'))).toEqual(base);
    const r = request('t', 'p');
    const changes: FindRequest[] = [
      request('t', 'q'),
      request('t', 'p', 2n),
      { ...r, template: 'party' },
      { ...r, preferredMaps: ['m'] },
      { ...r, vetoedMaps: ['m'] },
      { ...r, party: [{ playerId: 'p', score: 1.5 }] },
      { ...r, latenciesMs: new Map([['eu', 20]]) },
      { ...r, waitBudgetMs: 1000 },
      { ...r, maxLatencyMs: 1000 },
      { ...r, location: { latitude: 1, longitude: 2 } },
      { ...r, softAttributes: new Map() },
      { ...r, softAttributes: new Map([['language', 'fr']]) },
    ];
    const hashes = changes.map((changed) => fingerprintHash(changed).join());
    expect(new Set([base.join(), ...hashes]).size).toBe(changes.length + 1);
    // Maps hash by content, whatever their insertion order.
    const two = (a: [string, number], b: [string, number]) => fingerprintHash({ ...r, latenciesMs: new Map([a, b]) });
    expect(two(['eu', 20], ['us', 90])).toEqual(two(['us', 90], ['eu', 20]));
    const partition = (...entries: [string, string][]) => fingerprintHash({ ...r, partition: new Map(entries) });
    const ordered = partition(['difficulty', 's:hard'], ['hardcore', 'b:false'], ['version', 's:v201']);
    expect(partition(['version', 's:v201'], ['difficulty', 's:hard'], ['hardcore', 'b:false'])).toEqual(ordered);
    expect(partition(['hardcore', 'b:false'], ['version', 's:v201'], ['difficulty', 's:hard'])).toEqual(ordered);
    // Values under swapped keys are another request.
    expect(partition(['difficulty', 's:v201'], ['hardcore', 'b:false'], ['version', 's:hard'])).not.toEqual(ordered);
    for (const h of base) expect(Number.isInteger(h) && h >= 0 && h < 2 ** 30).toBe(true);
  });
});

import { describe, expect, it } from 'vitest';
import { FindError, status } from '@gamefactory/matchmaking-client';
import { describeFailure, describeUpdate, failureAsJson, updateAsJson } from '../../clients/examples/describe-update.js';

/** `gamefactory find` prints what a person reads, and JSON lines with --json. */
describe('find output', () => {
  const assignment = {
    gameId: 'g-17',
    serverEndpoint: '10.0.0.5:7777',
    factory: 'diablo/difficulty=hard',
    reservationToken: 'tok-1',
    serverId: 's1',
    created: true,
    map: '',
    region: '',
    team: 0,
    seatTokens: {},
  };

  it('a queued update reads as a position, a matching one as matching', () => {
    expect(describeUpdate({ kind: 'queued', factory: 'f', position: 3, estimatedWaitMs: 2400 })).toBe('queued at position 3 in f (about 2 s)');
    expect(describeUpdate({ kind: 'queued', factory: 'f', position: 0, estimatedWaitMs: 0 })).toBe('matching in f…');
  });

  it('an assignment reads as matched, then endpoint, game id and token', () => {
    const text = describeUpdate({ kind: 'assignment', assignment });
    expect(text).toBe('matched into a new game (diablo/difficulty=hard)\nassigned: 10.0.0.5:7777  game g-17  token tok-1');
  });

  it('a competitive assignment names its map, region and team', () => {
    const text = describeUpdate({ kind: 'assignment', assignment: { ...assignment, map: 'dust', region: 'eu', team: 1 } });
    expect(text).toContain('map dust, region eu, team 1');
  });

  it('a resume and a failure read as what happened', () => {
    expect(describeUpdate({ kind: 'resuming', address: '127.0.0.1:50052', delayMs: 100, reason: 'Connection dropped' })).toBe(
      'node lost (Connection dropped); resuming on 127.0.0.1:50052 in 100 ms',
    );
    expect(describeFailure(new FindError('t', status.FAILED_PRECONDITION, 'no server serves it'))).toBe('failed: FAILED_PRECONDITION: no server serves it');
  });

  it('--json prints one object per update keyed by what it is', () => {
    expect(JSON.parse(updateAsJson('t', { kind: 'assignment', assignment }))).toEqual({ ticketId: 't', assignment });
    expect(JSON.parse(updateAsJson('t', { kind: 'queued', factory: 'f', position: 2, estimatedWaitMs: 0 }))).toEqual({
      ticketId: 't',
      queued: { factory: 'f', position: 2, estimatedWaitMs: 0 },
    });
    expect(JSON.parse(failureAsJson(new FindError('t', status.NOT_FOUND, 'no such template')))).toEqual({ ticketId: 't', error: { code: 5, message: 'no such template' } });
  });
});

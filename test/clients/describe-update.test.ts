import { describe, expect, it } from 'vitest';
import { describeUpdate, updateAsJson } from '../../clients/lib/describe-update.js';

/** Issue 10, defect 4: `gamefactory find` prints what a person reads, and JSON lines with --json. */
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
  };

  it('a queued update reads as a position, a matching one as matching', () => {
    expect(describeUpdate({ ticketId: 't', update: { $case: 'queued', value: { factory: 'f', position: 3, estimatedWaitMs: 2400 } } })).toBe(
      'queued at position 3 in f (about 2 s)',
    );
    expect(describeUpdate({ ticketId: 't', update: { $case: 'queued', value: { factory: 'f', position: 0, estimatedWaitMs: 0 } } })).toBe('matching in f…');
  });

  it('an assignment reads as matched, then endpoint, game id and token; never the oneof', () => {
    const text = describeUpdate({ ticketId: 't', update: { $case: 'assignment', value: assignment } });
    expect(text).toBe('matched into a new game (diablo/difficulty=hard)\nassigned: 10.0.0.5:7777  game g-17  token tok-1');
    expect(text).not.toContain('$case');
  });

  it('--json prints one object per update keyed by what it is', () => {
    const line = updateAsJson({ ticketId: 't', update: { $case: 'assignment', value: assignment } });
    expect(JSON.parse(line)).toEqual({ ticketId: 't', assignment });
    expect(line).not.toContain('$case');
  });
});

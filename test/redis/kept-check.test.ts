import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { FindRequest } from '../../src/coordinator/messages.js';
import { fingerprint } from '../../src/coordinator/tickets/ticket.js';
import { checkKept, keptCheck } from '../../src/redis/relay/kept-check.js';

const request = (playerId: string, act = 'a1'): FindRequest => ({
  ticketId: 't1',
  template: 'coop',
  party: [{ playerId, score: undefined }],
  partition: new Map([['region', 'eu']]),
  matchable: new Map([['act', act]]),
  latenciesMs: new Map(),
  preferredMaps: [],
  vetoedMaps: [],
});

describe('the check kept with an assignment, for a find that resumes on another node', () => {
  it('passes the same request and refuses another under the same ticket id', () => {
    const kept = keptCheck(request('alice'));
    expect(() => checkKept(request('alice'), kept)).not.toThrow();
    expect(() => checkKept(request('mallory'), kept)).toThrow(/already used by a different request/);
    expect(() => checkKept(request('alice', 'a2'), kept)).toThrow(/already used by a different request/);
  });

  it('still reads what an older node kept (a SHA-256 of the fingerprint), whatever letter it starts with', () => {
    for (const player of ['alice', 'bob', 'carol', 'dave', 'erin', 'frank', 'grace', 'heidi']) {
      const old = { fingerprint: createHash('sha256').update(fingerprint(request(player))).digest('base64url').slice(0, 22) };
      expect(() => checkKept(request(player), old)).not.toThrow();
      expect(() => checkKept(request(`${player}-other`), old)).toThrow(/already used by a different request/);
    }
  });
});

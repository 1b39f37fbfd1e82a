import { describe, expect, it } from 'vitest';
import { validateTicket } from '../../src/competitive/index.js';
import { config, party, solo } from './fixtures.js';

const c = config({ teamSize: 2, maps: ['arena', 'canyon'], regions: ['eu', 'us'] });

describe('validateTicket', () => {
  it.each([
    ['empty id', solo('', 1), 'ticket_id: must not be empty'],
    ['empty party', party('t', []), 'party: must have at least one player'],
    ['party too big', party('t', [1, 2, 3]), 'party: 3 players do not fit a team of 2'],
    ['non-finite score', party('t', [1, Number.POSITIVE_INFINITY]), 'party[1].score: must be a finite number'],
    ['NaN score', solo('t', Number.NaN), 'party[0].score: must be a finite number'],
    ['unknown region', solo('t', 1, { latency: { mars: 10 } }), 'latencies_ms[mars]: unknown region'],
    ['negative latency', solo('t', 1, { latency: { eu: -1 } }), 'latencies_ms[eu]: must be a non-negative finite number'],
    ['unknown preferred map', solo('t', 1, { preferred: ['moon'] }), 'preferred_maps[0]: unknown map'],
    ['unknown vetoed map', solo('t', 1, { vetoed: ['arena', 'moon'] }), 'vetoed_maps[1]: unknown map'],
    ['preferred and vetoed', solo('t', 1, { preferred: ['arena'], vetoed: ['arena'] }), 'preferred_maps[0]: arena is also vetoed'],
    ['every map vetoed', solo('t', 1, { vetoed: ['arena', 'canyon'] }), 'vetoed_maps: every map is vetoed'],
    ['non-finite enqueue time', solo('t', 1, { enqueuedAt: Number.NaN }), 'enqueued_at: must be a finite number'],
  ])('%s', (_, ticket, message) => {
    expect(validateTicket(c, ticket)).toBe(message);
  });

  it('names a duplicated player', () => {
    const ticket = { ...party('t', [1, 2]), players: [{ playerId: 'x', score: 1 }, { playerId: 'x', score: 2 }] };
    expect(validateTicket(c, ticket)).toBe('party[1].player_id: same player as party[0]');
  });

  it('accepts a well-formed ticket', () => {
    expect(validateTicket(c, party('t', [1, 2], { latency: { eu: 30 }, preferred: ['arena'], vetoed: ['canyon'] }))).toBeUndefined();
  });

  it('ignores latencies when no regions are configured', () => {
    expect(validateTicket(config(), solo('t', 1, { latency: { mars: 10 } }))).toBeUndefined();
  });
});

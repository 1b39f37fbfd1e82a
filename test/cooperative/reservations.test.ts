import { describe, expect, it } from 'vitest';
import { CooperativeMatcher, type CooperativeConfig } from '../../src/cooperative/index.js';
import { attributeSetOf } from './matching-cases.js';

const act1 = attributeSetOf({ act: 1 });
const config: CooperativeConfig = { maxPlayers: 4, matchableKeys: ['act', 'quest'], reservationMs: 1_000 };

function matcherWith(...games: [id: string, players: string[], startedAt?: number][]): CooperativeMatcher {
  const matcher = new CooperativeMatcher(config);
  for (const [gameId, playerIds, startedAt] of games) {
    matcher.addGame({ gameId, attributes: act1, playerIds, open: true, startedAt: startedAt ?? 0 });
  }
  return matcher;
}

describe('seat reservations', () => {
  it('two parties are never promised the same last seat', () => {
    const matcher = matcherWith(['g', ['a', 'b', 'c']]);
    expect(matcher.reserve(act1, ['p1'], 't1', 0)).toEqual({ gameId: 'g' });
    expect(matcher.reserve(act1, ['p2'], 't2', 0)).toBeUndefined();
    expect(matcher.game('g')).toMatchObject({ openSlots: 0, reservedPlayerIds: ['p1'] });
  });

  it('never holds more than maxPlayers players and promised seats through reserve()', () => {
    const matcher = matcherWith(['g', []], ['h', ['x']]);
    let reserved = 0;
    for (let i = 0; i < 20; i++) {
      const party = i % 2 === 0 ? [`s${i}`] : [`d${i}a`, `d${i}b`];
      if (matcher.reserve(attributeSetOf({}), party, `t${i}`, i) !== undefined) reserved += party.length;
    }
    for (const id of ['g', 'h']) {
      const game = matcher.game(id)!;
      expect(game.playerIds.length + game.reservedPlayerIds.length).toBeLessThanOrEqual(4);
    }
    expect(reserved).toBe(7);
  });

  it('a join consumes the seat; the reservation ends when the whole party has joined', () => {
    const matcher = matcherWith(['g', []]);
    matcher.reserve(act1, ['p1', 'p2'], 't', 0);
    matcher.playerJoined('g', 'p1', 10);
    expect(matcher.reservation('t')).toMatchObject({ playerIds: ['p2'] });
    expect(matcher.game('g')).toMatchObject({ openSlots: 2, playerIds: ['p1'], reservedPlayerIds: ['p2'] });
    matcher.playerJoined('g', 'p2', 20);
    expect(matcher.reservation('t')).toBeUndefined();
    expect(matcher.nextReservationExpiry()).toBeUndefined();
    expect(matcher.expireReservations(10_000)).toEqual([]);
    expect(matcher.game('g')?.openSlots).toBe(2);
  });

  it('expired reservations free their seats, earliest deadline first', () => {
    const matcher = matcherWith(['g', ['a', 'b']]);
    matcher.reserve(act1, ['p1'], 'late', 500);
    matcher.reserve(act1, ['p2'], 'early', 0);
    expect(matcher.game('g')?.openSlots).toBe(0);
    expect(matcher.nextReservationExpiry()).toBe(1_000);
    expect(matcher.expireReservations(999)).toEqual([]);
    expect(matcher.expireReservations(1_000)).toEqual([{ token: 'early', gameId: 'g', playerIds: ['p2'], expiresAt: 1_000 }]);
    expect(matcher.game('g')?.openSlots).toBe(1);
    expect(matcher.nextReservationExpiry()).toBe(1_500);
    expect(matcher.expireReservations(5_000).map((r) => r.token)).toEqual(['late']);
    expect(matcher.game('g')?.openSlots).toBe(2);
    expect(matcher.reserve(act1, ['p3', 'p4'], 'again', 5_000)).toEqual({ gameId: 'g' });
  });

  it('a released reservation frees its seats; unknown tokens are ignored', () => {
    const matcher = matcherWith(['g', ['a', 'b', 'c']]);
    matcher.reserve(act1, ['p1'], 't', 0);
    matcher.releaseReservation('t');
    matcher.releaseReservation('never-issued');
    expect(matcher.reserve(act1, ['p2'], 't2', 0)).toEqual({ gameId: 'g' });
  });

  it('a server-reported join into a full game is recorded truthfully, open slots stay 0', () => {
    const matcher = matcherWith(['g', ['a', 'b', 'c']]);
    matcher.reserve(act1, ['p1'], 't', 0);
    matcher.playerJoined('g', 'walk-in', 0);
    expect(matcher.game('g')).toMatchObject({ openSlots: 0, playerIds: ['a', 'b', 'c', 'walk-in'] });
    expect(matcher.stats([], 'all', 0)).toMatchObject({ players: 4, openSlots: 0, openGamesByOpenSlots: [0, 0, 0, 0] });
    matcher.playerJoined('g', 'p1', 1);
    expect(matcher.game('g')?.playerIds).toHaveLength(5);
    matcher.playerLeft('g', 'a', 2);
    matcher.playerLeft('g', 'b', 2);
    expect(matcher.game('g')?.openSlots).toBe(1);
  });

  it('fill: a player who leaves and re-finds lands back in the same game', () => {
    const matcher = matcherWith(['busy', ['a', 'b', 'c'], 0], ['quiet', ['d'], 5]);
    matcher.playerLeft('busy', 'b', 10);
    expect(matcher.reserve(act1, ['b'], 'back', 11)).toEqual({ gameId: 'busy' });
  });

  it('a party can be placed in a just-created game, if it has room', () => {
    const matcher = matcherWith(['fresh', []]);
    matcher.setOpen('fresh', false);
    expect(matcher.reserveInGame('fresh', ['p1', 'p2', 'p3'], 't1', 0)).toBe(true);
    expect(matcher.reserveInGame('fresh', ['p4', 'p5'], 't2', 0)).toBe(false);
    expect(matcher.reservation('t2')).toBeUndefined();
    expect(matcher.game('fresh')?.openSlots).toBe(1);
  });

  it('removing a game returns its players and the reservations it voids', () => {
    const matcher = matcherWith(['g', ['a']]);
    matcher.reserve(act1, ['p1', 'p2'], 't', 0);
    matcher.playerJoined('g', 'p1', 1);
    expect(matcher.removeGame('g')).toEqual({
      gameId: 'g',
      playerIds: ['a', 'p1'],
      reservations: [{ token: 't', gameId: 'g', playerIds: ['p2'], expiresAt: 1_000 }],
    });
    expect(matcher.reservation('t')).toBeUndefined();
    expect(matcher.expireReservations(5_000)).toEqual([]);
    expect(matcher.size).toBe(0);
    expect(matcher.removeGame('g')).toBeUndefined();
  });

  it('a re-announced game keeps seats still promised and counts joins it reports', () => {
    const matcher = matcherWith(['g', ['a']]);
    matcher.reserve(act1, ['p1', 'p2'], 't', 0);
    matcher.addGame({ gameId: 'g', attributes: act1, playerIds: ['a', 'p1'], open: true, startedAt: 0 });
    expect(matcher.game('g')).toMatchObject({ playerIds: ['a', 'p1'], reservedPlayerIds: ['p2'], openSlots: 1 });
  });

  it('a player promised a seat twice in one game holds one seat', () => {
    const matcher = matcherWith(['g', []]);
    matcher.reserve(act1, ['p1', 'p2'], 't1', 0);
    matcher.reserve(act1, ['p1'], 't2', 0);
    expect(matcher.game('g')?.openSlots).toBe(2);
    expect(matcher.reservation('t1')?.playerIds).toEqual(['p2']);
  });
});

describe('caller errors', () => {
  const matcher = matcherWith(['g', []]);

  it('names a key outside matchableKeys, in queries, games and stats', () => {
    expect(() => matcher.reserve(attributeSetOf({ mode: 'pvp' }), ['p'], 't', 0)).toThrow(/'mode'/);
    expect(() =>
      matcher.addGame({ gameId: 'h', attributes: attributeSetOf({ act: 1, mode: 'pvp' }), playerIds: [], open: true, startedAt: 0 }),
    ).toThrow(/'mode'/);
    expect(() => matcher.setAttributes('g', attributeSetOf({ mode: 'pvp' }))).toThrow(/'mode'/);
    expect(() => matcher.stats([['mode', 's:pvp']], 'any', 0)).toThrow(/'mode'/);
    expect(matcher.has('h')).toBe(false);
    expect(matcher.game('g')?.attributes).toEqual(act1);
  });

  it('rejects bad parties, reused tokens, unknown games and bad configs', () => {
    expect(() => matcher.reserve(act1, [], 't', 0)).toThrow(/party/);
    expect(() => matcher.reserve(act1, ['a', 'b', 'c', 'd', 'e'], 't', 0)).toThrow(/party/);
    expect(() => matcher.reserve(act1, ['a', 'a'], 't', 0)).toThrow(/twice/);
    matcher.reserve(act1, ['a'], 'used', 0);
    expect(() => matcher.reserve(act1, ['b'], 'used', 0)).toThrow(/already in use/);
    expect(() => matcher.playerJoined('nope', 'a', 0)).toThrow(/unknown game 'nope'/);
    expect(() => new CooperativeMatcher({ ...config, matchableKeys: ['a', 'b', 'c', 'd', 'e', 'f', 'g'] })).toThrow(/at most 6/);
    expect(() => new CooperativeMatcher({ ...config, maxPlayers: 0 })).toThrow(/maxPlayers/);
  });
});

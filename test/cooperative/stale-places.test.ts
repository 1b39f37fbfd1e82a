import { describe, expect, it } from 'vitest';
import { CooperativeMatcher } from '../../src/cooperative/index.js';
import { attributeSetOf } from './matching-cases.js';

/**
 * The open-game index leaves a game in the buckets it left (issue 15) and drops those places
 * lazily: when they surface, when the game fills or closes, or when it holds too many. These walk
 * one game through every open-slot count, with a rival game, and check every answer.
 */
describe('open-game index with stale places', () => {
  // 12 rivals make the buckets bigger than the 8 places OpenGameIndex scans, so stale tops are dropped.
  for (const [maxPlayers, rivals] of [[8, 1], [40, 1], [8, 12], [40, 12]] as const) {
    it(`answers from the live bucket after a game moved through every slot count (maxPlayers ${maxPlayers}, ${rivals} rivals)`, () => {
      const matcher = new CooperativeMatcher({ maxPlayers, matchableKeys: ['act', 'zone'], reservationMs: 1_000 });
      const attributes = attributeSetOf({ act: 1, zone: 'z' });
      // The rival started earlier, so at equal open slots the walker (newer) wins.
      matcher.addGame({ gameId: 'rival', attributes, playerIds: ['r1', 'r2'], open: true, startedAt: 0 });
      const rivalIds = ['rival'];
      for (let i = 1; i < rivals; i++) {
        rivalIds.push(`rival${i}`);
        matcher.addGame({ gameId: `rival${i}`, attributes, playerIds: [`r1/${i}`, `r2/${i}`], open: true, startedAt: -i });
      }
      matcher.addGame({ gameId: 'walker', attributes, playerIds: [], open: true, startedAt: 1 });
      const rivalSlots = maxPlayers - 2;
      let token = 0;
      // Fill the walker one promised seat at a time, releasing every other promise and taking it
      // again, so it leaves and re-enters buckets over and over.
      for (let seated = 0; seated < maxPlayers; seated++) {
        const open = maxPlayers - seated;
        // fill: the fewest sufficient open slots first; ties go to the newer game, the walker
        const expected = open <= rivalSlots ? 'walker' : 'rival';
        expect(matcher.reserve(attributes, [`probe${token}`], `probe${token}`, 0)?.gameId).toBe(expected);
        matcher.releaseReservation(`probe${token++}`);
        expect(matcher.reserve(attributeSetOf({ zone: 'z' }), [`probe${token}`], `probe${token}`, 0)?.gameId).toBe(expected);
        matcher.releaseReservation(`probe${token++}`);
        if (open < maxPlayers - 1) {
          // The walker still sits, stale, in the buckets for more slots than it has: no game has
          // room for this party, and a stale place must not say otherwise.
          const big = Array.from({ length: maxPlayers - 1 }, (_, i) => `big${i}`);
          expect(matcher.reserve(attributes, big, `big${token++}`, 0)).toBeUndefined();
        }
        expect(matcher.reserveInGame('walker', [`p${seated}`], `seat${seated}`, 0)).toBe(true);
        if (seated % 2 === 0) {
          matcher.releaseReservation(`seat${seated}`);
          expect(matcher.reserveInGame('walker', [`p${seated}`], `seat${seated}`, 0)).toBe(true);
        }
      }
      // The walker is full: only the rival is left, whatever party fits it.
      expect(matcher.reserve(attributes, ['a'], 'a', 0)?.gameId).toBe('rival');
      matcher.releaseReservation('a');
      expect(matcher.reserve(attributeSetOf({}), Array.from({ length: rivalSlots }, (_, i) => `b${i}`), 'b', 0)?.gameId).toBe('rival');
      matcher.releaseReservation('b');
      // Everything promised in the walker goes back: it is the emptiest and newest game again.
      for (let seated = 0; seated < maxPlayers; seated++) matcher.releaseReservation(`seat${seated}`);
      const party = Array.from({ length: maxPlayers }, (_, i) => `c${i}`);
      expect(matcher.reserve(attributes, party, 'c', 0)?.gameId).toBe('walker');
      matcher.releaseReservation('c');
      const { openGames } = matcher.indexContents();
      expect(openGames.get(matcher.subsetKeyOf(attributes))).toEqual(
        new Map([
          [maxPlayers, ['walker']],
          [rivalSlots, rivalIds],
        ]),
      );
      // Closing and reopening drops every place and puts the game back where it belongs.
      matcher.setOpen('walker', false);
      expect(matcher.reserve(attributes, ['d'], 'd', 0)?.gameId).toBe('rival');
      matcher.releaseReservation('d');
      matcher.setOpen('walker', true);
      expect(matcher.reserve(attributes, party, 'e', 0)?.gameId).toBe('walker');
    });
  }

  it('drops stale tops of a bucket too big to scan until a live game surfaces', () => {
    const matcher = new CooperativeMatcher({ maxPlayers: 4, matchableKeys: ['zone'], reservationMs: 1_000 });
    const attributes = attributeSetOf({ zone: 'z' });
    // 'older' really has 3 open slots; g0..g11 are newer and have 4, but each visits the 3-slot
    // bucket once (a promise and its release) and leaves a stale place above 'older' there.
    matcher.addGame({ gameId: 'older', attributes, playerIds: ['o'], open: true, startedAt: 0 });
    const newer = Array.from({ length: 12 }, (_, i) => `g${i}`);
    newer.forEach((gameId, i) => matcher.addGame({ gameId, attributes, playerIds: [], open: true, startedAt: i + 1 }));
    for (const gameId of newer) {
      expect(matcher.reserveInGame(gameId, ['p'], `visit-${gameId}`, 0)).toBe(true);
      matcher.releaseReservation(`visit-${gameId}`);
    }
    // fill: the fewest sufficient open slots first, so the 3-slot bucket, whose only live game is 'older'
    expect(matcher.reserve(attributes, ['a'], 'a', 0)).toEqual({ gameId: 'older' });
    matcher.releaseReservation('a');
    expect(matcher.reserve(attributeSetOf({}), ['b'], 'b', 0)).toEqual({ gameId: 'older' });
    matcher.releaseReservation('b');
    expect(matcher.indexContents().openGames.get(matcher.subsetKeyOf(attributes))).toEqual(
      new Map([
        [3, ['older']],
        [4, [...newer].reverse()],
      ]),
    );
  });
});

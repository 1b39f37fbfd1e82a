import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { PartialGame, RemainingPlayer } from '../../src/competitive/index.js';
import { config, matcher, party, solo, steps } from './fixtures.js';

const twoVsTwo = config({ teams: 2, teamSize: 2, expansion: steps([0, 300], [10_000, 1000]) });

function partial(players: RemainingPlayer[], extra: Partial<PartialGame> = {}): PartialGame {
  return { backfillId: 'b1', players, map: undefined, region: undefined, enqueuedAt: 0, ...extra };
}

/** A 2v2 whose team 1 lost a player: team 0 holds 1500 and 1500, team 1 holds 1600. */
const oneLeft = partial([
  { playerId: 'a1', score: 1500, team: 0 },
  { playerId: 'a2', score: 1500, team: 0 },
  { playerId: 'b1', score: 1600, team: 1 },
]);

describe('competitive backfill: filling a partial game from the pool', () => {
  it('a 2v2 where one player left takes the newcomer that balances the teams after the fill, not the one closest to the game', () => {
    const m = matcher(twoVsTwo);
    for (const t of [solo('t1400', 1400), solo('t1600', 1600), solo('t1800', 1800)]) m.add(t);
    m.addPartialGame(oneLeft);
    const [fill, ...more] = m.fillPartialGames(100);
    expect(more).toEqual([]);
    // 1400 makes team 1's mean 1500, the same as team 0's; 1600 is nearer the game's mean (1533) and the leaver's team, but leaves 1500 v 1600.
    expect(fill?.seats).toEqual([{ ticketId: 't1400', team: 1 }]);
    expect(fill?.teamImbalance).toBe(0);
    expect(fill?.scoreGap).toBe(200);
    expect(m.size).toBe(2);
    expect(m.partialGames).toBe(0);
  });

  it('runs before the batch: the ticket it took is not in any new game, the rest still form games', () => {
    const m = matcher(config({ teams: 2, teamSize: 1 }));
    for (const t of [solo('x', 1500), solo('y', 1510), solo('z', 1490)]) m.add(t);
    m.addPartialGame(partial([{ playerId: 'p', score: 1500, team: 0 }]));
    const fills = m.fillPartialGames(0);
    expect(fills.map((f) => f.seats)).toEqual([[{ ticketId: 'x', team: 1 }]]);
    const games = m.formGames(0);
    expect(games.flatMap((g) => g.teams.flat()).sort()).toEqual(['y', 'z']);
  });

  it('waits while no ticket lies within the windows, and fills once the request has waited into a wider step', () => {
    const m = matcher(twoVsTwo);
    m.add(solo('far', 2200, { enqueuedAt: 0 }));
    m.addPartialGame(oneLeft);
    expect(m.fillPartialGames(100)).toEqual([]);
    expect(m.partialGames).toBe(1);
    // Both the request and the ticket have waited 10 s: windows of 1000.
    expect(m.fillPartialGames(10_000).map((f) => f.seats)).toEqual([[{ ticketId: 'far', team: 1 }]]);
  });

  it('keeps the game where it is played: no newcomer without a latency to its region under its cap, none who vetoed its map', () => {
    const c = config({ teams: 2, teamSize: 2, maps: ['dust', 'mirage'], regions: ['eu', 'us'], expansion: steps([0, 1000, 80]) });
    const m = matcher(c);
    m.add(solo('us-only', 1400, { latency: { us: 20 } }));
    m.add(solo('eu-far', 1400, { latency: { eu: 150 } }));
    m.add(solo('hates-dust', 1400, { latency: { eu: 20 }, vetoed: ['dust'] }));
    m.add(solo('fits', 1450, { latency: { eu: 30, us: 10 } }));
    m.addPartialGame({ ...oneLeft, map: 'dust', region: 'eu' });
    expect(m.fillPartialGames(0).map((f) => f.seats)).toEqual([[{ ticketId: 'fits', team: 1 }]]);
  });

  it('weighs soft preferences over the whole game: the newcomer who shares the remaining players\' language wins a tie', () => {
    const c = config({ teams: 2, teamSize: 2, expansion: steps([0, 1000]), softPreferences: [{ attribute: 'language', weight: 0.5 }] });
    const m = matcher(c);
    const fr = new Map([['language', 'fr']]);
    const de = new Map([['language', 'de']]);
    m.add({ ...solo('de', 1400), softAttributes: de });
    m.add({ ...solo('fr', 1400), softAttributes: fr });
    m.addPartialGame(partial(oneLeft.players.map((p) => ({ ...p, softAttributes: fr }))));
    expect(m.fillPartialGames(0)[0]?.seats).toEqual([{ ticketId: 'fr', team: 1 }]);
  });

  it('fills two open seats on two teams so that the teams are balanced after the fill, and never splits a party', () => {
    const m = matcher(config({ teams: 2, teamSize: 3, expansion: steps([0, 2000]) }));
    for (const t of [solo('s1', 1200), solo('s2', 1800), party('duo', [1500, 1500])]) m.add(t);
    const players: RemainingPlayer[] = [
      { playerId: 'a1', score: 1600, team: 0 },
      { playerId: 'a2', score: 1600, team: 0 },
      { playerId: 'b1', score: 1400, team: 1 },
      { playerId: 'b2', score: 1400, team: 1 },
    ];
    const [fill] = m.fillPartialGames((m.addPartialGame(partial(players)), 0));
    // 1200 joins the stronger team, 1800 the weaker: 1466.7 v 1533.3 is the best the pool allows with one seat each.
    expect(fill?.seats).toEqual(expect.arrayContaining([{ ticketId: 's1', team: 0 }, { ticketId: 's2', team: 1 }]));
    expect(fill?.seats).toHaveLength(2);
  });

  it('property: a fill takes pool tickets once each, fills exactly every open seat, and is within every window', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 1000, max: 2000 }), fc.integer({ min: 1, max: 2 })), { minLength: 0, maxLength: 40 }),
        fc.array(fc.tuple(fc.integer({ min: 1000, max: 2000 }), fc.integer({ min: 0, max: 1 })), { minLength: 1, maxLength: 5 }),
        (pool, remaining) => {
          const c = config({ teams: 2, teamSize: 3, expansion: steps([0, 250]) });
          const m = matcher(c);
          pool.forEach(([score, size], i) => m.add(party(`t${i}`, Array.from({ length: size }, () => score))));
          const players = remaining.map(([score, team], i) => ({ playerId: `r${i}`, score, team }));
          if ([0, 1].some((t) => players.filter((p) => p.team === t).length > 3)) return;
          m.addPartialGame(partial(players));
          const fills = m.fillPartialGames(0);
          for (const fill of fills) {
            const ids = fill.seats.map((s) => s.ticketId);
            expect(new Set(ids).size).toBe(ids.length);
            for (const team of [0, 1]) {
              const newcomers = fill.seats.filter((s) => s.team === team).reduce((n, s) => n + (pool[Number(s.ticketId.slice(1))]![1]), 0);
              expect(newcomers + players.filter((p) => p.team === team).length).toBe(3);
            }
            const scores = [...players.map((p) => p.score), ...ids.map((id) => pool[Number(id.slice(1))]![0])];
            const low = Math.min(...players.map((p) => p.score));
            const high = Math.max(...players.map((p) => p.score));
            expect(Math.min(...scores)).toBeGreaterThanOrEqual(low - 250);
            expect(Math.max(...scores)).toBeLessThanOrEqual(high + 250);
            // Every newcomer's own window holds the whole game.
            expect(Math.max(...scores) - Math.min(...scores)).toBeLessThanOrEqual(Math.max(250, high - low + 250));
          }
          expect(m.size).toBe(pool.length - fills.flatMap((f) => f.seats).length);
        },
      ),
      { numRuns: 200 },
    );
  });
});

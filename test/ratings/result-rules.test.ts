import { describe, expect, it } from 'vitest';
import { MatchmakingError } from '../../src/errors/index.js';
import { DEFAULT_ELO, eloSystem, type LadderConfig } from '../../src/ratings/index.js';
import { rateResult, validateResult, type HostedGame, type ReportedResult } from '../../src/ratings/result-rules.js';

const hosted: HostedGame = { gameId: 'g1', serverId: 's1', players: new Set(['a', 'b', 'c', 'd']) };
const good: ReportedResult = {
  gameId: 'g1',
  serverId: 's1',
  teams: [
    { players: ['a', 'b'], rank: 0 },
    { players: ['c', 'd'], rank: 1 },
  ],
  durationSeconds: 600,
  leftEarly: [],
};

function refusal(result: ReportedResult, game: HostedGame | undefined): MatchmakingError {
  try {
    validateResult(result, game);
  } catch (e) {
    return e as MatchmakingError;
  }
  throw new Error('accepted');
}

describe('validating a reported result', () => {
  it('accepts a well-formed result from the hosting server', () => {
    expect(() => validateResult(good, hosted)).not.toThrow();
  });

  it.each([
    ['no game id', { ...good, gameId: '' }, 'game_result.game_id'],
    ['one team', { ...good, teams: [good.teams[0]!] }, 'game_result.teams'],
    ['negative duration', { ...good, durationSeconds: -1 }, 'game_result.duration_seconds'],
    ['fractional rank', { ...good, teams: [good.teams[0]!, { players: ['c'], rank: 0.5 }] }, 'game_result.teams[1].rank'],
    ['empty team', { ...good, teams: [good.teams[0]!, { players: [], rank: 1 }] }, 'game_result.teams[1].player_ids'],
    ['a player twice', { ...good, teams: [good.teams[0]!, { players: ['c', 'a'], rank: 1 }] }, 'game_result.teams[1].player_ids[1]'],
    ['a leaver not in the game', { ...good, leftEarly: ['z'] }, 'game_result.left_early[0]'],
  ])('INVALID_ARGUMENT for %s, naming %s', (_, result, field) => {
    const error = refusal(result as ReportedResult, hosted);
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message.startsWith(`${field}:`)).toBe(true);
  });

  it('FAILED_PRECONDITION for a game the server does not host, and for an unknown game', () => {
    const wrongServer = refusal({ ...good, serverId: 's2' }, hosted);
    expect(wrongServer.code).toBe('FAILED_PRECONDITION');
    expect(wrongServer.message).toMatch(/server "s2" does not host game "g1"/);
    expect(refusal(good, undefined).code).toBe('FAILED_PRECONDITION');
  });

  it('FAILED_PRECONDITION for a player who was not seated', () => {
    const error = refusal({ ...good, teams: [good.teams[0]!, { players: ['c', 'x'], rank: 1 }] }, hosted);
    expect(error.code).toBe('FAILED_PRECONDITION');
    expect(error.message).toMatch(/^game_result.teams\[1\].player_ids\[1\]: player "x" was not seated/);
  });
});

describe('abuse rules', () => {
  const ladder: LadderConfig = { name: 'duel', system: DEFAULT_ELO, minGameSeconds: 60, earlyLeaverCountsAsLoss: true };
  const elo = eloSystem(DEFAULT_ELO);

  it('a game under the minimum duration does not count', () => {
    const rated = rateResult(elo, ladder, { ...good, durationSeconds: 5 }, new Map(), 0);
    expect(rated.counted).toBe(false);
  });

  it('an early leaver on the winning team loses; teammates keep their win', () => {
    const rated = rateResult(elo, ladder, { ...good, leftEarly: ['b'] }, new Map(), 0);
    if (!rated.counted) throw new Error('not counted');
    expect(rated.ratings.get('a')!.mean).toBe(1516);
    expect(rated.ratings.get('b')!.mean).toBe(1484);
    expect(rated.ratings.get('c')!.mean).toBe(1484);
  });

  it('with the rule off, the leaver shares the team result', () => {
    const rated = rateResult(elo, { ...ladder, earlyLeaverCountsAsLoss: false }, { ...good, leftEarly: ['b'] }, new Map(), 0);
    if (!rated.counted) throw new Error('not counted');
    expect(rated.ratings.get('b')!.mean).toBe(1516);
  });
});

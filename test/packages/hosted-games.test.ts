import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AdmissionError } from '../../packages/game-server-sdk/src/admission-error.js';
import { HostedGames } from '../../packages/game-server-sdk/src/hosted-games.js';

/** The game-server SDK's door: players come in with the token of their seat, or wait a grace for it. */
describe('HostedGames', () => {
  let now: number;
  let joined: string[];
  let games: HostedGames;
  const GRACE = 5000;

  beforeEach(() => {
    vi.useFakeTimers();
    now = 1_000_000;
    joined = [];
    games = new HostedGames(() => now, GRACE, (gameId, playerId) => joined.push(`${gameId}/${playerId}`));
    games.add({ gameId: 'g1', factory: 'coop/region=eu', matchable: { act: 1 } });
  });
  afterEach(() => vi.useRealTimers());

  const refusal = (p: Promise<void>) => p.then(() => 'admitted', (e: AdmissionError) => e.refusal);

  it('lets a player in with the token of its seat, once, and reports the join', async () => {
    games.reserve('g1', [{ playerId: 'alice', token: 'tok' }, { playerId: 'bob', token: 'tok' }], 10_000);
    await games.admit('g1', 'alice', 'tok');
    expect(joined).toEqual(['g1/alice']);
    expect([...games.view.get('g1')!.players]).toEqual(['alice']);
    expect([...games.view.get('g1')!.seats.keys()]).toEqual(['bob']);
    await games.admit('g1', 'alice', 'tok'); // a retry of the same arrival
    expect(joined).toEqual(['g1/alice']);
  });

  it('turns away a wrong token after the grace, even for a player already in the game', async () => {
    games.reserve('g1', [{ playerId: 'alice', token: 'tok' }], 10_000);
    const wrong = refusal(games.admit('g1', 'alice', 'forged'));
    await vi.advanceTimersByTimeAsync(GRACE);
    expect(await wrong).toBe('no-reservation');
    await games.admit('g1', 'alice', 'tok');
    const impostor = refusal(games.admit('g1', 'alice', 'forged'));
    await vi.advanceTimersByTimeAsync(GRACE);
    expect(await impostor).toBe('no-reservation');
    expect(joined).toEqual(['g1/alice']);
  });

  it('a token that arrives after its player, within the grace, lets the waiting player in', async () => {
    const early = games.admit('g1', 'carol', 'late-tok');
    await vi.advanceTimersByTimeAsync(GRACE - 1);
    games.reserve('g1', [{ playerId: 'carol', token: 'late-tok' }], 10_000);
    await expect(early).resolves.toBeUndefined();
    expect(joined).toEqual(['g1/carol']);
  });

  it('a token later than the grace is too late; an unknown game says so', async () => {
    const early = refusal(games.admit('g1', 'dave', 'tok'));
    const nowhere = refusal(games.admit('g9', 'dave', 'tok'));
    await vi.advanceTimersByTimeAsync(GRACE);
    expect(await early).toBe('no-reservation');
    expect(await nowhere).toBe('unknown-game');
    games.reserve('g1', [{ playerId: 'dave', token: 'tok' }], 10_000);
    expect(joined).toEqual([]);
  });

  it('a seat held past its expiry is refused: the coordinator may have given it away', async () => {
    games.reserve('g1', [{ playerId: 'erin', token: 'tok' }], 2000);
    now += 2001;
    expect(await refusal(games.admit('g1', 'erin', 'tok'))).toBe('expired');
  });

  it('ending a game turns away the players waiting at its door', async () => {
    const waiting = refusal(games.admit('g1', 'frank', 'tok'));
    expect(games.end('g1')).toBe(true);
    expect(await waiting).toBe('unknown-game');
    expect(games.view.has('g1')).toBe(false);
  });
});

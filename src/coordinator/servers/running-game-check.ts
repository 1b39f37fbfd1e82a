import type { ServerHello, RunningGame } from '../messages.js';

/** What a hello's running game must respect, so a server cannot re-announce a game that breaks the factory's rules or seats a player twice. */
export interface RunningGameRules {
  /** The factory's game size: cooperative maxPlayers, competitive teams × teamSize. */
  maxPlayers(factory: string): number | undefined;
  /** The factory's matchable keys check, or undefined if fine. */
  matchableProblem(factory: string, game: RunningGame): string | undefined;
  /** A game with this id already runs somewhere. */
  gameRunning(gameId: string): boolean;
  /** The game this player already plays (or holds a seat in), if any. */
  gameOf(playerId: string): string | undefined;
}

/**
 * Sorts a hello's running games into those adopted and those rejected with a reason the server
 * can log. The rest of the hello stands: one bad game does not refuse the server. Checked in
 * order: the factory, the id, the size, duplicate players, a start time in the future (beyond a
 * little clock skew), then the server's capacity (games beyond max_games are rejected).
 */
export function sortRunningGames(
  hello: ServerHello,
  hostedFactories: readonly string[],
  rules: RunningGameRules,
  now: number,
  clockSkewMs = 5_000,
): { adopted: RunningGame[]; rejected: { gameId: string; reason: string }[] } {
  const adopted: RunningGame[] = [];
  const rejected: { gameId: string; reason: string }[] = [];
  const seen = new Set<string>();
  const seenPlayers = new Map<string, string>();
  for (const game of hello.runningGames) {
    const problem = check(game);
    if (problem !== undefined) rejected.push({ gameId: game.gameId, reason: problem });
    else {
      adopted.push(game);
      for (const p of game.playerIds) seenPlayers.set(p, game.gameId);
    }
  }
  return { adopted, rejected };

  function check(game: RunningGame): string | undefined {
    if (!hostedFactories.includes(game.factory)) return `factory "${game.factory}" is not one this server hosts`;
    if (seen.has(game.gameId) || rules.gameRunning(game.gameId)) return `game_id "${game.gameId}" is already running`;
    seen.add(game.gameId);
    const max = rules.maxPlayers(game.factory);
    if (max !== undefined && game.playerIds.length > max) return `${game.playerIds.length} players, more than the factory's maximum of ${max}`;
    const inGame = new Set<string>();
    for (const playerId of game.playerIds) {
      if (inGame.has(playerId)) return `player "${playerId}" is listed twice`;
      inGame.add(playerId);
      const elsewhere = seenPlayers.get(playerId) ?? rules.gameOf(playerId);
      if (elsewhere !== undefined) return `player "${playerId}" is already in game "${elsewhere}"`;
    }
    if (game.startedAt > now + clockSkewMs) return `started_at is ${game.startedAt - now} ms in the future`;
    const matchable = rules.matchableProblem(game.factory, game);
    if (matchable !== undefined) return matchable;
    if (adopted.length >= hello.capacity.maxGames) return `more running games than the server's max_games (${hello.capacity.maxGames})`;
    return undefined;
  }
}

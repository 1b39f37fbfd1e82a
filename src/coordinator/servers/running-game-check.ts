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

export interface SortedRunningGames {
  /** Games adopted, amended where they broke a rule (a player not counted, a start taken as now...). */
  readonly adopted: RunningGame[];
  /** Games that cannot be adopted (a factory the server does not host, an id already running) but still hold a slot on it until they end. */
  readonly slotOnly: string[];
  /** What was not taken as announced, and why, for the server's log: one line per game. */
  readonly problems: { gameId: string; reason: string }[];
}

/**
 * Sorts a hello's running games. A game keeps running on its server whatever the coordinator
 * thinks of it, so a rule it breaks drops only what breaks it: its slot is always counted, and
 * its seats whenever its factory is known. Checked per game: listed twice, its factory, its id,
 * each player (listed twice, seated in another game, beyond the factory's size), a start time in
 * the future (beyond a little clock skew), its matchable attributes, then the server's max_games.
 */
export function sortRunningGames(
  hello: ServerHello,
  hostedFactories: readonly string[],
  rules: RunningGameRules,
  now: number,
  clockSkewMs = 5_000,
): SortedRunningGames {
  const adopted: RunningGame[] = [];
  const slotOnly: string[] = [];
  const problems: { gameId: string; reason: string }[] = [];
  const seen = new Set<string>();
  const seenPlayers = new Set<string>();
  for (const game of hello.runningGames) {
    const { gameId } = game;
    if (seen.has(gameId)) {
      problems.push({ gameId, reason: 'listed twice: counted once' });
      continue;
    }
    seen.add(gameId);
    const unadoptable = !hostedFactories.includes(game.factory)
      ? `factory "${game.factory}" is not one this server hosts`
      : rules.gameRunning(gameId)
        ? `game_id "${gameId}" is already running`
        : undefined;
    if (unadoptable !== undefined) {
      slotOnly.push(gameId);
      problems.push({ gameId, reason: `${unadoptable}: its slot is counted, the game is not adopted` });
      continue;
    }
    const notes: string[] = [];
    const playerIds = countedPlayers(game, rules.maxPlayers(game.factory), notes);
    for (const p of playerIds) seenPlayers.add(p);
    let { startedAt, matchable, open } = game;
    if (startedAt > now + clockSkewMs) {
      notes.push(`started_at is ${startedAt - now} ms in the future: taken as now`);
      startedAt = now;
    }
    const matchableProblem = rules.matchableProblem(game.factory, game);
    if (matchableProblem !== undefined) {
      notes.push(`${matchableProblem}: adopted closed, without matchable attributes`);
      matchable = new Map();
      open = false;
    }
    if (adopted.length + slotOnly.length >= hello.capacity.maxGames) {
      notes.push(`more running games than the server's max_games (${hello.capacity.maxGames}): counted, and no new game goes to it until enough end`);
    }
    adopted.push({ ...game, playerIds, startedAt, matchable, open });
    if (notes.length > 0) problems.push({ gameId, reason: notes.join('; ') });
  }
  return { adopted, slotOnly, problems };

  /** The game's players who can be counted in it: each once, none seated elsewhere, up to the factory's size. */
  function countedPlayers(game: RunningGame, max: number | undefined, notes: string[]): string[] {
    const counted = new Set<string>();
    const twice = new Set<string>();
    const elsewhere: string[] = [];
    const beyond: string[] = [];
    for (const playerId of game.playerIds) {
      if (counted.has(playerId)) twice.add(playerId);
      // Which game is not the server's to know: it may be another server's.
      else if (seenPlayers.has(playerId) || rules.gameOf(playerId) !== undefined) elsewhere.push(playerId);
      else if (max !== undefined && counted.size >= max) beyond.push(playerId);
      else counted.add(playerId);
    }
    for (const p of twice) notes.push(`player "${p}" is listed twice: counted once`);
    for (const p of elsewhere) notes.push(`player "${p}" holds a seat in another game: not counted in this one`);
    if (beyond.length > 0) {
      notes.push(`${counted.size + beyond.length} players, more than the factory's maximum of ${max}: ${beyond.length} not counted (${beyond.slice(0, 3).map((p) => `"${p}"`).join(', ')}${beyond.length > 3 ? ', ...' : ''})`);
    }
    return [...counted];
  }
}

import { invalidArgument, MatchmakingError } from '../errors/index.js';
import type { GameOutcome, LadderConfig, PlayerRating, RatingSystem } from './rating-system.js';

/** A finished game as its server reports it (game_server_link.proto, GameResult). */
export interface ReportedResult {
  readonly gameId: string;
  /** The server whose stream carried the report. */
  readonly serverId: string;
  /** Teams (or free-for-all players, one per team) with their place: 0 best, equal = draw. */
  readonly teams: readonly { readonly players: readonly string[]; readonly rank: number }[];
  readonly durationSeconds: number;
  readonly leftEarly: readonly string[];
}

/** What the coordinator knows about a game: who hosts it and who was seated. */
export interface HostedGame {
  readonly gameId: string;
  readonly serverId: string;
  readonly players: ReadonlySet<string>;
}

const MAX_PLAYERS = 1024;

/**
 * Refuses a malformed result (INVALID_ARGUMENT naming the field) and one the server may not
 * report (FAILED_PRECONDITION): a game it does not host, or players not seated in it, so a
 * player cannot farm rating through a server of their own (Battle.net talk, "Abuse Issues").
 */
export function validateResult(result: ReportedResult, hosted: HostedGame | undefined): void {
  if (result.gameId === '') throw invalidArgument('game_result.game_id', 'required');
  if (result.teams.length < 2) throw invalidArgument('game_result.teams', 'at least 2 teams (or free-for-all players) are needed');
  if (!Number.isFinite(result.durationSeconds) || result.durationSeconds < 0) {
    throw invalidArgument('game_result.duration_seconds', 'must be a finite number >= 0');
  }
  const seen = new Set<string>();
  result.teams.forEach((team, i) => {
    if (!Number.isInteger(team.rank) || team.rank < 0) throw invalidArgument(`game_result.teams[${i}].rank`, 'must be an integer >= 0');
    if (team.players.length === 0) throw invalidArgument(`game_result.teams[${i}].player_ids`, 'a team needs at least one player');
    team.players.forEach((p, k) => {
      if (p === '') throw invalidArgument(`game_result.teams[${i}].player_ids[${k}]`, 'empty player id');
      if (seen.has(p)) throw invalidArgument(`game_result.teams[${i}].player_ids[${k}]`, `player "${p}" appears twice`);
      seen.add(p);
    });
  });
  if (seen.size > MAX_PLAYERS) throw invalidArgument('game_result.teams', `at most ${MAX_PLAYERS} players`);
  result.leftEarly.forEach((p, k) => {
    if (!seen.has(p)) throw invalidArgument(`game_result.left_early[${k}]`, `player "${p}" is not in any team`);
  });
  if (hosted === undefined || hosted.serverId !== result.serverId) {
    throw new MatchmakingError('FAILED_PRECONDITION', `game_result.game_id: server "${result.serverId}" does not host game "${result.gameId}"`);
  }
  result.teams.forEach((team, i) =>
    team.players.forEach((p, k) => {
      if (!hosted.players.has(p)) {
        throw new MatchmakingError(
          'FAILED_PRECONDITION',
          `game_result.teams[${i}].player_ids[${k}]: player "${p}" was not seated in game "${result.gameId}"`,
        );
      }
    }),
  );
}

export type RatedResult =
  | { readonly counted: true; readonly ratings: Map<string, PlayerRating> }
  | { readonly counted: false; readonly reason: string };

/**
 * The ratings a valid result produces under the ladder's abuse rules: a game shorter than
 * minGameSeconds does not count; an early leaver is rated as if their team had finished last,
 * while everyone else is rated on the real outcome. O(players in the game).
 */
export function rateResult(
  system: RatingSystem,
  ladder: LadderConfig,
  result: ReportedResult,
  ratings: ReadonlyMap<string, PlayerRating>,
  day: number,
): RatedResult {
  if (result.durationSeconds < ladder.minGameSeconds) {
    return { counted: false, reason: `game lasted ${result.durationSeconds}s, under the ladder's ${ladder.minGameSeconds}s minimum` };
  }
  const outcome: GameOutcome = { teams: result.teams.map((t) => t.players), ranks: result.teams.map((t) => t.rank), day };
  const rated = system.update(outcome, ratings);
  if (!ladder.earlyLeaverCountsAsLoss || result.leftEarly.length === 0) return { counted: true, ratings: rated };
  const leavers = new Set(result.leftEarly);
  const last = Math.max(...outcome.ranks) + 1;
  outcome.teams.forEach((team, i) => {
    const mine = team.filter((p) => leavers.has(p));
    if (mine.length === 0) return;
    const asLoss = system.update({ ...outcome, ranks: outcome.ranks.map((r, j) => (j === i ? last : r)) }, ratings);
    for (const p of mine) rated.set(p, asLoss.get(p)!);
  });
  return { counted: true, ratings: rated };
}

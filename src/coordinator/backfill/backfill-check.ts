import { LIMITS } from '../../attributes/limits.js';
import type { CompetitiveSettings } from '../../config/config.js';
import { invalidArgument, MatchmakingError } from '../../errors/index.js';
import type { BackfillRequest } from '../messages.js';
import type { BackfillRecord } from './backfill-record.js';

/** What the factory's runtime knows of a game and its template for checking a request. */
export interface BackfillContext {
  readonly template: string;
  readonly settings: CompetitiveSettings;
  /** The players the game was made for (and reserved since): only they may be named as remaining. */
  readonly roster: ReadonlySet<string> | undefined;
  /** The game's map and region as the coordinator recorded them ('' unknown). */
  readonly map: string;
  readonly region: string;
  /** Scores of players sent without one, from the template's ladder; undefined without a ladder. */
  readonly rated: ((players: readonly { playerId: string; score: number | undefined }[]) => number[]) | undefined;
}

/**
 * A backfill request checked against its game and template: every problem is a MatchmakingError
 * naming the field as the .proto spells it. Returns the players with their scores resolved, and
 * the game's map and region (the request's, else the record's).
 */
export function checkBackfill(request: BackfillRequest, context: BackfillContext): Pick<BackfillRecord, 'players' | 'map' | 'region'> {
  const { teams, teamSize, maps, regions } = context.settings;
  const players = request.players;
  if (players.length === 0) throw invalidArgument('players', 'name at least one player who remains in the game');
  if (players.length >= teams * teamSize) {
    throw new MatchmakingError('FAILED_PRECONDITION', `players: ${players.length} players leave no open seat in a game of ${teams} teams of ${teamSize}`);
  }
  const perTeam = new Array<number>(teams).fill(0);
  const seen = new Set<string>();
  players.forEach((p, i) => {
    if (p.playerId.length === 0 || p.playerId.length > LIMITS.maxIdLength) throw invalidArgument(`players[${i}].player_id`, `must be 1 to ${LIMITS.maxIdLength} characters`);
    if (seen.has(p.playerId)) throw invalidArgument(`players[${i}].player_id`, `"${p.playerId}" is named twice`);
    seen.add(p.playerId);
    if (!Number.isInteger(p.team) || p.team < 0 || p.team >= teams) throw invalidArgument(`players[${i}].team`, `${p.team}: template "${context.template}" has teams 0 to ${teams - 1}`);
    perTeam[p.team] = (perTeam[p.team] as number) + 1;
    if ((perTeam[p.team] as number) > teamSize) throw invalidArgument('players', `team ${p.team} has more than ${teamSize} players (teamSize of template "${context.template}")`);
    if (context.roster !== undefined && !context.roster.has(p.playerId)) throw invalidArgument(`players[${i}].player_id`, `"${p.playerId}" is not a player of this game`);
    if (p.score !== undefined && !Number.isFinite(p.score)) throw invalidArgument(`players[${i}].score`, 'must be a finite number');
    if (p.score === undefined && context.rated === undefined) throw invalidArgument(`players[${i}].score`, `required by competitive template "${context.template}" (it has no ladder)`);
    if (p.softAttributes !== undefined && p.softAttributes.size > LIMITS.maxAttributes) throw invalidArgument(`players[${i}].soft_attributes`, `${p.softAttributes.size} attributes; at most ${LIMITS.maxAttributes}`);
  });
  if (request.map !== '' && !maps.includes(request.map)) throw invalidArgument('map', `"${request.map}" is not a map of template "${context.template}" (maps: ${maps.join(', ') || 'none'})`);
  if (request.region !== '' && !regions.includes(request.region)) {
    throw invalidArgument('region', `"${request.region}" is not a region of template "${context.template}" (regions: ${regions.join(', ') || 'none'})`);
  }
  const scores = players.some((p) => p.score === undefined) && context.rated ? context.rated(players) : undefined;
  return {
    players: players.map((p, i) => ({
      playerId: p.playerId,
      team: p.team,
      score: scores?.[i] ?? (p.score as number),
      ...(p.softAttributes !== undefined && { softAttributes: Object.fromEntries(p.softAttributes) }),
    })),
    map: request.map !== '' ? request.map : context.map,
    region: request.region !== '' ? request.region : context.region,
  };
}

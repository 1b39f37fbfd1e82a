import type { CompetitiveTicket } from '../../competitive/index.js';

/**
 * Custom match logic (Open Match's match functions): a factory may name a MatchFunction service
 * (proto/gamefactory/v1/match_function.proto) that proposes its games from each batch. The core
 * does no I/O, so asking is an effect (`matchBatch`) and the answer a later input
 * (CoordinatorCore.matchBatchAnswered); these are the plain-data halves of that exchange and the
 * check every answer passes before any of its games is placed.
 */

/** What one batch offers the function. */
export interface MatchBatchRequest {
  readonly factory: string;
  readonly teams: number;
  readonly teamSize: number;
  readonly maps: readonly string[];
  readonly regions: readonly string[];
  readonly tickets: readonly CandidateTicket[];
}

export interface CandidateTicket {
  readonly ticketId: string;
  readonly players: readonly { readonly playerId: string; readonly score: number }[];
  readonly waitedMs: number;
  readonly latenciesMs: ReadonlyMap<string, number>;
  readonly preferredMaps: readonly string[];
  readonly vetoedMaps: readonly string[];
  readonly softAttributes: ReadonlyMap<string, string>;
}

/** One game the function proposes: ticket ids by team, and a map and region ('' for none). */
export interface ProposedGame {
  readonly teams: readonly (readonly string[])[];
  readonly map: string;
  readonly region: string;
}

/** The function's answer, or why there is none (the edge's call failed). */
export type MatchBatchAnswer = { readonly games: readonly ProposedGame[] } | { readonly error: string };

/** Why the built-in matcher formed a batch instead of the function. */
export type FallbackReason = 'timeout' | 'failed' | 'refused';

export function candidate(ticket: CompetitiveTicket, now: number): CandidateTicket {
  return {
    ticketId: ticket.ticketId,
    players: ticket.players.map((p) => ({ playerId: p.playerId, score: p.score })),
    waitedMs: Math.max(0, now - ticket.enqueuedAt),
    latenciesMs: ticket.latencyMs,
    preferredMaps: ticket.preferredMaps,
    vetoedMaps: ticket.vetoedMaps,
    softAttributes: ticket.softAttributes ?? new Map(),
  };
}

/**
 * Why an answer must be refused whole, or undefined when every game holds: each ticket was offered
 * in this batch (`offered`: its party size by id) and appears once in the answer, each game has
 * `teams` teams of exactly `teamSize` players, and its map and region are '' or the factory's. A
 * function that breaks any rule is not trusted with any game of that batch.
 */
export function answerProblem(games: readonly ProposedGame[], offered: ReadonlyMap<string, number>, request: MatchBatchRequest): string | undefined {
  const used = new Set<string>();
  for (let g = 0; g < games.length; g++) {
    const game = games[g]!;
    if (game.teams.length !== request.teams) return `games[${g}]: ${game.teams.length} teams; the factory plays ${request.teams}`;
    for (let t = 0; t < game.teams.length; t++) {
      let players = 0;
      for (const id of game.teams[t]!) {
        const size = offered.get(id);
        if (size === undefined) return `games[${g}].teams[${t}]: ticket "${id.slice(0, 128)}" was not offered in this batch`;
        if (used.has(id)) return `games[${g}].teams[${t}]: ticket "${id.slice(0, 128)}" is used twice`;
        used.add(id);
        players += size;
      }
      if (players !== request.teamSize) return `games[${g}].teams[${t}]: ${players} players; a team has ${request.teamSize}`;
    }
    if (game.map !== '' && !request.maps.includes(game.map)) return `games[${g}].map: "${game.map.slice(0, 128)}" is not one of the factory's maps`;
    if (game.region !== '' && !request.regions.includes(game.region)) return `games[${g}].region: "${game.region.slice(0, 128)}" is not one of the factory's regions`;
  }
  return undefined;
}

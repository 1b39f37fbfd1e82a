import type { CompetitivePlayer } from '../competitive-config.js';

/** A player still in a running game that asked for backfill, on the team it plays for. */
export interface RemainingPlayer extends CompetitivePlayer {
  /** 0-based team index, below the factory's `teams`. */
  readonly team: number;
  /** Soft attributes (e.g. language) the factory's softPreferences weigh. */
  readonly softAttributes?: ReadonlyMap<string, string>;
}

/**
 * A running competitive game with open seats, as the matcher sees a backfill request: the players
 * who remain by team, where the game is played, and since when it waits (its score window widens
 * by the factory's expansion rules from then, as a ticket's does).
 */
export interface PartialGame {
  readonly backfillId: string;
  readonly players: readonly RemainingPlayer[];
  /** The game's map and region; undefined: the newcomers may bring any. */
  readonly map: string | undefined;
  readonly region: string | undefined;
  readonly enqueuedAt: number;
}

/** The tickets that fill a partial game: each with the team it joins, and the game's figures after the fill. */
export interface GameFill {
  readonly backfillId: string;
  readonly seats: readonly { readonly ticketId: string; readonly team: number }[];
  /** Best minus worst player score of the whole game after the fill, in score units and in sigma. */
  readonly scoreGap: number;
  readonly gapInSigma: number;
  /** Best minus worst aggregated team score after the fill. */
  readonly teamImbalance: number;
  readonly waitsMs: readonly number[];
  readonly favouriteWinProbability: number;
  readonly matchQuality: number;
}

/** Open seats of each team: teamSize less the remaining players on it. */
export function openSeats(game: PartialGame, teams: number, teamSize: number): number[] {
  const open = new Array<number>(teams).fill(teamSize);
  for (const player of game.players) open[player.team] = (open[player.team] as number) - 1;
  return open;
}

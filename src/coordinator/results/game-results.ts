import { MatchmakingError } from '../../errors/index.js';
import { ratingSystem, standing } from '../../ratings/index.js';
import type { RatingStore } from '../../ratings/rating-store.js';
import type { LadderConfig, PlayerRating, RatingSystem } from '../../ratings/rating-system.js';
import { rateResult, validateResult, type ReportedResult } from '../../ratings/result-rules.js';
import type { CoreContext } from '../core-context.js';
import type { RunningGames } from '../servers/running-games.js';
import type { ServerRoster } from '../servers/server-roster.js';

/** A configured ladder with its rating system, built once. */
export interface RatedLadder {
  readonly config: LadderConfig;
  readonly system: RatingSystem;
}

/** What the core reads of the ratings (from memory, so synchronously); writes are effects. */
export type RatingsReader = Pick<RatingStore, 'get' | 'hasResult'>;

export function ratedLadders(ladders: ReadonlyMap<string, LadderConfig> | undefined): Map<string, RatedLadder> {
  return new Map([...(ladders ?? new Map<string, LadderConfig>())].map(([name, config]) => [name, { config, system: ratingSystem(config) }]));
}

/** The number each ladder's board is ordered by, for a RatingStore. */
export function ladderStanding(ladders: ReadonlyMap<string, RatedLadder>) {
  return (ladder: string, rating: PlayerRating): number => standing(ladders.get(ladder)?.system.name ?? 'elo', rating);
}

const DAY_MS = 86_400_000;

/** The rating store's answer to a `recordResult` effect, as it comes back into the core. */
export type ResultOutcome = { readonly recorded: boolean } | { readonly error: string };

interface Recording {
  readonly serverId: string;
  readonly ladder: string;
  readonly counted: boolean;
  readonly reason: string;
  /** Servers that sent the same result again meanwhile: acknowledged after the original. */
  readonly repeats: string[];
}

/**
 * Results game servers report: checked against what the core knows of the game (its host and
 * everyone seated in it, kept past GameEnded), applied once per game id, rated by the pure rules,
 * and written by the edge (a `recordResult` effect). The server hears a GameResultAck once the
 * store has it (the `resultRecorded` input); a refusal is returned as `CODE: message` for the
 * coordinator's `rejected`.
 */
export class GameResults {
  private readonly recording = new Map<string, Recording>();

  constructor(
    private readonly ctx: CoreContext,
    private readonly games: RunningGames,
    private readonly roster: ServerRoster,
    private readonly ladders: ReadonlyMap<string, RatedLadder>,
    private readonly ratings: RatingsReader,
  ) {}

  /** Undefined when accepted (acknowledged now or once recorded), else the refusal. */
  report(serverId: string, reported: ReportedResult): string | undefined {
    const result: ReportedResult = { ...reported, serverId };
    const { gameId } = result;
    const unranked = this.games.get(gameId);
    if (unranked && !unranked.ranked && unranked.serverId === serverId) {
      return `FAILED_PRECONDITION: game_result.game_id: game "${gameId}" is in factory "${unranked.factory}", whose template has no ladder`;
    }
    if (this.recording.has(gameId)) {
      this.repeated(serverId, gameId);
      return undefined;
    }
    const game = this.games.rankedGame(gameId, serverId);
    // Forgotten (its result is in, or it ended before a restart): a repeat is acknowledged, not applied.
    if (!game && gameId !== '' && [...this.ladders.keys()].some((ladder) => this.ratings.hasResult(ladder, gameId))) {
      this.repeated(serverId, gameId);
      return undefined;
    }
    if (game?.announced && game.serverId === serverId) {
      return `FAILED_PRECONDITION: game_result.game_id: game "${gameId}" was announced in a hello, not created by this coordinator with the players it assigned: its result cannot count`;
    }
    try {
      validateResult(result, game);
    } catch (error) {
      if (error instanceof MatchmakingError) return `${error.code}: ${error.message}`;
      throw error;
    }

    const ladder = this.ladders.get(game!.ladder)!;
    const name = ladder.config.name;
    if (this.ratings.hasResult(name, gameId)) {
      this.repeated(serverId, gameId);
      return undefined;
    }
    const now = this.ctx.now();
    const before = new Map<string, PlayerRating>();
    for (const team of result.teams) {
      for (const player of team.players) {
        const rating = this.ratings.get(name, player);
        if (rating) before.set(player, rating);
      }
    }
    // The game lasted no longer than the coordinator saw it run, whatever the server says.
    const observedSeconds = Math.max(0, Math.floor(((game!.endedAt ?? now) - game!.startedAt) / 1000));
    const timed: ReportedResult = { ...result, durationSeconds: Math.min(result.durationSeconds, observedSeconds) };
    const rated = rateResult(ladder.system, ladder.config, timed, before, Math.floor(now / DAY_MS));
    this.games.resultIn(gameId);
    // A game that did not count is still recorded, so its repeat is known as one.
    const ratings = rated.counted ? rated.ratings : new Map<string, PlayerRating>();
    this.ctx.out.push({ kind: 'recordResult', result: { ladder: name, gameId, at: now, ratings } });
    this.recording.set(gameId, { serverId, ladder: name, counted: rated.counted, reason: rated.counted ? '' : rated.reason, repeats: [] });
    return undefined;
  }

  /** The store answered a `recordResult`: the reporter (and any repeat meanwhile) hears of it. */
  recorded(gameId: string, outcome: ResultOutcome): void {
    const entry = this.recording.get(gameId);
    if (!entry) return;
    this.recording.delete(gameId);
    const { serverId } = entry;
    if ('error' in outcome) {
      this.ctx.out.warn({ serverId, gameId, error: outcome.error }, 'recording a game result failed');
      this.roster.send(serverId, { kind: 'rejected', reason: `gameResult: UNAVAILABLE: game_result: the rating store could not record game "${gameId}"` });
    } else {
      this.ctx.out.info({ serverId, gameId, ladder: entry.ladder, counted: entry.counted, recorded: outcome.recorded }, 'game result');
      this.ack(serverId, gameId, outcome.recorded && entry.counted, !outcome.recorded ? 'already applied' : entry.reason);
    }
    for (const repeat of entry.repeats) this.ack(repeat, gameId, false, 'already applied');
  }

  /** A repeat is acknowledged, not applied; after the original's own ack while that is still being recorded. */
  private repeated(serverId: string, gameId: string): void {
    const original = this.recording.get(gameId);
    if (original) original.repeats.push(serverId);
    else this.ack(serverId, gameId, false, 'already applied');
  }

  private ack(serverId: string, gameId: string, applied: boolean, reason: string): void {
    this.roster.send(serverId, { kind: 'gameResultAck', gameId, applied, reason });
  }
}

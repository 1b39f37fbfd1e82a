import { MatchmakingError } from '../../errors/index.js';
import { ratingSystem, standing } from '../../ratings/index.js';
import type { RatingStore } from '../../ratings/rating-store.js';
import type { LadderConfig, PlayerRating, RatingSystem } from '../../ratings/rating-system.js';
import { rateResult, validateResult, type ReportedResult } from '../../ratings/result-rules.js';
import type { CoreDeps } from '../ports.js';
import type { ServerRoster } from '../servers/server-roster.js';

/** A configured ladder with its rating system, built once. */
export interface RatedLadder {
  readonly config: LadderConfig;
  readonly system: RatingSystem;
}

export function ratedLadders(ladders: ReadonlyMap<string, LadderConfig> | undefined): Map<string, RatedLadder> {
  return new Map([...(ladders ?? new Map<string, LadderConfig>())].map(([name, config]) => [name, { config, system: ratingSystem(config) }]));
}

/** The number each ladder's board is ordered by, for a RatingStore. */
export function ladderStanding(ladders: ReadonlyMap<string, RatedLadder>) {
  return (ladder: string, rating: PlayerRating): number => standing(ladders.get(ladder)?.system.name ?? 'elo', rating);
}

const DAY_MS = 86_400_000;

/**
 * Results game servers report (issue 12): checked against what the roster knows of the game
 * (its host and everyone seated in it, kept past GameEnded), applied once per game id, rated by
 * the pure rules and recorded through the RatingStore port. The server hears a GameResultAck once
 * the store has it; a refusal is returned as `CODE: message` for the coordinator's `rejected`.
 */
export class GameResults {
  /** Results being recorded, by game id: a repeat meanwhile is acknowledged after the original. */
  private readonly recording = new Map<string, Promise<unknown>>();

  constructor(
    private readonly deps: CoreDeps,
    private readonly roster: ServerRoster,
    private readonly ladders: ReadonlyMap<string, RatedLadder>,
    private readonly store: RatingStore,
  ) {}

  /** Undefined when accepted (acknowledged now or once recorded), else the refusal. */
  report(serverId: string, reported: ReportedResult): string | undefined {
    const result: ReportedResult = { ...reported, serverId };
    const { gameId } = result;
    const unranked = this.roster.game(gameId);
    if (unranked && !unranked.ranked) {
      return `FAILED_PRECONDITION: game_result.game_id: game "${gameId}" is in factory "${unranked.factory}", whose template has no ladder`;
    }
    const game = this.roster.rankedGame(gameId);
    // Forgotten (its result is in, or it ended before a restart): a repeat is acknowledged, not applied.
    if (!game && gameId !== '' && [...this.ladders.keys()].some((ladder) => this.store.hasResult(ladder, gameId))) {
      this.repeated(serverId, gameId);
      return undefined;
    }
    try {
      validateResult(result, game);
    } catch (error) {
      if (error instanceof MatchmakingError) return `${error.code}: ${error.message}`;
      throw error;
    }
    const ladder = this.ladders.get(game!.ladder)!;
    const name = ladder.config.name;
    if (this.store.hasResult(name, gameId)) {
      this.repeated(serverId, gameId);
      return undefined;
    }
    const now = this.deps.now();
    const before = new Map<string, PlayerRating>();
    for (const team of result.teams) {
      for (const player of team.players) {
        const rating = this.store.get(name, player);
        if (rating) before.set(player, rating);
      }
    }
    const rated = rateResult(ladder.system, ladder.config, result, before, Math.floor(now / DAY_MS));
    this.roster.resultIn(gameId);
    // A game that did not count is still recorded, so its repeat is known as one.
    const ratings = rated.counted ? rated.ratings : new Map<string, PlayerRating>();
    const recorded = this.store.recordResult({ ladder: name, gameId, at: now, ratings }).then(
      (recorded) => {
        this.deps.log.info({ serverId, gameId, ladder: name, counted: rated.counted, recorded }, 'game result');
        this.ack(serverId, gameId, recorded && rated.counted, !recorded ? 'already applied' : rated.counted ? '' : rated.reason);
      },
      (error: unknown) => {
        this.deps.log.warn({ serverId, gameId, err: error }, 'recording a game result failed');
        this.roster.send(serverId, { kind: 'rejected', reason: `gameResult: UNAVAILABLE: game_result: the rating store could not record game "${gameId}"` });
      },
    );
    this.recording.set(gameId, recorded);
    void recorded.finally(() => this.recording.delete(gameId));
    return undefined;
  }

  /** A repeat is acknowledged, not applied; after the original's own ack while that is still being recorded. */
  private repeated(serverId: string, gameId: string): void {
    const original = this.recording.get(gameId);
    if (original) void original.then(() => this.ack(serverId, gameId, false, 'already applied'));
    else this.ack(serverId, gameId, false, 'already applied');
  }

  private ack(serverId: string, gameId: string, applied: boolean, reason: string): void {
    this.roster.send(serverId, { kind: 'gameResultAck', gameId, applied, reason });
  }
}

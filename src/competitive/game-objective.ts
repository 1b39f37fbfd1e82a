import type { BatchEntry } from './batch-entry.js';
import type { CompetitiveConfig } from './competitive-config.js';
import { NO_SOFT_PREFERENCES, type SoftPreferences } from './soft-preferences.js';
import { teamScore } from './team-score.js';
import type { VenueChoice } from './venue-choice.js';

/**
 * What the hill-climber minimises, in units of "standard deviations of skill" so its terms can be
 * traded against each other (Destiny thesis, soft-filter weights: "a 70ms change is worth a 10%
 * skill expansion"). The weights below are ours, chosen so that team balance dominates, then spread:
 * - team imbalance: 1 per sigma of difference between the best and worst team score;
 * - skill spread: 0.5 per sigma between the best and worst player;
 * - latency: 1 per LATENCY_MS_PER_SIGMA of the worst member latency;
 * - maps: 0.25 per fraction of players whose stated preferences the map misses;
 * - a game that cannot start (a member's window exceeded, no map, no region, a team not full)
 *   costs NOT_VIABLE plus how far windows are exceeded, so the climb has a slope toward viability.
 * A ticket left on the bench costs BENCH_PER_PLAYER_SECOND per player per second waited, so that
 * among equally good games the longer-waiting tickets play first.
 */
export const OBJECTIVE_WEIGHTS = {
  teamImbalance: 1,
  spread: 0.5,
  latencyMsPerSigma: 200,
  unmetMapPreference: 0.25,
  notViable: 100,
  benchPerPlayerSecond: 0.02,
} as const;

export interface GameEvaluation {
  readonly viable: boolean;
  readonly cost: number;
  readonly scoreGap: number;
  readonly teamImbalance: number;
  readonly map: string | undefined;
  readonly region: string | undefined;
}

export class GameObjective {
  constructor(
    private readonly config: Pick<CompetitiveConfig, 'teams' | 'teamSize' | 'teamScore'>,
    private readonly venue: VenueChoice,
    /** The factory's score spread used to normalise; > 0. */
    private readonly sigma: number,
    /** Soft filters of the factory: add to the cost, never to viability. */
    private readonly soft: SoftPreferences = NO_SOFT_PREFERENCES,
  ) {}

  evaluate(teams: readonly (readonly BatchEntry[])[]): GameEvaluation {
    const members: BatchEntry[] = [];
    let minPlayer = Infinity;
    let maxPlayer = -Infinity;
    let minTicket = Infinity;
    let maxTicket = -Infinity;
    let full = teams.length === this.config.teams;
    let minTeam = Infinity;
    let maxTeam = -Infinity;
    for (const team of teams) {
      let players = 0;
      for (const entry of team) {
        members.push(entry);
        players += entry.size;
        if (entry.score < minTicket) minTicket = entry.score;
        if (entry.score > maxTicket) maxTicket = entry.score;
        for (const player of entry.ticket.players) {
          if (player.score < minPlayer) minPlayer = player.score;
          if (player.score > maxPlayer) maxPlayer = player.score;
        }
      }
      if (players !== this.config.teamSize) full = false;
      const score = teamScore(team, this.config.teamScore);
      if (score < minTeam) minTeam = score;
      if (score > maxTeam) maxTeam = score;
    }
    const scoreGap = members.length === 0 ? 0 : maxPlayer - minPlayer;
    const teamImbalance = teams.length === 0 ? 0 : maxTeam - minTeam;

    // Reciprocal windows: every ticket must accept every other ticket of the game.
    let windowExcess = 0;
    for (const entry of members) {
      const reach = Math.max(maxTicket - entry.score, entry.score - minTicket);
      if (reach > entry.maxScoreGap) windowExcess += reach - entry.maxScoreGap;
    }
    const mapChoice = this.venue.chooseMap(members);
    const regionChoice = this.venue.chooseRegion(members);
    const viable = full && windowExcess === 0 && mapChoice !== undefined && regionChoice !== undefined;

    const w = OBJECTIVE_WEIGHTS;
    const players = members.reduce((sum, e) => sum + e.size, 0);
    let cost =
      (w.teamImbalance * teamImbalance) / this.sigma +
      (w.spread * scoreGap) / this.sigma +
      (regionChoice ? regionChoice.worstLatencyMs / w.latencyMsPerSigma : 0) +
      (mapChoice && players > 0 ? (w.unmetMapPreference * mapChoice.unmetPreferences) / players : 0) +
      (this.soft.empty ? 0 : this.soft.cost(members));
    if (!viable) cost += w.notViable + windowExcess / this.sigma;
    return {
      viable,
      cost,
      scoreGap,
      teamImbalance,
      map: mapChoice?.map,
      region: regionChoice?.region,
    };
  }

  benchCost(entry: BatchEntry): number {
    return (OBJECTIVE_WEIGHTS.benchPerPlayerSecond * entry.size * entry.waitMs) / 1000;
  }
}

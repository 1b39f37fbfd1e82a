import type { BatchEntry } from './batch-entry.js';
import type { TeamScoreAggregation } from './competitive-config.js';

/**
 * Aggregates a team's player scores into one number to compare teams by. The talk warns that
 * "aggregating team scores is tricky" and "team skill is non-linear" (Battle.net talk,
 * "Statistical Issues"), so the rule is the game's choice; see TeamScoreAggregation for the
 * weights of `weighted` (rank weights k, k-1, ..., 1, best player first).
 */
export function teamScore(team: readonly BatchEntry[], aggregation: TeamScoreAggregation): number {
  return new TeamScores().of(team, aggregation);
}

/**
 * teamScore with its scratch space kept between calls: the hill-climber scores a team per move
 * tried, and a fresh array of scores per call was most of what a move allocated.
 */
export class TeamScores {
  private readonly scores: number[] = [];

  of(team: readonly BatchEntry[], aggregation: TeamScoreAggregation): number {
    if (aggregation === 'weighted') return this.weighted(team);
    let count = 0;
    let sum = 0;
    let max = -Infinity;
    for (const entry of team) {
      if (entry.size === 1) {
        // A solo's party score is its player's (see GameObjective.summarize).
        count += 1;
        sum += entry.score;
        max = Math.max(max, entry.score);
        continue;
      }
      for (const player of entry.ticket.players) {
        count += 1;
        sum += player.score;
        max = Math.max(max, player.score);
      }
    }
    if (count === 0) return 0;
    return aggregation === 'mean' ? sum / count : max;
  }

  private weighted(team: readonly BatchEntry[]): number {
    const scores = this.scores;
    scores.length = 0;
    for (const entry of team) for (const player of entry.ticket.players) scores.push(player.score);
    if (scores.length === 0) return 0;
    scores.sort((a, b) => b - a);
    const k = scores.length;
    let weighted = 0;
    for (let i = 0; i < k; i++) weighted += (k - i) * (scores[i] as number);
    return weighted / ((k * (k + 1)) / 2);
  }
}

import type { BatchEntry } from './batch-entry.js';
import type { TeamScoreAggregation } from './competitive-config.js';

/**
 * Aggregates a team's player scores into one number to compare teams by. The talk warns that
 * "aggregating team scores is tricky" and "team skill is non-linear" (Battle.net talk,
 * "Statistical Issues"), so the rule is the game's choice; see TeamScoreAggregation for the
 * weights of `weighted` (rank weights k, k-1, ..., 1, best player first).
 */
export function teamScore(team: readonly BatchEntry[], aggregation: TeamScoreAggregation): number {
  const scores: number[] = [];
  for (const entry of team) for (const player of entry.ticket.players) scores.push(player.score);
  if (scores.length === 0) return 0;
  switch (aggregation) {
    case 'mean':
      return scores.reduce((sum, s) => sum + s, 0) / scores.length;
    case 'max':
      return Math.max(...scores);
    case 'weighted': {
      scores.sort((a, b) => b - a);
      const k = scores.length;
      let weighted = 0;
      for (const [i, s] of scores.entries()) weighted += (k - i) * s;
      return weighted / ((k * (k + 1)) / 2);
    }
  }
}

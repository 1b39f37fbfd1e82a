import type { BatchEntry } from './batch-entry.js';

/**
 * Splits the parties of one game into `teams` teams of exactly `teamSize` players, never splitting
 * a party: bin packing of party sizes. First a balanced greedy pass (largest parties first, each to
 * the weakest team that has room), which nearly always succeeds; when it does not (3+3 / 2+2+2 into
 * teams of 6), an exact search over party sizes, which is small because a game is small.
 * Returns undefined when the parties cannot fill the teams exactly.
 */
export function packTeams(members: readonly BatchEntry[], teams: number, teamSize: number): BatchEntry[][] | undefined {
  const total = members.reduce((sum, e) => sum + e.size, 0);
  if (total !== teams * teamSize) return undefined;
  const order = [...members].sort((a, b) => b.size - a.size || b.score - a.score);
  return greedyBalanced(order, teams, teamSize) ?? exactPacking(order, teams, teamSize);
}

function greedyBalanced(order: readonly BatchEntry[], teams: number, teamSize: number): BatchEntry[][] | undefined {
  const result: BatchEntry[][] = Array.from({ length: teams }, () => []);
  const filled = new Array<number>(teams).fill(0);
  const strength = new Array<number>(teams).fill(0);
  for (const entry of order) {
    let target = -1;
    for (let t = 0; t < teams; t++) {
      if ((filled[t] as number) + entry.size > teamSize) continue;
      if (target < 0 || (strength[t] as number) < (strength[target] as number)) target = t;
    }
    if (target < 0) return undefined;
    (result[target] as BatchEntry[]).push(entry);
    filled[target] = (filled[target] as number) + entry.size;
    strength[target] = (strength[target] as number) + entry.score * entry.size;
  }
  return result;
}

function exactPacking(order: readonly BatchEntry[], teams: number, teamSize: number): BatchEntry[][] | undefined {
  const result: BatchEntry[][] = Array.from({ length: teams }, () => []);
  const filled = new Array<number>(teams).fill(0);
  const place = (i: number): boolean => {
    const entry = order[i];
    if (entry === undefined) return true;
    let triedEmpty = false;
    for (let t = 0; t < teams; t++) {
      const used = filled[t] as number;
      if (used + entry.size > teamSize) continue;
      // Empty teams are interchangeable: trying one is enough.
      if (used === 0) {
        if (triedEmpty) continue;
        triedEmpty = true;
      }
      filled[t] = used + entry.size;
      (result[t] as BatchEntry[]).push(entry);
      if (place(i + 1)) return true;
      (result[t] as BatchEntry[]).pop();
      filled[t] = used;
    }
    return false;
  };
  return place(0) ? result : undefined;
}

import type { BatchEntry } from './batch-entry.js';
import type { PairWindow } from './competitive-config.js';
import { OBJECTIVE_WEIGHTS } from './game-objective.js';
import { NO_SOFT_PREFERENCES, type SoftPreferences } from './soft-preferences.js';
import type { MapChoice, RegionChoice, VenueChoice } from './venue-choice.js';

export const DEFAULT_PAIR_WINDOW: PairWindow = 'reciprocal';

/** The largest score gap `rule` lets these two entries pair at. */
export function pairWindowOf(a: BatchEntry, b: BatchEntry, rule: PairWindow): number {
  switch (rule) {
    case 'reciprocal':
      return Math.min(a.maxScoreGap, b.maxScoreGap);
    case 'mean':
    case 'budget':
      return (a.maxScoreGap + b.maxScoreGap) / 2;
    case 'longer-waiter':
      if (a.waitMs > b.waitMs) return a.maxScoreGap;
      if (b.waitMs > a.waitMs) return b.maxScoreGap;
      return Math.max(a.maxScoreGap, b.maxScoreGap);
  }
}

/** Whether score neighbours `low` <= `high` may pair as far as their windows go. */
export function windowAllows(low: BatchEntry, high: BatchEntry, rule: PairWindow): boolean {
  return high.score - low.score <= pairWindowOf(low, high, rule);
}

export interface Pairing {
  readonly low: BatchEntry;
  readonly high: BatchEntry;
  readonly map: MapChoice;
  readonly region: RegionChoice;
}

/**
 * 1v1 the Hearthstone way (Battle.net talk, "Hearthstone": batch, sort by skill, make games
 * according to threshold): in a batch sorted by score, only neighbours are paired. Two neighbours
 * pair when each is inside the other's window (reciprocal, as in the skill-bucket design's "100%
 * reciprocal range requirement"), some map is vetoed by neither and some region is under both
 * latency caps. Among neighbour pairings, a dynamic programme over the sorted order picks the one
 * with the most games, then the smallest summed cost, so a ticket is not paired greedily with
 * one neighbour when pairing it with the other lets more games start. O(n) after the O(n log n)
 * sort; whoever is left goes back with its wait carried over.
 */
export function pairNeighbours(
  sorted: readonly BatchEntry[],
  venue: VenueChoice,
  sigma: number,
  soft: SoftPreferences = NO_SOFT_PREFERENCES,
  rule: PairWindow = DEFAULT_PAIR_WINDOW,
): Pairing[] {
  const n = sorted.length;
  // games[i], cost[i]: best over the first i entries; tookPair[i]: whether entries i-2, i-1 pair.
  // The table holds numbers only: keeping every candidate pairing alive until the walk back made
  // each young-generation collection during a large batch copy ~n objects (collections per batch
  // grow with n too, so that cost grew as n^2); the pairings chosen are built again on the way back,
  // which gives the same ones, as tryPair is pure.
  const games = new Int32Array(n + 1);
  const cost = new Float64Array(n + 1);
  const tookPair = new Uint8Array(n + 1);
  const scratch: BatchEntry[] = [];
  for (let i = 2; i <= n; i++) {
    games[i] = games[i - 1] as number;
    cost[i] = cost[i - 1] as number;
    const pairing = tryPair(sorted[i - 2] as BatchEntry, sorted[i - 1] as BatchEntry, venue, rule, scratch);
    if (pairing === undefined) continue;
    const withPair = (games[i - 2] as number) + 1;
    const withCost = (cost[i - 2] as number) + pairCost(pairing, sigma, soft, scratch);
    if (withPair > (games[i] as number) || (withPair === games[i] && withCost < (cost[i] as number))) {
      games[i] = withPair;
      cost[i] = withCost;
      tookPair[i] = 1;
    }
  }
  const chosen: Pairing[] = [];
  for (let i = n; i >= 2; ) {
    if (tookPair[i] === 1) {
      chosen.push(tryPair(sorted[i - 2] as BatchEntry, sorted[i - 1] as BatchEntry, venue, rule, scratch) as Pairing);
      i -= 2;
    } else {
      i -= 1;
    }
  }
  return chosen.reverse();
}

/** `members` is scratch space reused across calls: a batch of n tickets makes no n throwaway arrays. */
export function tryPair(
  low: BatchEntry,
  high: BatchEntry,
  venue: VenueChoice,
  rule: PairWindow,
  members: BatchEntry[],
): Pairing | undefined {
  if (!windowAllows(low, high, rule)) return undefined;
  members[0] = low;
  members[1] = high;
  const map = venue.chooseMap(members);
  if (map === undefined) return undefined;
  const region = venue.chooseRegion(members);
  if (region === undefined) return undefined;
  return { low, high, map, region };
}

export function pairCost(pairing: Pairing, sigma: number, soft: SoftPreferences, members: BatchEntry[]): number {
  const w = OBJECTIVE_WEIGHTS;
  members[0] = pairing.low;
  members[1] = pairing.high;
  const softCost = soft.empty ? 0 : soft.cost(members);
  return (
    softCost +
    ((w.teamImbalance + w.spread) * (pairing.high.score - pairing.low.score)) / sigma +
    pairing.region.worstLatencyMs / w.latencyMsPerSigma +
    (w.unmetMapPreference * pairing.map.unmetPreferences) / 2
  );
}

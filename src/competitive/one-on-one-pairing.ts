import type { BatchEntry, SortedBatch } from './batch-entry.js';
import type { PairWindow } from './competitive-config.js';
import { OBJECTIVE_WEIGHTS } from './game-objective.js';
import { NO_SOFT_PREFERENCES, type SoftPreferences } from './soft-preferences.js';
import type { MapChoice, RegionChoice, VenueChoice } from './venue-choice.js';

export const DEFAULT_PAIR_WINDOW: PairWindow = 'reciprocal';

/** The largest score gap `rule` lets these two entries pair at. */
export function pairWindowOf(a: BatchEntry, b: BatchEntry, rule: PairWindow): number {
  return pairWindow(a.maxScoreGap, a.waitMs, b.maxScoreGap, b.waitMs, rule);
}

/** pairWindowOf from the two tickets' windows and waits. */
function pairWindow(gapA: number, waitA: number, gapB: number, waitB: number, rule: PairWindow): number {
  switch (rule) {
    case 'reciprocal':
      return Math.min(gapA, gapB);
    case 'mean':
    case 'budget':
      return (gapA + gapB) / 2;
    case 'longer-waiter':
      if (waitA > waitB) return gapA;
      if (waitB > waitA) return gapB;
      return Math.max(gapA, gapB);
  }
}

/** Whether positions `low` < `high` of a sorted batch may pair as far as their windows go. */
export function windowAllowsAt(batch: SortedBatch, low: number, high: number, rule: PairWindow): boolean {
  const { score, maxScoreGap, waitMs } = batch;
  const window = pairWindow(
    maxScoreGap[low] as number,
    waitMs[low] as number,
    maxScoreGap[high] as number,
    waitMs[high] as number,
    rule,
  );
  return (score[high] as number) - (score[low] as number) <= window;
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
 *
 * Works on positions [from, to) of the batch and returns the lower position of each pair chosen
 * (the other is the next one up), in ascending order; pairChoice gives a pair's map and region.
 */
export function pairNeighbours(
  batch: SortedBatch,
  from: number,
  to: number,
  venue: VenueChoice,
  sigma: number,
  soft: SoftPreferences = NO_SOFT_PREFERENCES,
  rule: PairWindow = DEFAULT_PAIR_WINDOW,
): Int32Array {
  const n = to - from;
  // games[i], cost[i]: best over the first i positions; tookPair[i]: whether i-2, i-1 pair. The
  // table holds numbers only: keeping a candidate pairing object per step alive until the walk
  // back made each young-generation collection of a large batch copy ~n objects.
  const games = new Int32Array(n + 1);
  const cost = new Float64Array(n + 1);
  const tookPair = new Uint8Array(n + 1);
  // Where any map, region or soft preference is configured, the venue and soft costs read the
  // tickets through entry objects; otherwise a pair costs its score gap alone and no object is made.
  const plain = venue.trivial && soft.empty;
  const entries = plain ? undefined : batch.entries(from, to);
  const members: BatchEntry[] = [];
  const w = OBJECTIVE_WEIGHTS;
  const { score } = batch;
  for (let i = 2; i <= n; i++) {
    games[i] = games[i - 1] as number;
    cost[i] = cost[i - 1] as number;
    const low = from + i - 2;
    if (!windowAllowsAt(batch, low, low + 1, rule)) continue;
    let pairCost: number;
    if (entries === undefined) {
      // The same sum as below with no soft, latency or map terms (each 0).
      pairCost = 0 + ((w.teamImbalance + w.spread) * ((score[low + 1] as number) - (score[low] as number))) / sigma + 0 + 0;
    } else {
      members[0] = entries[i - 2] as BatchEntry;
      members[1] = entries[i - 1] as BatchEntry;
      const choice = chooseVenue(venue, members);
      if (choice === undefined) continue;
      pairCost = costOf(choice, members, sigma, soft);
    }
    const withPair = (games[i - 2] as number) + 1;
    const withCost = (cost[i - 2] as number) + pairCost;
    if (withPair > (games[i] as number) || (withPair === games[i] && withCost < (cost[i] as number))) {
      games[i] = withPair;
      cost[i] = withCost;
      tookPair[i] = 1;
    }
  }
  const lows = new Int32Array(games[n] as number);
  let g = lows.length;
  for (let i = n; i >= 2; ) {
    if (tookPair[i] === 1) {
      lows[--g] = from + i - 2;
      i -= 2;
    } else {
      i -= 1;
    }
  }
  return lows;
}

export interface PairChoice {
  readonly map: MapChoice;
  readonly region: RegionChoice;
}

/** The map and region of a pair pairNeighbours chose (the two entries, lower score first). */
export function pairChoice(venue: VenueChoice, low: BatchEntry, high: BatchEntry): PairChoice {
  return chooseVenue(venue, [low, high]) as PairChoice;
}

export function chooseVenue(venue: VenueChoice, members: readonly BatchEntry[]): PairChoice | undefined {
  const map = venue.chooseMap(members);
  if (map === undefined) return undefined;
  const region = venue.chooseRegion(members);
  if (region === undefined) return undefined;
  return { map, region };
}

export function costOf(choice: PairChoice, members: readonly BatchEntry[], sigma: number, soft: SoftPreferences): number {
  const w = OBJECTIVE_WEIGHTS;
  const low = members[0] as BatchEntry;
  const high = members[1] as BatchEntry;
  const softCost = soft.empty ? 0 : soft.cost(members);
  return (
    softCost +
    ((w.teamImbalance + w.spread) * (high.score - low.score)) / sigma +
    choice.region.worstLatencyMs / w.latencyMsPerSigma +
    (w.unmetMapPreference * choice.map.unmetPreferences) / 2
  );
}

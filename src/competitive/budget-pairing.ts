import type { BatchEntry, SortedBatch } from './batch-entry.js';
import type { SoftPreference } from './competitive-config.js';
import { OBJECTIVE_WEIGHTS } from './game-objective.js';
import { chooseVenue, costOf, windowAllowsAt } from './one-on-one-pairing.js';
import { NO_SOFT_PREFERENCES, type SoftPreferences } from './soft-preferences.js';
import type { VenueChoice } from './venue-choice.js';

/**
 * What leaving a ticket past its budget costs, times one plus the seconds it has waited: more than
 * any game could, so such a ticket is left only when nobody can take it, and then the youngest.
 */
const OVERDUE = 1e6;

/** A window this many sigmas wide takes anyone: a target under a batch interval asks for that. */
const ANYONE_SIGMAS = 8;

export interface BudgetPairingContext {
  readonly soft: SoftPreferences;
  readonly softPreferences: readonly SoftPreference[];
  readonly regions: readonly string[];
  readonly maps: readonly string[];
}

const NONE: BudgetPairingContext = { soft: NO_SOFT_PREFERENCES, softPreferences: [], regions: [], maps: [] };

/**
 * 1v1 pairing for pairWindow `budget`: among pairings of score neighbours (next or next but one),
 * the one with the least total cost, where a game costs what pairNeighbours weighs (gap, latency,
 * maps, soft preferences) and a ticket left for a later batch costs what it expects to pay by
 * waiting: half its window, in the same units. So a pair starts when its gap is under the mean of
 * its two windows (less what its latency and preferences cost), and, unlike pairNeighbours' "most
 * games first", two close neighbours are not split to make two wider games out of them and their
 * other neighbours: under a wait target a window is what the ticket can expect from waiting
 * (target-windows.ts), so a game that costs more than that is worse than waiting for a better one.
 *
 * A ticket past its budget (window Infinity), or whose window would take anyone, is never left
 * behind when it could play: leaving it costs OVERDUE, more the longer it has waited, so when a
 * batch has an odd number of them the youngest waits, as whoever arrived last waits in a
 * first-come queue. Pairing over one ticket is what lets any single ticket be the one that waits,
 * not only every other one. O(n) after the sort.
 *
 * Works on positions [from, to) of the batch; returns the pairs as [low, high, low, high, ...]
 * positions, in ascending order.
 */
export function pairWithinBudgets(
  batch: SortedBatch,
  from: number,
  to: number,
  venue: VenueChoice,
  sigma: number,
  { soft, softPreferences, regions, maps }: BudgetPairingContext = NONE,
): Int32Array {
  const n = to - from;
  const { score, maxScoreGap, waitMs } = batch;
  const perScore = (OBJECTIVE_WEIGHTS.teamImbalance + OBJECTIVE_WEIGHTS.spread) / sigma;
  // Soft preferences and maps choose among games; they do not hold a ticket back, as waiting does
  // not make a partner who shares them more likely. So leaving a ticket costs half what the least
  // agreeable game could cost on their account: an agreeable game starts sooner than the window
  // alone allows, a disagreeable one no later.
  let softest = 0;
  for (const preference of softPreferences) softest += preference.weight / 2;
  if (maps.length > 0) softest += OBJECTIVE_WEIGHTS.unmetMapPreference;
  const surcharge = softest / 2;
  const anyone = ANYONE_SIGMAS * sigma;
  // Where any map, region or soft preference is configured the venue and soft costs read the
  // tickets through entry objects; otherwise a game costs its score gap alone.
  const entries = venue.trivial && soft.empty ? undefined : batch.entries(from, to);
  const left = new Float64Array(n);
  const nearest = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    const window = maxScoreGap[from + k] as number;
    left[k] = (window >= anyone ? OVERDUE * (1 + (waitMs[from + k] as number) / 1000) : (perScore * window) / 2) + surcharge;
    if (entries !== undefined) nearest[k] = nearestRegionMs(entries[k] as BatchEntry, regions);
  }
  const members: BatchEntry[] = [];
  // A game's latency counts only above what its players would have anywhere: waiting does not
  // bring a partner closer to a region than the ticket itself is.
  const gameCost = (a: number, b: number): number => {
    if (!windowAllowsAt(batch, from + a, from + b, 'budget')) return Infinity;
    if (entries === undefined) return perScore * ((score[from + b] as number) - (score[from + a] as number));
    members[0] = entries[a] as BatchEntry;
    members[1] = entries[b] as BatchEntry;
    const choice = chooseVenue(venue, members);
    if (choice === undefined) return Infinity;
    return costOf(choice, members, sigma, soft) - Math.max(nearest[a] as number, nearest[b] as number) / OBJECTIVE_WEIGHTS.latencyMsPerSigma;
  };
  // cost[i]: least cost over the first i positions; took[i]: LEAVE (i-1 waits), NEIGHBOURS (i-2
  // and i-1 pair) or OVER_ONE (i-3 and i-1 pair, i-2 waits).
  const cost = new Float64Array(n + 1);
  const took = new Uint8Array(n + 1);
  let pairs = 0;
  const counted = new Int32Array(n + 1);
  for (let i = 1; i <= n; i++) {
    cost[i] = (cost[i - 1] as number) + (left[i - 1] as number);
    took[i] = LEAVE;
    counted[i] = counted[i - 1] as number;
    if (i >= 2) {
      const withPair = (cost[i - 2] as number) + gameCost(i - 2, i - 1);
      if (withPair < (cost[i] as number)) {
        cost[i] = withPair;
        took[i] = NEIGHBOURS;
        counted[i] = (counted[i - 2] as number) + 1;
      }
    }
    if (i >= 3) {
      const withPair = (cost[i - 3] as number) + (left[i - 2] as number) + gameCost(i - 3, i - 1);
      if (withPair < (cost[i] as number)) {
        cost[i] = withPair;
        took[i] = OVER_ONE;
        counted[i] = (counted[i - 3] as number) + 1;
      }
    }
  }
  pairs = counted[n] as number;
  const chosen = new Int32Array(2 * pairs);
  let g = pairs;
  for (let i = n; i >= 1; ) {
    const step = took[i];
    if (step === LEAVE) {
      i -= 1;
      continue;
    }
    const span = step === NEIGHBOURS ? 2 : 3;
    g -= 1;
    chosen[2 * g] = from + i - span;
    chosen[2 * g + 1] = from + i - 1;
    i -= span;
  }
  return chosen;
}

/** The ticket's own lowest latency to a configured region; 0 when it measured none (any region). */
function nearestRegionMs(entry: BatchEntry, regions: readonly string[]): number {
  const latencies = entry.ticket.latencyMs;
  if (latencies.size === 0) return 0;
  let best = Infinity;
  for (const region of regions) {
    const ms = latencies.get(region);
    if (ms !== undefined && ms < best) best = ms;
  }
  return best === Infinity ? 0 : best;
}

const LEAVE = 0;
const NEIGHBOURS = 1;
const OVER_ONE = 2;

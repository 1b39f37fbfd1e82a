import type { BatchEntry } from './batch-entry.js';
import { OBJECTIVE_WEIGHTS } from './game-objective.js';
import { pairCost, tryPair, type Pairing } from './one-on-one-pairing.js';
import type { SoftPreference } from './competitive-config.js';
import { NO_SOFT_PREFERENCES, type SoftPreferences } from './soft-preferences.js';
import type { VenueChoice } from './venue-choice.js';

/**
 * What leaving a ticket past its budget costs, times one plus the seconds it has waited: more than
 * any game could, so such a ticket is left only when nobody can take it, and then the youngest.
 */
const OVERDUE = 1e6;

/**
 * 1v1 pairing for pairWindow `budget`: among pairings of score neighbours (next or next but one), the one with the least
 * total cost, where a game costs what pairNeighbours weighs (gap, latency, maps, soft preferences)
 * and a ticket left for a later batch costs what it expects to pay by waiting: half its window,
 * in the same units. So a pair starts when its gap is under the mean of its two windows (less what
 * its latency and preferences cost), and, unlike pairNeighbours' "most games first", two close
 * neighbours are not split to make two wider games out of them and their other neighbours: under a
 * wait target a window is what the ticket can expect from waiting (target-windows.ts), so a game
 * that costs more than that is worse than waiting for a better one.
 *
 * A ticket past its budget (window Infinity), or whose window would take anyone, is never left
 * behind when it could play: leaving it costs OVERDUE, more the longer it has waited, so when a
 * batch has an odd number of them the youngest waits, as whoever arrived last waits in a
 * first-come queue. O(n) after the sort.
 */
export interface BudgetPairingContext {
  readonly soft: SoftPreferences;
  readonly softPreferences: readonly SoftPreference[];
  readonly regions: readonly string[];
  readonly maps: readonly string[];
}

const NONE: BudgetPairingContext = { soft: NO_SOFT_PREFERENCES, softPreferences: [], regions: [], maps: [] };

export function pairWithinBudgets(
  sorted: readonly BatchEntry[],
  venue: VenueChoice,
  sigma: number,
  { soft, softPreferences, regions, maps }: BudgetPairingContext = NONE,
): Pairing[] {
  const n = sorted.length;
  // Soft preferences and maps choose among games; they do not hold a ticket back, as waiting does
  // not make a partner who shares them more likely. So leaving a ticket costs half what the least
  // agreeable game could cost on their account: an agreeable game starts sooner than the window
  // alone allows, a disagreeable one no later.
  let softest = 0;
  for (const preference of softPreferences) softest += preference.weight / 2;
  if (maps.length > 0) softest += OBJECTIVE_WEIGHTS.unmetMapPreference;
  const surcharge = softest / 2;
  const perScore = (OBJECTIVE_WEIGHTS.teamImbalance + OBJECTIVE_WEIGHTS.spread) / sigma;
  // A window wider than any gap the population holds accepts anyone, as an overdue ticket does.
  const anyone = ANYONE_SIGMAS * sigma;
  // cost[i]: least cost over the first i entries; took[i]: LEAVE (entry i-1 waits), NEIGHBOURS
  // (i-2 and i-1 pair) or OVER_ONE (i-3 and i-1 pair, i-2 waits). Pairing over one lets any single
  // ticket of a batch be the one that waits, not only every other one.
  const cost = new Float64Array(n + 1);
  const left = new Float64Array(n);
  const nearest = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    left[k] = leftCost(sorted[k] as BatchEntry, perScore, anyone) + surcharge;
    nearest[k] = nearestRegionMs(sorted[k] as BatchEntry, regions);
  }
  // A game's latency counts only above what its players would have anywhere: waiting does not
  // bring a partner closer to a region than the ticket itself is (so, unlike the skill gap, the
  // latency every game of this ticket has is not weighed against its window).
  const gameCost = (pairing: Pairing, a: number, b: number): number =>
    pairCost(pairing, sigma, soft, scratch) - Math.max(nearest[a] as number, nearest[b] as number) / OBJECTIVE_WEIGHTS.latencyMsPerSigma;
  const took = new Uint8Array(n + 1);
  const scratch: BatchEntry[] = [];
  for (let i = 1; i <= n; i++) {
    const last = sorted[i - 1] as BatchEntry;
    cost[i] = (cost[i - 1] as number) + (left[i - 1] as number);
    if (i >= 2) {
      const pairing = tryPair(sorted[i - 2] as BatchEntry, last, venue, 'budget', scratch);
      if (pairing !== undefined) {
        const withPair = (cost[i - 2] as number) + gameCost(pairing, i - 2, i - 1);
        if (withPair < (cost[i] as number)) {
          cost[i] = withPair;
          took[i] = NEIGHBOURS;
        }
      }
    }
    if (i >= 3) {
      const pairing = tryPair(sorted[i - 3] as BatchEntry, last, venue, 'budget', scratch);
      if (pairing !== undefined) {
        const withPair = (cost[i - 3] as number) + (left[i - 2] as number) + gameCost(pairing, i - 3, i - 1);
        if (withPair < (cost[i] as number)) {
          cost[i] = withPair;
          took[i] = OVER_ONE;
        }
      }
    }
  }
  const chosen: Pairing[] = [];
  for (let i = n; i >= 1; ) {
    const step = took[i];
    if (step === LEAVE) {
      i -= 1;
      continue;
    }
    const low = sorted[i - (step === NEIGHBOURS ? 2 : 3)] as BatchEntry;
    chosen.push(tryPair(low, sorted[i - 1] as BatchEntry, venue, 'budget', scratch) as Pairing);
    i -= step === NEIGHBOURS ? 2 : 3;
  }
  return chosen.reverse();
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

/** A window this many sigmas wide takes anyone: a target under a batch interval asks for that. */
const ANYONE_SIGMAS = 8;

const LEAVE = 0;
const NEIGHBOURS = 1;
const OVER_ONE = 2;

function leftCost(entry: BatchEntry, perScore: number, anyone: number): number {
  if (entry.maxScoreGap >= anyone) return OVERDUE * (1 + entry.waitMs / 1000);
  return (perScore * entry.maxScoreGap) / 2;
}

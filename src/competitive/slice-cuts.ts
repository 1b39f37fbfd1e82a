import type { SortedBatch } from './batch-entry.js';
import type { CompetitiveConfig, PairWindow } from './competitive-config.js';
import { windowAllowsAt } from './one-on-one-pairing.js';

/** Consecutive entries [from, to) of a prepared batch, with what its solver needs besides them. */
export interface PreparedSlice {
  readonly from: number;
  readonly to: number;
  readonly seed: number;
  /** The slice's share of the batch's hill-climb budget, by its size. */
  readonly budgetMs: number;
}

/**
 * A sorted batch cut into slices of consecutive tickets, each solved on its own (in process or on a
 * worker thread). A team slice holds about 256 tickets and ends where its players make whole games.
 * A 1v1 slice ends only where two score neighbours cannot pair (further apart than the pair window
 * allows), so pairing slice by slice forms exactly the pairs pairing the whole batch would; a pool
 * dense in score is one slice, solved off the calling thread but not in parallel (the pairing is
 * O(n) after the sort). Each slice gets a seed drawn from `random` and a share of the time budget
 * by its size.
 */
export function cutSlices(
  sorted: SortedBatch,
  config: Pick<CompetitiveConfig, 'teams' | 'teamSize' | 'hillClimbBudgetMs'>,
  pairWindow: PairWindow,
  random: () => number,
): PreparedSlice[] {
  const count = sorted.length;
  const oneOnOne = config.teams === 2 && config.teamSize === 1;
  const playersPerGame = config.teams * config.teamSize;
  const teamSlice = Math.max(256, 16 * playersPerGame);
  const slices: PreparedSlice[] = [];
  for (let from = 0; from < count; ) {
    let to = Math.min(count, from + (oneOnOne ? ONE_ON_ONE_SLICE_TICKETS : teamSlice));
    if (oneOnOne) {
      while (to < count && pairsAcross(sorted, to, pairWindow)) to += 1;
    } else {
      to = onGameBoundary(sorted, from, to, playersPerGame);
    }
    const seed = Math.floor(random() * 0x1_0000_0000);
    const budgetMs = (config.hillClimbBudgetMs * (to - from)) / count;
    slices.push({ from, to, seed, budgetMs });
    from = to;
  }
  return slices;
}

/**
 * Whether some pair the 1v1 pairing may form crosses the cut before position `to`: the neighbours
 * there, or, for the budget pairing (which pairs over one ticket too), a pair over the cut.
 */
function pairsAcross(sorted: SortedBatch, to: number, rule: PairWindow): boolean {
  if (windowAllowsAt(sorted, to - 1, to, rule)) return true;
  if (rule !== 'budget') return false;
  return (to >= 2 && windowAllowsAt(sorted, to - 2, to, rule)) || (to + 1 < sorted.length && windowAllowsAt(sorted, to - 1, to + 1, rule));
}

/**
 * Smallest 1v1 slice: a slice ends at the first place past this many tickets where neighbours
 * cannot pair. Large enough that posting a slice costs little next to solving it.
 */
const ONE_ON_ONE_SLICE_TICKETS = 4096;

/**
 * A team slice's end moved up to one game's worth of tickets later, to where the slice's players
 * make whole games: a slice of 256 solos in 5v5 formed 25 games and sent 6 players back to the
 * pool, 2.3% of a batch that could have played (and 6 bench places per slice for the climb to
 * work on). With parties no such end may exist nearby; the slice then ends where it did.
 */
function onGameBoundary(sorted: SortedBatch, from: number, to: number, playersPerGame: number): number {
  let players = 0;
  for (let k = from; k < to; k++) players += sorted.size[k] as number;
  for (let end = to; end <= Math.min(sorted.length, to + playersPerGame); end++) {
    if (players % playersPerGame === 0) return end;
    if (end < sorted.length) players += sorted.size[end] as number;
  }
  return to;
}

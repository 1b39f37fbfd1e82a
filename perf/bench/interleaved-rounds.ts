/**
 * Two figures whose ratio is a goal, read in interleaved rounds rather than once each: on this
 * shared machine the load from other jobs moves between two measurements minutes apart, and a
 * ratio of the two moves with it. A round measures each side back to back, so its ratio divides
 * figures read seconds apart; the goal reads the median round, so one round that another job's
 * burst hit does not decide it.
 */

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * Calls `measure` for every side in every round, the sides in the order given in even rounds and
 * reversed in odd ones: a load trend within a round then falls on each side alike over the
 * rounds. Returns each side's figures by round (`figures[side][round]`).
 */
export async function interleavedRounds<Side, Figure>(rounds: number, sides: readonly Side[], measure: (side: Side, round: number) => Promise<Figure>): Promise<Figure[][]> {
  const figures = sides.map(() => [] as Figure[]);
  for (let round = 0; round < rounds; round++) {
    const order = sides.map((_, index) => index);
    if (round % 2 === 1) order.reverse();
    for (const index of order) figures[index]![round] = await measure(sides[index]!, round);
  }
  return figures;
}

/**
 * Weighted water-filling in whole slots, the arithmetic under slot apportioning
 * (slot-apportion.ts): shards start at a base (what they hold already) and `room` more slots are
 * shared so that the smallest base+extra per unit of weight is as large as it can be (max-min).
 * Continuous level first (one sort of the shards), then whole slots: each extra rounded down,
 * the few slots left over handed by Sainte-Laguë turns ((total + ½) / weight, smallest first).
 * Every shard ends within one slot of the continuous ideal. Cost O(shards log shards), whatever
 * the room: no step per slot.
 */
export function waterFill(bases: readonly number[], weights: readonly number[], room: number): number[] {
  return waterLevel(bases, weights, room).extras;
}

/** The whole-slot extras, and the continuous level they approximate (each ideal extra is max(0, level × weight − base)). */
export function waterLevel(bases: readonly number[], weights: readonly number[], room: number): { extras: number[]; level: number } {
  const n = bases.length;
  const extras = new Array<number>(n).fill(0);
  if (n === 0 || room <= 0) return { extras, level: 0 };
  // Shards in the order the rising water reaches them (base per weight, ascending).
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => bases[a]! / weights[a]! - bases[b]! / weights[b]! || a - b);
  let level = 0;
  let sumBase = 0;
  let sumWeight = 0;
  for (let k = 0; k < n; k++) {
    const i = order[k]!;
    sumBase += bases[i]!;
    sumWeight += weights[i]!;
    // Water level if exactly the first k+1 shards are under it: Σ (level·w − base) = room.
    const candidate = (room + sumBase) / sumWeight;
    const next = order[k + 1];
    if (next === undefined || candidate <= bases[next]! / weights[next]!) {
      level = candidate;
      break;
    }
  }
  let given = 0;
  for (let i = 0; i < n; i++) {
    extras[i] = Math.max(0, Math.floor(level * weights[i]! - bases[i]! + 1e-9));
    given += extras[i]!;
  }
  // Float rounding may overshoot by a slot here and there: take back from the best served.
  while (given > room) {
    let best = -1;
    for (let i = 0; i < n; i++) if (extras[i]! > 0 && (best < 0 || key(bases, extras, weights, i) > key(bases, extras, weights, best))) best = i;
    extras[best]!--;
    given--;
  }
  if (given < room) {
    // Fewer than n slots left: one each to the shards furthest below the level, Sainte-Laguë order.
    const turns = Array.from({ length: n }, (_, i) => i).sort((a, b) => key(bases, extras, weights, a) - key(bases, extras, weights, b) || a - b);
    for (let k = 0; given < room; k = (k + 1) % n, given++) extras[turns[k]!]!++;
  }
  return { extras, level };
}

const key = (bases: readonly number[], extras: readonly number[], weights: readonly number[], i: number): number => (bases[i]! + extras[i]! + 0.5) / weights[i]!;

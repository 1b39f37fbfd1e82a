/**
 * A small seeded RNG (mulberry32) for the matcher's `random` dependency: batches replay exactly in
 * tests and simulations. Not for anything security-related.
 */
export function seededRandom(seed: number): () => number {
  // The state lives in a typed array: as a closure variable above 2^30 it was a heap number,
  // allocated anew on every call (a third of a hill-climb move's time went to drawing it).
  const state = new Uint32Array([seed >>> 0]);
  return () => {
    const s = ((state[0] as number) + 0x6d2b79f5) >>> 0;
    state[0] = s;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

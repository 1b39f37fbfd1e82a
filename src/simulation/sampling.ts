import { seededRandom } from '../competitive/index.js';

/** Draws from one seeded stream (mulberry32), so a run replays bit for bit. */
export class Sampler {
  private readonly next: () => number;
  constructor(seed: number) {
    this.next = seededRandom(seed);
  }
  uniform(): number {
    return this.next();
  }
  /** Box-Muller; one draw per call keeps the stream's use simple to follow. */
  normal(mean = 0, sd = 1): number {
    const u = 1 - this.next();
    return mean + sd * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * this.next());
  }
  exponential(mean: number): number {
    return -Math.log(1 - this.next()) * mean;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  /** An index drawn with the given (non-negative) weights. */
  weighted(weights: readonly number[]): number {
    const total = weights.reduce((s, w) => s + w, 0);
    let x = this.next() * total;
    for (let i = 0; i < weights.length; i++) {
      x -= weights[i] as number;
      if (x < 0) return i;
    }
    return weights.length - 1;
  }
}

/** Seeds of independent streams derived from one scenario seed, so adding draws to one does not shift another. */
export function streamSeed(seed: number, stream: number): number {
  return (Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) + Math.imul(stream + 1, 0xc2b2ae35)) >>> 0;
}

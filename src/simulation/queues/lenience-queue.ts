import { radixOrder } from '../../collections/radix-order.js';
import type { QueuedTicket, SimMatch, SimulatedQueue } from './simulated-queue.js';

export interface LenienceSettings {
  /** M: cost per score unit of difference. The paper's M = 1/50 per Elo point. */
  readonly perScore: number;
  /** P: cost per ms of summed latency; the paper's 1/200. */
  readonly perMs: number;
  /** Lenience gained per second unmatched (it starts at 1). */
  readonly growthPerSecond: number;
}

/**
 * The lenience (queue) model of seeds/parallel-matchmaking-elo-trueskill.txt: A and B match when
 * (lenience_A + lenience_B) / 2 > M |MMR_A - MMR_B| + P (latency_A + latency_B), and a player's
 * lenience grows while unmatched. The paper scans every other waiting player; we scan the pool
 * sorted by score outward from each player and stop where M x distance alone exceeds the best
 * lenience possible, which finds the same acceptable partners; among them we take the closest in
 * score rather than the first in list order (no worse a gap than the paper's). 1v1.
 */
export class LenienceQueue implements SimulatedQueue {
  readonly name: string;
  private pool: QueuedTicket[] = [];
  constructor(private readonly settings: LenienceSettings, name = 'lenience model') {
    this.name = name;
  }
  private lenience(t: QueuedTicket, now: number): number {
    return 1 + (this.settings.growthPerSecond * (now - t.enqueuedAt)) / 1000;
  }
  arrive(ticket: QueuedTicket): void {
    this.pool.push(ticket);
  }
  check(now: number): SimMatch[] {
    const { perScore, perMs } = this.settings;
    const pool = this.pool;
    const n = pool.length;
    // Sorted by score, ties in arrival order; positions and flags in typed arrays: a 10,000-step
    // run of 32,768 players (the paper's own experiment) checks a few thousand tickets every step.
    const scores = new Float64Array(n);
    const lenience = new Float64Array(n);
    let maxLenience = 0;
    for (let k = 0; k < n; k++) {
      const t = pool[k] as QueuedTicket;
      scores[k] = t.score;
      lenience[k] = this.lenience(t, now);
      if ((lenience[k] as number) > maxLenience) maxLenience = lenience[k] as number;
    }
    const sorted = radixOrder(scores);
    const position = new Int32Array(n);
    for (let s = 0; s < n; s++) position[sorted[s] as number] = s;
    // The players not yet taken, linked in score order, so a scan steps over taken ones at once
    // (with many equal scores, walking past them one by one made a step quadratic).
    const before = new Int32Array(n);
    const after = new Int32Array(n);
    for (let s = 0; s < n; s++) {
      before[s] = s - 1;
      after[s] = s + 1;
    }
    const unlink = (s: number): void => {
      const b = before[s] as number;
      const a = after[s] as number;
      if (b >= 0) after[b] = a;
      if (a < n) before[a] = b;
    };
    const taken = new Uint8Array(n);
    const matches: SimMatch[] = [];
    // Players in arrival order, as the paper goes over its player list.
    for (let k = 0; k < n; k++) {
      if (taken[k]) continue;
      const player = pool[k] as QueuedTicket;
      const i = position[k] as number;
      const own = lenience[k] as number;
      const reach = (own + maxLenience) / 2 / perScore;
      let best = -1;
      let bestGap = Infinity;
      for (const links of [before, after]) {
        for (let j = links[i] as number; j >= 0 && j < n; j = links[j] as number) {
          const at = sorted[j] as number;
          const other = pool[at] as QueuedTicket;
          const gap = Math.abs(other.score - player.score);
          if (gap > reach || gap >= bestGap) break;
          const accept = (own + (lenience[at] as number)) / 2 > perScore * gap + perMs * (player.bestLatencyMs + other.bestLatencyMs);
          if (accept) {
            best = at;
            bestGap = gap;
            break;
          }
        }
      }
      if (best < 0) continue;
      taken[k] = 1;
      taken[best] = 1;
      unlink(i);
      unlink(position[best] as number);
      matches.push({ teams: [[player.id], [(pool[best] as QueuedTicket).id]] });
    }
    if (matches.length > 0) this.pool = pool.filter((_, k) => !taken[k]);
    return matches;
  }
  get waiting(): number {
    return this.pool.length;
  }
}

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
    const sorted = [...this.pool].sort((a, b) => a.score - b.score || (a.id < b.id ? -1 : 1));
    const position = new Map(sorted.map((t, i) => [t.id, i]));
    const taken = new Uint8Array(sorted.length);
    let maxLenience = 0;
    for (const t of sorted) maxLenience = Math.max(maxLenience, this.lenience(t, now));
    const matches: SimMatch[] = [];
    // Players in arrival order, as the paper goes over its player list.
    for (const player of this.pool) {
      const i = position.get(player.id) as number;
      if (taken[i]) continue;
      const own = this.lenience(player, now);
      const reach = (own + maxLenience) / 2 / perScore;
      let best = -1;
      let bestGap = Infinity;
      for (const step of [-1, 1]) {
        for (let j = i + step; j >= 0 && j < sorted.length; j += step) {
          const other = sorted[j]!;
          const gap = Math.abs(other.score - player.score);
          if (gap > reach || gap >= bestGap) break;
          if (taken[j]) continue;
          const accept = (own + this.lenience(other, now)) / 2 > perScore * gap + perMs * (player.bestLatencyMs + other.bestLatencyMs);
          if (accept) {
            best = j;
            bestGap = gap;
            break;
          }
        }
      }
      if (best < 0) continue;
      taken[i] = 1;
      taken[best] = 1;
      matches.push({ teams: [[player.id], [sorted[best]!.id]] });
    }
    if (matches.length > 0) this.pool = this.pool.filter((t) => !taken[position.get(t.id) as number]);
    return matches;
  }
  get waiting(): number {
    return this.pool.length;
  }
}

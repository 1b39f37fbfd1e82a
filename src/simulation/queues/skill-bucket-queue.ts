import type { QueuedTicket, SimMatch, SimulatedQueue } from './simulated-queue.js';

export interface SkillBucketSettings {
  /** Bucket width in score units (the doc's round(): one bucket per unit of its TrueSkill scale). */
  readonly bucketWidth: number;
  /** "Range increase rate": one more bucket every this many ms of waiting. */
  readonly rangeStepMs: number;
  /** "Range maximum", in buckets. */
  readonly rangeMax: number;
}

/**
 * seeds/skill-bucket-design-doc.txt: bucket = round(score / width); at each check, every player in
 * arrival order looks at buckets ever further from its own, up to its range (one more bucket every
 * rangeStepMs, capped at rangeMax), and takes the first player found whose own range reaches back
 * (the suggested 100% reciprocal range requirement). 1v1.
 */
export class SkillBucketQueue implements SimulatedQueue {
  readonly name: string;
  private readonly buckets = new Map<number, QueuedTicket[]>();
  private players: QueuedTicket[] = [];
  constructor(private readonly settings: SkillBucketSettings, name = 'skill buckets') {
    this.name = name;
  }
  private bucketOf(score: number): number {
    return Math.round(score / this.settings.bucketWidth);
  }
  private rangeOf(t: QueuedTicket, now: number): number {
    return Math.min(this.settings.rangeMax, Math.floor((now - t.enqueuedAt) / this.settings.rangeStepMs));
  }
  arrive(ticket: QueuedTicket): void {
    this.players.push(ticket);
    const b = this.bucketOf(ticket.score);
    const list = this.buckets.get(b);
    if (list) list.push(ticket);
    else this.buckets.set(b, [ticket]);
  }
  check(now: number): SimMatch[] {
    const matched = new Set<string>();
    const matches: SimMatch[] = [];
    for (const player of this.players) {
      if (matched.has(player.id)) continue;
      const home = this.bucketOf(player.score);
      const range = this.rangeOf(player, now);
      let found: QueuedTicket | undefined;
      for (let d = 0; d <= range && found === undefined; d++) {
        for (const bucket of d === 0 ? [home] : [home - d, home + d]) {
          found = this.buckets
            .get(bucket)
            ?.find((other) => other.id !== player.id && !matched.has(other.id) && this.rangeOf(other, now) >= d);
          if (found) break;
        }
      }
      if (found === undefined) continue;
      matched.add(player.id).add(found.id);
      matches.push({ teams: [[player.id], [found.id]] });
    }
    if (matched.size === 0) return matches;
    this.players = this.players.filter((p) => !matched.has(p.id));
    for (const [b, list] of this.buckets) {
      const kept = list.filter((p) => !matched.has(p.id));
      if (kept.length === 0) this.buckets.delete(b);
      else this.buckets.set(b, kept);
    }
    return matches;
  }
  get waiting(): number {
    return this.players.length;
  }
}

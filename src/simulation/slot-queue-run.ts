import { LineDepartures, worthTelling, type ToldQueued } from '../placement/index.js';
import { EventQueue } from './event-queue.js';
import { Sampler } from './sampling.js';

export interface SlotQueueSettings {
  readonly seed: number;
  /** Game-server slots of the factory. */
  readonly slots: number;
  /** Requests (game creations) per second. */
  readonly perSecond: number;
  /** How long a game holds its slot: mean, and spread as a share of it (uniform). */
  readonly gameSeconds: number;
  readonly gameSpread: number;
  readonly hours: number;
}

/** One look at a waiting request: what it would be told, against how long it then really waited. */
export interface WaitSample {
  readonly position: number;
  readonly estimateMs: number | undefined;
  readonly remainingMs: number;
}

export interface SlotQueueSummary {
  readonly waited: number;
  /** Every waiting request, once a second of its wait. */
  readonly samples: WaitSample[];
  /** `queued` updates sent under worthTelling, and looks taken (one a second per waiting request). */
  readonly updatesSent: number;
  readonly looks: number;
}

/**
 * A factory's line for game-server slots on simulated time: requests arrive (Poisson), take a free
 * slot or wait in FIFO order; a game holds its slot for its duration, then the slot goes to the
 * head of the line. Once a second every waiting request is looked at as the coordinator does:
 * its position, the estimate LineDepartures gives it, whether worthTelling would send it; when it
 * leaves the line its real remaining wait is known for each look.
 */
export function runSlotQueue(settings: SlotQueueSettings): SlotQueueSummary {
  const sample = new Sampler(settings.seed);
  const line = new LineDepartures();
  const ends = new EventQueue<null>();
  const waiting: { id: number; looks: { at: number; position: number; estimateMs: number | undefined }[]; told?: ToldQueued }[] = [];
  const samples: WaitSample[] = [];
  const durationMs = settings.hours * 3_600_000;
  let free = settings.slots;
  let waited = 0;
  let updatesSent = 0;
  let looks = 0;
  let nextLookAt = 1000;
  let id = 0;
  const startGame = (at: number) => {
    const ms = settings.gameSeconds * 1000 * (1 + settings.gameSpread * (2 * sample.uniform() - 1));
    ends.push(at + ms, null);
  };
  const gameEnded = (at: number) => {
    const head = waiting.shift();
    if (head === undefined) return void free++;
    line.departed(at);
    for (const look of head.looks) samples.push({ position: look.position, estimateMs: look.estimateMs, remainingMs: at - look.at });
    startGame(at);
  };
  const lookAll = (at: number) => {
    waiting.forEach((w, i) => {
      const estimateMs = line.estimateMs(i + 1, at);
      w.looks.push({ at, position: i + 1, estimateMs });
      looks++;
      if (worthTelling(w.told, i + 1, estimateMs, at)) {
        updatesSent++;
        w.told = { position: i + 1, estimatedWaitMs: estimateMs, at };
      }
    });
  };
  for (let at = sample.exponential(1000 / settings.perSecond); at < durationMs; at += sample.exponential(1000 / settings.perSecond)) {
    for (;;) {
      const next = Math.min(ends.peekAt() ?? Infinity, nextLookAt);
      if (next > at) break;
      if (next === nextLookAt) {
        lookAll(nextLookAt);
        nextLookAt += 1000;
      } else gameEnded(ends.pop()!.at);
    }
    if (free > 0) {
      free--;
      startGame(at);
    } else {
      waited++;
      waiting.push({ id: id++, looks: [] });
    }
  }
  return { waited, samples, updatesSent, looks };
}

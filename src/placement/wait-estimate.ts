/**
 * The longest wait worth telling a client (an hour): past it the figure says nothing a player can
 * use, and "unknown" is more honest.
 */
export const MAX_WAIT_ESTIMATE_MS = 3_600_000;

/** Departures remembered per line: enough to smooth a bursty line, O(1) memory per factory. */
export const DEPARTURES_REMEMBERED = 32;
/** Departures older than this say nothing about the line now. */
export const DEPARTURE_WINDOW_MS = 300_000;

/**
 * How fast one factory's line for a game-server slot moves: the times of its recent departures
 * (creations that left the line for a server), and from them the wait of whoever stands at a
 * position. The rate is the departures remembered over the time from the oldest of them to now,
 * so it is smoothed over bursts (slots free up together when games end together), and while
 * nothing leaves the line the estimate grows only as fast as the clock (the time since the oldest
 * departure, spread over the departures), never by the exponential decay a half-life rate gives:
 * a ticket at position 1 of a line that moves once a minute hears about a minute, not fourteen.
 * Unknown (undefined) until two departures are seen, once they are older than the window, and past
 * MAX_WAIT_ESTIMATE_MS. Pure: the clock comes in as an argument.
 */
export class LineDepartures {
  private readonly at: number[] = [];
  private next = 0;

  /** A creation left the line at `now`. */
  departed(now: number): void {
    if (this.at.length < DEPARTURES_REMEMBERED) this.at.push(now);
    else this.at[this.next] = now;
    this.next = (this.next + 1) % DEPARTURES_REMEMBERED;
  }

  /** Estimated wait of the `position`th in line (1-based), or undefined when the line cannot tell. */
  estimateMs(position: number, now: number): number | undefined {
    let oldest = Infinity;
    let recent = 0;
    for (const t of this.at) {
      if (now - t > DEPARTURE_WINDOW_MS) continue;
      recent++;
      if (t < oldest) oldest = t;
    }
    if (recent < 2) return undefined;
    // At least a second of history, so a burst of departures in one tick is not an infinite rate.
    const perMs = recent / Math.max(1000, now - oldest);
    const ms = Math.ceil(Math.max(1, position) / perMs);
    return ms <= MAX_WAIT_ESTIMATE_MS ? ms : undefined;
  }
}

/** How different a new `queued` must be from the last one a ticket heard to be sent at all. */
export const QUEUED_UPDATE_MIN_INTERVAL_MS = 3000;

export interface ToldQueued {
  readonly position: number;
  readonly estimatedWaitMs: number | undefined;
  readonly at: number;
}

/**
 * Whether a queued ticket hears a new position and estimate: at most once every
 * QUEUED_UPDATE_MIN_INTERVAL_MS, and only when the position moved by a tenth (any move in the
 * first ten places), the estimate by a fifth and at least a second, or the estimate appeared or
 * became unknown. Estimates move a little at every departure; re-sending each of them cost a
 * gateway with 50,000 waiting players more than 200,000 messages a minute.
 */
export function worthTelling(last: ToldQueued | undefined, position: number, estimatedWaitMs: number | undefined, now: number): boolean {
  if (last === undefined) return true;
  if (now - last.at < QUEUED_UPDATE_MIN_INTERVAL_MS) return false;
  if (Math.abs(position - last.position) >= Math.max(1, Math.ceil(last.position / 10))) return true;
  if ((estimatedWaitMs === undefined) !== (last.estimatedWaitMs === undefined)) return true;
  if (estimatedWaitMs === undefined || last.estimatedWaitMs === undefined) return false;
  return Math.abs(estimatedWaitMs - last.estimatedWaitMs) >= Math.max(1000, last.estimatedWaitMs / 5);
}

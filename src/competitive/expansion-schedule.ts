import type { ExpansionStep } from './competitive-config.js';

/**
 * The time-staged expansion rules of a factory (Destiny thesis, "Expand Properties"; Hearthstone's
 * "leftover players ... have their threshold relaxed"): the step in force for a ticket is the last
 * one whose afterMs its wait has reached. Binary search, so O(log steps) per look-up.
 */
export class ExpansionSchedule {
  constructor(private readonly steps: readonly ExpansionStep[]) {
    if (steps.length === 0 || steps[0]?.afterMs !== 0) {
      throw new Error('expansion schedule: the first step must start at afterMs 0');
    }
  }

  /** The window of a ticket that has waited `waitMs` (negative waits get the first step). */
  stepFor(waitMs: number): ExpansionStep {
    let lo = 0;
    let hi = this.steps.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((this.steps[mid] as ExpansionStep).afterMs <= waitMs) lo = mid;
      else hi = mid - 1;
    }
    return this.steps[lo] as ExpansionStep;
  }

  /** When a ticket enqueued at `enqueuedAt` next gets a wider window, or undefined at the last step. */
  nextRelaxationAt(enqueuedAt: number, now: number): number | undefined {
    const wait = now - enqueuedAt;
    const current = this.steps.indexOf(this.stepFor(wait));
    const next = this.steps[current + 1];
    return next === undefined ? undefined : enqueuedAt + next.afterMs;
  }
}

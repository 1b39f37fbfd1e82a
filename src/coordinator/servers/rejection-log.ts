import type { CoreContext } from '../core-context.js';
import { DeadlineKind } from '../deadlines.js';

/** How long after a logged rejection a server's further ones are only counted, then summed up in one line. */
export const REJECTION_LOG_WINDOW_MS = 10_000;

interface Window {
  suppressed: number;
  readonly byKind: Map<string, number>;
  lastProblem: string;
}

/**
 * Logs the reports a server gets rejected at a bounded rate: the first of a window in full, the
 * rest of the window counted and summed up in one line when it closes, so a server that floods bad
 * reports cannot flood the log (every rejection is still counted in /metrics, by kind).
 */
export class RejectionLog {
  private readonly windows = new Map<string, Window>();

  constructor(private readonly ctx: CoreContext) {}

  rejected(serverId: string, kind: string, problem: string): void {
    const open = this.windows.get(serverId);
    if (open) {
      open.suppressed++;
      open.byKind.set(kind, (open.byKind.get(kind) ?? 0) + 1);
      open.lastProblem = problem;
      return;
    }
    this.ctx.out.warn({ serverId, event: kind, problem }, 'rejected a game server message');
    this.windows.set(serverId, { suppressed: 0, byKind: new Map(), lastProblem: '' });
    this.ctx.deadlines.set(DeadlineKind.RejectionSummary, serverId, this.ctx.now() + REJECTION_LOG_WINDOW_MS);
  }

  /** The server's window closed: one line for what it counted, and the next rejection is logged in full. */
  windowClosed(serverId: string): void {
    const window = this.windows.get(serverId);
    this.windows.delete(serverId);
    if (!window || window.suppressed === 0) return;
    this.ctx.out.warn(
      { serverId, rejected: window.suppressed, byKind: Object.fromEntries(window.byKind), lastProblem: window.lastProblem, windowMs: REJECTION_LOG_WINDOW_MS },
      'rejected more messages of a game server (summed up)',
    );
  }
}

/** What the edge running the core needs from its surroundings, injected so tests control it. */

export interface Timers {
  /** Calls `fn` after `ms`; returns a function that cancels it. */
  set(fn: () => void, ms: number): () => void;
}

export const realTimers: Timers = {
  set(fn, ms) {
    const handle = setTimeout(fn, Math.max(0, ms));
    handle.unref?.();
    return () => clearTimeout(handle);
  },
};

export { silentLog, type Log } from './log.js';
export type { TicketRecord, TicketStore } from './tickets/ticket-record.js';

import type { CoordinatorCommands } from '../coordinator/edges/commands.js';
import type { FindRequest, TicketListener } from '../coordinator/messages.js';

/** The call a find arrived on (the root span's rpc.method). */
export type FindMethod = 'FindGame' | 'FindGames';

/** A header of the call a find arrived on (W3C `traceparent`, `tracestate`), if it has one. */
export type TraceHeader = (name: string) => string | undefined;

/**
 * What a transport asks of tracing, in its own terms (no OpenTelemetry type): the transport holds
 * one only when tracing is on, and otherwise calls `find` on the commands itself, so a process
 * that does not trace makes nothing for it.
 */
export interface FindTracing {
  /** The time a call arrived at, on the spans' clock (ms since the epoch, fractional). */
  now(): number;
  /**
   * Passes `request` on to `commands.find` inside its trace: the find's root span (child of the
   * caller's `traceparent`, started at `arrivedAt`) and its matching span, ended by what the core
   * reports afterwards. Throws what `commands.find` throws.
   */
  find(commands: CoordinatorCommands, request: FindRequest, listener: TicketListener, header: TraceHeader, arrivedAt: number | undefined, method: FindMethod): void;
}

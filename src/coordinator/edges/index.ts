/** The core's edges: what the transport, metrics and the operator page may depend on. */
export type { CoordinatorCommands } from './commands.js';
export type { CoordinatorEventMap, CoordinatorEventType, CoordinatorEventListener, CoordinatorEvents, FindOutcome, RequeueCause } from './events.js';
export type { CoordinatorSnapshot, CoordinatorView, FactorySummary, ServerSummary, TicketSummary } from './view.js';

import type { CoordinatorCommands } from './commands.js';
import type { CoordinatorEvents } from './events.js';
import type { CoordinatorView } from './view.js';

/** A running core as its edges see it. */
export interface CoordinatorEdges {
  readonly commands: CoordinatorCommands;
  readonly view: CoordinatorView;
  readonly events: CoordinatorEvents;
}

import type { IncomingMessage, ServerResponse } from 'node:http';
import { OperatorBoard } from './operator-board.js';
import type { OperatorSource } from './operator-source.js';
import { operatorRoutes } from './operator-routes.js';

export { CoordinatorOperatorSource } from './coordinator-adapter.js';
export type { OperatorSource, OperatorEvent, OperatorSnapshot, FactorySnapshot, ServerSnapshot } from './operator-source.js';
export { OperatorBoard } from './operator-board.js';

/** Ticks every second, matching the page's poll. */
export const TICK_MS = 1000;

export interface OperatorPage {
  readonly board: OperatorBoard;
  /** HTTP routes for the metrics server: true when the request was answered. */
  readonly routes: (req: IncomingMessage, res: ServerResponse) => boolean;
  stop(): void;
}

/** The operator page over `source`: a board ticked every second and its HTTP routes. */
export function startOperatorPage(source: OperatorSource, now: () => number): OperatorPage {
  const board = new OperatorBoard(source, now);
  board.tick();
  const timer = setInterval(() => board.tick(), TICK_MS);
  timer.unref();
  return {
    board,
    routes: operatorRoutes(board),
    stop() {
      clearInterval(timer);
      board.close();
    },
  };
}

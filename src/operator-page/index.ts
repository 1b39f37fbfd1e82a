import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ClusterOverview } from '../cluster/stats/cluster-board.js';
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

/**
 * The operator page over `source`: a board ticked every second and its HTTP routes; on a cluster
 * node, `cluster` adds every node's factories (src/redis/stats).
 */
export function startOperatorPage(source: OperatorSource, now: () => number, cluster?: () => ClusterOverview | undefined): OperatorPage {
  const board = new OperatorBoard(source, now);
  board.tick();
  const timer = setInterval(() => board.tick(), TICK_MS);
  timer.unref();
  return {
    board,
    routes: operatorRoutes(board, cluster),
    stop() {
      clearInterval(timer);
      board.close();
    },
  };
}

import type { CoordinatorView } from '../../coordinator/edges/view.js';
import type { StatsQuery } from '../../coordinator/stats-query.js';

/**
 * The read-only view on a node of the cluster: the matcher core's when this node runs it, the
 * node's idle local core's otherwise (which knows nothing: stats are answered by the owner).
 */
export class MatcherView implements CoordinatorView {
  constructor(private readonly current: () => CoordinatorView) {}

  snapshot() {
    return this.current().snapshot();
  }
  factoryNames() {
    return this.current().factoryNames();
  }
  queuedIn(factory: string) {
    return this.current().queuedIn(factory);
  }
  servers() {
    return this.current().servers();
  }
  factories(now: number) {
    return this.current().factories(now);
  }
  ticket(ticketId: string) {
    return this.current().ticket(ticketId);
  }
  gameServer(gameId: string) {
    return this.current().gameServer(gameId);
  }
  queryStats(query: StatsQuery, now: number) {
    return this.current().queryStats(query, now);
  }
}

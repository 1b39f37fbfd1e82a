import type { CoordinatorView } from '../../coordinator/edges/view.js';
import type { StatsQuery } from '../../coordinator/stats-query.js';
import { MatchmakingError } from '../../errors/index.js';

/**
 * The read-only view on a node of the cluster: the matcher core's while this node runs it. A node
 * that does not run the matcher knows of no factory, server or ticket (its gauges read zero, so
 * Prometheus sums the cluster right) and answers QueryStats UNAVAILABLE: the owner node has them.
 */
export class MatcherView implements CoordinatorView {
  constructor(private readonly current: () => CoordinatorView | undefined) {}

  snapshot() {
    return (
      this.current()?.snapshot() ?? {
        servers: 0,
        factories: 0,
        games: 0,
        tickets: 0,
        ticketsByState: { parked: 0, pooled: 0, placing: 0, assigned: 0 },
        queued: 0,
        openGames: 0,
      }
    );
  }
  factoryNames() {
    return this.current()?.factoryNames() ?? [];
  }
  queuedIn(factory: string) {
    return this.current()?.queuedIn(factory) ?? 0;
  }
  freeSlots() {
    return this.current()?.freeSlots() ?? 0;
  }
  servers() {
    return this.current()?.servers() ?? [];
  }
  factories(now: number) {
    return this.current()?.factories(now) ?? [];
  }
  ticket(ticketId: string) {
    return this.current()?.ticket(ticketId);
  }
  gameServer(gameId: string) {
    return this.current()?.gameServer(gameId);
  }
  queryStats(query: StatsQuery, now: number) {
    const view = this.current();
    if (!view) throw new MatchmakingError('UNAVAILABLE', 'this node does not run the matcher right now: ask another node, or retry');
    return view.queryStats(query, now);
  }
}

import { ClusterStats, type StatsDirectory, type StatsPart } from '../../cluster/stats/cluster-stats.js';
import { nodeBoard, type ClusterOverview } from '../../cluster/stats/cluster-board.js';
import type { FactoryTemplate } from '../../config/config.js';
import type { CoordinatorView } from '../../coordinator/edges/view.js';
import type { Log } from '../../coordinator/ports.js';
import type { StatsAnswer, StatsQuery } from '../../coordinator/stats-query.js';
import { MatchmakingError } from '../../errors/index.js';
import type { RedisClient } from '../script-set.js';
import { ClusterBoards } from './cluster-boards.js';
import { StatsExchange } from './stats-exchange.js';

export { statsKeys } from './stats-keys.js';
export { BOARD_MS } from './cluster-boards.js';

/** What a cluster node offers QueryStats and the operator page: answers and figures for the whole cluster. */
export interface ClusterStatsPort {
  /** QueryStats for any factory or template of the cluster, answered by the nodes that run them. */
  query(query: StatsQuery, now: number): Promise<StatsAnswer>;
  /** Every node and the factories it runs, as last read (about every second). */
  overview(): ClusterOverview | undefined;
  close(): Promise<void>;
}

/** How long a node waits for another's stats answer; and what its refusals tell the caller to wait. */
const ASK_TIMEOUT_MS = 2_000;
const RETRY_MS = 1_000;

export async function startClusterStats(options: {
  readonly client: RedisClient;
  /** A connection of its own: it only subscribes. */
  readonly subscriber: RedisClient;
  readonly nodeId: string;
  readonly view: CoordinatorView;
  /** Whether this node runs a core now (the matcher, or a shard's). */
  readonly running: () => boolean;
  readonly directory: StatsDirectory;
  readonly templates: () => readonly FactoryTemplate[];
  readonly log: Log;
  /** Relay: when this node's matcher core was built, and how long its servers take to come back to it (they reconnect). */
  readonly matcher?: { readonly since: () => number; readonly settleMs: number };
  /** Sharded: the shards whose cores this node runs now, a factory's shard, and when a shard's core was built here. */
  readonly shards?: {
    readonly count: number;
    readonly owned: () => readonly number[];
    readonly of: (factory: string) => number;
    readonly since: (shard: number) => number;
    /** How long a new core may not know every factory yet (the gateways announce their game servers to it). */
    readonly settleMs: number;
  };
}): Promise<ClusterStatsPort> {
  const { view, shards } = options;
  const settling = (shard: number, now: number) => shards !== undefined && now - shards.since(shard) < shards.settleMs;
  const local = (query: StatsQuery, now: number): StatsPart => {
    if (!shards) {
      try {
        return { answer: view.queryStats(query, now) };
      } catch (error) {
        // A matcher just taken over: the game servers reconnect to it, so a factory may not be live yet.
        if (error instanceof MatchmakingError && error.code === 'NOT_FOUND' && options.matcher && now - options.matcher.since() < options.matcher.settleMs) {
          throw new MatchmakingError('UNAVAILABLE', `factory "${query.factory}": the matcher was just taken over here; its game servers are reconnecting: retry`, RETRY_MS);
        }
        throw error;
      }
    }
    // Read in the same turn as the answer: the shards listed are exactly those whose cores answered.
    const owned = shards.owned();
    // A core taken up a moment ago hears of its factories' game servers just after: until then its
    // factories are missing, which is a failover, not an answer.
    const fresh = query.factory === '' ? owned.filter((shard) => settling(shard, now)) : [];
    if (fresh.length > 0) throw new MatchmakingError('UNAVAILABLE', `shards ${fresh.slice(0, 8).join(', ')}${fresh.length > 8 ? ', …' : ''} were just taken over here; their game servers are being announced: retry`, RETRY_MS);
    try {
      return { answer: view.queryStats(query, now), shards: owned };
    } catch (error) {
      if (error instanceof MatchmakingError && error.code === 'NOT_FOUND' && settling(shards.of(query.factory), now)) {
        throw new MatchmakingError('UNAVAILABLE', `factory "${query.factory}": its shard was just taken over here; its game servers are being announced: retry`, RETRY_MS);
      }
      throw error;
    }
  };
  const exchange = await StatsExchange.open({
    client: options.client,
    subscriber: options.subscriber,
    nodeId: options.nodeId,
    answer: (query) => local(query, Date.now()),
    log: options.log,
    timeoutMs: ASK_TIMEOUT_MS,
    retryMs: RETRY_MS,
  });
  const stats = new ClusterStats({
    nodeId: options.nodeId,
    directory: options.directory,
    peers: exchange,
    local,
    templates: options.templates,
    shardCount: shards?.count,
    retryMs: RETRY_MS,
  });
  const boards = new ClusterBoards(
    options.client,
    options.nodeId,
    (now) => nodeBoard(options.nodeId, view, now, shards && { owned: shards.owned(), of: shards.of }, options.running()),
    options.log,
  );
  return {
    query: (query, now) => stats.query(query, now),
    overview: () => boards.overview(),
    async close() {
      await boards.close();
      await exchange.close();
      options.subscriber.disconnect();
    },
  };
}

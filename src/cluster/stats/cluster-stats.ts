import type { FactoryTemplate } from '../../config/config.js';
import type { StatsAnswer, StatsQuery } from '../../coordinator/stats-query.js';
import { MatchmakingError, invalidArgument } from '../../errors/index.js';
import { FactoryRegistry } from '../../factories/factory-registry.js';
import { combineStats } from './combine-stats.js';

/** What one node answers for a query: its view's answer, and (sharded) the shards it answered for. */
export interface StatsPart {
  readonly answer: StatsAnswer;
  /** The shards whose cores answered (sharded mode); absent where one node runs every factory. */
  readonly shards?: readonly number[];
}

/** Where a query goes: the cluster's owners as this node last read them. */
export interface StatsDirectory {
  /** The node that runs `factory` now; undefined while none does (its shard or the matcher fails over). */
  ownerOf(factory: string): string | undefined | Promise<string | undefined>;
  /** Every node that runs some factory now (a query over several factories asks each of them). */
  owners(): readonly string[] | Promise<readonly string[]>;
}

/** Another node's answer to a query (its own StatsPart), or its refusal as a MatchmakingError. */
export interface StatsPeers {
  ask(node: string, query: StatsQuery): Promise<StatsPart>;
}

export interface ClusterStatsOptions {
  readonly nodeId: string;
  readonly directory: StatsDirectory;
  readonly peers: StatsPeers;
  /** This node's own part (throws MatchmakingError as the view does). */
  readonly local: (query: StatsQuery, now: number) => StatsPart;
  readonly templates: () => readonly FactoryTemplate[];
  /** Sharded: every shard must be answered exactly once, or the query is UNAVAILABLE (a shard moving). */
  readonly shardCount?: number;
  /** The retry hint of an UNAVAILABLE answer. */
  readonly retryMs: number;
}

/**
 * QueryStats for the whole cluster, on any node. One factory: its owner answers (this node's view
 * when it runs the factory, otherwise the owner asked through `peers`), fresh at the moment the
 * owner answers. Several factories (a template): every owner answers for the factories it runs, and
 * the parts are combined (`combineStats`); in the sharded mode the parts must cover every shard
 * exactly once, so a query that meets a shard moving between nodes is refused (UNAVAILABLE with
 * a retry hint), never answered with that shard missing or counted twice.
 */
export class ClusterStats {
  constructor(private readonly options: ClusterStatsOptions) {}

  async query(query: StatsQuery, now: number): Promise<StatsAnswer> {
    if (query.factory !== '') {
      const owner = await this.read(() => this.options.directory.ownerOf(query.factory));
      if (owner === undefined) throw this.unavailable(`factory "${query.factory}": no node runs it right now (its owner is failing over)`);
      return (await this.part(owner, query, now)).answer;
    }
    // Checked here too, so a bad query is refused with the field named even while owners move.
    const template = new FactoryRegistry(this.options.templates(), () => undefined).resolveTemplate(query.template);
    for (const key of query.partition.keys()) {
      if (!template.axes.some((a) => a.key === key)) throw invalidArgument(`partition_attributes[${key}]`, `not an axis of template "${template.name}"`);
    }
    const owners = [...new Set(await this.read(() => this.options.directory.owners()))];
    if (owners.length === 0) throw this.unavailable('no node runs any factory right now (owners failing over)');
    const parts = await Promise.all(owners.map((node) => this.part(node, query, now)));
    const { shardCount } = this.options;
    if (shardCount !== undefined) {
      const answered = new Array<number>(shardCount).fill(0);
      for (const part of parts) for (const shard of part.shards ?? []) answered[shard] = (answered[shard] ?? 0) + 1;
      const missing = answered.flatMap((n, shard) => (n === 1 ? [] : [shard]));
      if (missing.length > 0) throw this.unavailable(`${missing.length === 1 ? 'shard' : 'shards'} ${missing.slice(0, 8).join(', ')}${missing.length > 8 ? ', …' : ''} ${missing.length === 1 ? 'is' : 'are'} moving between nodes`);
    }
    return combineStats(parts.map((p) => p.answer));
  }

  private async part(node: string, query: StatsQuery, now: number): Promise<StatsPart> {
    try {
      return node === this.options.nodeId ? this.options.local(query, now) : await this.options.peers.ask(node, query);
    } catch (error) {
      // An owner that has just lost (or not yet built) what it ran: the refusal says when to retry.
      if (error instanceof MatchmakingError && error.code === 'UNAVAILABLE' && error.retryAfterMs === undefined) throw new MatchmakingError('UNAVAILABLE', error.message, this.options.retryMs);
      throw error;
    }
  }

  /** The directory's answer; its failure (Redis unreachable) is UNAVAILABLE, not a bug. */
  private async read<T>(look: () => T | Promise<T>): Promise<T> {
    try {
      return await look();
    } catch (error) {
      throw this.unavailable(`the cluster's owners could not be read (${(error as Error).message})`);
    }
  }

  private unavailable(why: string): MatchmakingError {
    return new MatchmakingError('UNAVAILABLE', `${why}: retry`, this.options.retryMs);
  }
}

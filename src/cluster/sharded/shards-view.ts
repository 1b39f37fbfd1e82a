import type { CoordinatorSnapshot, CoordinatorView, FactorySummary, ServerSummary } from '../../coordinator/edges/view.js';
import type { StatsAnswer, StatsQuery } from '../../coordinator/stats-query.js';
import type { FactoryTemplate } from '../../config/config.js';
import { MatchmakingError, invalidArgument } from '../../errors/index.js';
import { FactoryRegistry } from '../../factories/factory-registry.js';
import { combineStats, factoryInPartition } from '../stats/combine-stats.js';

/** The retry hint of a stats query this node cannot answer now (a shard moves within a lease and a tick). */
const RETRY_MS = 1_000;

/**
 * What a node of a sharded cluster shows (metrics, operator page, QueryStats): the cores of the
 * shards it owns, together. Each shard's core runs its own shard's factories, tickets and games
 * (a core built without that filter, as in tests, knows every factory a server can host: so
 * factories are still counted only where they belong), tickets and games summed, and a server's
 * per-shard grants added back into one server.
 * A node that owns no shard shows nothing (its gauges read zero, so Prometheus sums the cluster
 * right) and answers QueryStats UNAVAILABLE. The cluster's answers (any factory, any node) are
 * src/cluster/stats/'s, which ask each owner for this view's answer.
 */
export class ShardsView implements CoordinatorView {
  constructor(
    /** The node's cores now, by shard. */
    private readonly cores: () => ReadonlyMap<number, CoordinatorView>,
    private readonly shardOf: (factory: string) => number,
    /** The running configuration's templates (a template query's factories are found by name). */
    private readonly templates: () => readonly FactoryTemplate[],
  ) {}

  private owned(): [number, CoordinatorView][] {
    return [...this.cores()];
  }

  private coreOf(factory: string): CoordinatorView | undefined {
    return this.cores().get(this.shardOf(factory));
  }

  snapshot(): CoordinatorSnapshot {
    const total = { servers: 0, factories: 0, games: 0, tickets: 0, ticketsByState: { parked: 0, pooled: 0, placing: 0, assigned: 0 }, queued: 0, openGames: 0 };
    for (const [, core] of this.owned()) {
      const s = core.snapshot();
      total.games += s.games;
      total.tickets += s.tickets;
      total.queued += s.queued;
      total.openGames += s.openGames;
      for (const k of ['parked', 'pooled', 'placing', 'assigned'] as const) total.ticketsByState[k] += s.ticketsByState[k];
    }
    total.servers = this.servers().length;
    total.factories = this.factoryNames().length;
    return total;
  }

  factoryNames(): string[] {
    return this.owned().flatMap(([shard, core]) => core.factoryNames().filter((f) => this.shardOf(f) === shard));
  }

  queuedIn(factory: string): number {
    return this.coreOf(factory)?.queuedIn(factory) ?? 0;
  }

  freeSlots(): number {
    return this.owned().reduce((sum, [, core]) => sum + core.freeSlots(), 0);
  }

  /** One entry per server: its shards' grants added up, its games and starts summed. */
  servers(): ServerSummary[] {
    const merged = new Map<string, ServerSummary>();
    for (const [shard, core] of this.owned()) {
      for (const s of core.servers()) {
        const own = { ...s, factories: s.factories.filter((f) => this.shardOf(f) === shard) };
        const seen = merged.get(s.serverId);
        merged.set(
          s.serverId,
          seen === undefined
            ? own
            : {
                ...seen,
                factories: [...seen.factories, ...own.factories],
                games: seen.games + own.games,
                starting: seen.starting + own.starting,
                capacity: { ...seen.capacity, maxGames: seen.capacity.maxGames + own.capacity.maxGames },
                backedOff: seen.backedOff || own.backedOff,
              },
        );
      }
    }
    return [...merged.values()];
  }

  factories(now: number): FactorySummary[] {
    return this.owned().flatMap(([shard, core]) => core.factories(now).filter((f) => this.shardOf(f.name) === shard));
  }

  ticket(ticketId: string) {
    for (const [, core] of this.owned()) {
      const t = core.ticket(ticketId);
      if (t) return t;
    }
    return undefined;
  }

  gameServer(gameId: string) {
    for (const [, core] of this.owned()) {
      const s = core.gameServer(gameId);
      if (s !== undefined) return s;
    }
    return undefined;
  }

  /**
   * One factory: its shard's core (UNAVAILABLE when another node owns it: the cluster's stats,
   * src/cluster/stats/, ask that node). A template: this node's share, each factory of the
   * template and partition counted once, by the core of its own shard (every core knows every
   * factory its servers can host, but runs only its own shard's), combined as one core combines
   * its factories. A node that owns no shard answers UNAVAILABLE.
   */
  queryStats(query: StatsQuery, now: number): StatsAnswer {
    if (query.factory !== '') {
      const core = this.coreOf(query.factory);
      if (!core) throw new MatchmakingError('UNAVAILABLE', `factory "${query.factory}" is run by another node now: ask it, or retry`, RETRY_MS);
      return core.queryStats(query, now);
    }
    const template = new FactoryRegistry(this.templates(), () => undefined).resolveTemplate(query.template);
    for (const key of query.partition.keys()) {
      if (!template.axes.some((a) => a.key === key)) throw invalidArgument(`partition_attributes[${key}]`, `not an axis of template "${template.name}"`);
    }
    const owned = this.owned();
    if (owned.length === 0) throw new MatchmakingError('UNAVAILABLE', 'this node runs no shard right now: ask another node, or retry', RETRY_MS);
    const answers: StatsAnswer[] = [];
    for (const [shard, core] of owned) {
      for (const name of core.factoryNames()) {
        if (this.shardOf(name) !== shard || !factoryInPartition(template, name, query.partition)) continue;
        answers.push(core.queryStats({ ...query, factory: name, template: '', partition: new Map() }, now));
      }
    }
    return combineStats(answers);
  }
}

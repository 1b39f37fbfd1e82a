import type { CoordinatorSnapshot, CoordinatorView, FactorySummary, ServerSummary } from '../../coordinator/edges/view.js';
import type { StatsAnswer, StatsQuery } from '../../coordinator/stats-query.js';
import { MatchmakingError } from '../../errors/index.js';

/**
 * What a node of a sharded cluster shows (metrics, operator page, QueryStats): the cores of the
 * shards it owns, together. Each shard's core knows every factory a server can host but only its
 * own shard's tickets and games, so factories are counted where they belong (their shard's
 * core), tickets and games summed, and a server's per-shard grants added back into one server.
 * A node that owns no shard shows nothing (its gauges read zero, so Prometheus sums the cluster
 * right) and answers QueryStats UNAVAILABLE.
 */
export class ShardsView implements CoordinatorView {
  constructor(
    /** The node's cores now, by shard. */
    private readonly cores: () => ReadonlyMap<number, CoordinatorView>,
    private readonly shardOf: (factory: string) => number,
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
   * One factory: its shard's core (UNAVAILABLE when another node owns it). A template: every
   * owned core's answer combined (this node's shards only; each node answers for its own).
   */
  queryStats(query: StatsQuery, now: number): StatsAnswer {
    if (query.factory !== '') {
      const core = this.coreOf(query.factory);
      if (!core) throw new MatchmakingError('UNAVAILABLE', `factory "${query.factory}" is run by another node now: ask it, or retry`);
      return core.queryStats(query, now);
    }
    const answers = this.owned().map(([, core]) => core.queryStats(query, now));
    if (answers.length === 0) throw new MatchmakingError('UNAVAILABLE', 'this node runs no shard right now: ask another node, or retry');
    return combine(answers);
  }
}

function combine(answers: readonly StatsAnswer[]): StatsAnswer {
  const played = answers.filter((a) => a.games > 0);
  const games = answers.reduce((n, a) => n + a.games, 0);
  const slots = Math.max(0, ...answers.map((a) => a.openGamesByOpenSlots.length));
  return {
    // Every core lists every factory a server can host: the count is the largest, not the sum.
    factories: Math.max(...answers.map((a) => a.factories)),
    games,
    openGames: answers.reduce((n, a) => n + a.openGames, 0),
    players: answers.reduce((n, a) => n + a.players, 0),
    openSlots: answers.reduce((n, a) => n + a.openSlots, 0),
    minDurationMs: played.length === 0 ? 0 : Math.min(...played.map((a) => a.minDurationMs)),
    maxDurationMs: played.length === 0 ? 0 : Math.max(...played.map((a) => a.maxDurationMs)),
    averageDurationMs: games === 0 ? 0 : played.reduce((n, a) => n + a.averageDurationMs * a.games, 0) / games,
    openGamesByOpenSlots: Array.from({ length: slots }, (_, i) => answers.reduce((n, a) => n + (a.openGamesByOpenSlots[i] ?? 0), 0)),
    waitingTickets: answers.reduce((n, a) => n + a.waitingTickets, 0),
    // The competitive figures of the shard that formed the most games (not merged).
    competitive: answers.reduce<StatsAnswer['competitive']>((best, a) => (a.competitive && (!best || a.competitive.gamesFormed > best.gamesFormed) ? a.competitive : best), undefined),
  };
}

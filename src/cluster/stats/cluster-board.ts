import type { CoordinatorView } from '../../coordinator/edges/view.js';

/** One factory as the node that runs it shows it on every node's operator page. */
export interface BoardFactory {
  readonly name: string;
  readonly template: string;
  readonly strategy: 'cooperative' | 'competitive';
  /** Its shard (sharded mode). */
  readonly shard?: number;
  /** Tickets waiting: in the matcher, or in a creation that waits for a slot. */
  readonly waitingTickets: number;
  readonly queueLength: number;
  readonly games: number;
  readonly players: number;
  readonly openGames: number;
  readonly openSlots: number;
  readonly servers: number;
  readonly gap?: { readonly gamesFormed: number; readonly meanSigma: number; readonly p99Sigma: number };
}

/** What one node publishes about itself, about every second. */
export interface NodeBoard {
  readonly node: string;
  /** The node's clock when it wrote the board (ms). */
  readonly at: number;
  /** The shards it runs (sharded mode); absent in the relay mode. */
  readonly shards?: readonly number[];
  /** Whether it runs a core now (the relay's matcher owner; a sharded node with a shard's core built). */
  readonly running: boolean;
  /** Game servers whose cores here see them. */
  readonly servers: number;
  readonly factories: readonly BoardFactory[];
}

export interface ClusterNodeRow {
  readonly node: string;
  /** This page's own node. */
  readonly self: boolean;
  readonly shards: readonly number[] | null;
  readonly running: boolean;
  /** How old its board was when this page's node last read it (ms, by this node's clock). */
  readonly ageMs: number;
  readonly factories: number;
  readonly waitingTickets: number;
  readonly games: number;
  readonly openGames: number;
}

export interface ClusterFactoryRow extends BoardFactory {
  /** The node that runs it. */
  readonly node: string;
}

export interface ClusterOverview {
  /** When this node last read the boards (its clock, ms). */
  readonly at: number;
  readonly nodes: readonly ClusterNodeRow[];
  readonly factories: readonly ClusterFactoryRow[];
}

/**
 * This node's board from its view: the factories it runs with their figures (games and players
 * from one QueryStats of each, an index look-up), nothing private (no ticket, no player id).
 */
export function nodeBoard(
  node: string,
  view: CoordinatorView,
  now: number,
  shards: { readonly owned: readonly number[]; readonly of: (factory: string) => number } | undefined,
  /** It runs a core now (the relay's matcher owner; a sharded node with a shard's core built). */
  running: boolean,
): NodeBoard {
  const factories = view.factories(now).map((f): BoardFactory => {
    let games = 0;
    let players = 0;
    try {
      const stats = view.queryStats({ factory: f.name, template: '', partition: new Map(), predicates: [], mode: 'all' }, now);
      games = stats.games;
      players = stats.players;
    } catch {
      // It stopped running here between the two reads: the next board will not list it.
    }
    return {
      name: f.name,
      template: f.template,
      strategy: f.strategy,
      ...(shards && { shard: shards.of(f.name) }),
      waitingTickets: f.pooled + f.queued,
      queueLength: f.queued,
      games,
      players,
      openGames: f.openGames,
      openSlots: f.openSlots,
      servers: f.servers,
      ...(f.competitive && { gap: { gamesFormed: f.competitive.gamesFormed, meanSigma: f.competitive.meanGapInSigma, p99Sigma: f.competitive.p99GapInSigma } }),
    };
  });
  return {
    node,
    at: now,
    ...(shards && { shards: [...shards.owned].sort((a, b) => a - b) }),
    running,
    servers: view.servers().length,
    factories,
  };
}

/**
 * Every node's board as one overview: a row per node, and a row per factory with the node that
 * runs it. A factory two boards list (its shard moved between their writes) is shown from the
 * newer board.
 */
export function clusterOverview(boards: readonly NodeBoard[], self: string, now: number): ClusterOverview {
  const factories = new Map<string, { row: ClusterFactoryRow; at: number }>();
  for (const board of boards) {
    for (const f of board.factories) {
      const seen = factories.get(f.name);
      if (!seen || seen.at < board.at) factories.set(f.name, { row: { ...f, node: board.node }, at: board.at });
    }
  }
  const sum = (board: NodeBoard, read: (f: BoardFactory) => number) => board.factories.reduce((n, f) => n + read(f), 0);
  return {
    at: now,
    nodes: [...boards]
      .sort((a, b) => a.node.localeCompare(b.node))
      .map((b) => ({
        node: b.node,
        self: b.node === self,
        shards: b.shards ?? null,
        running: b.running,
        ageMs: Math.max(0, now - b.at),
        factories: b.factories.length,
        waitingTickets: sum(b, (f) => f.waitingTickets),
        games: sum(b, (f) => f.games),
        openGames: sum(b, (f) => f.openGames),
      })),
    factories: [...factories.values()].map((f) => f.row).sort((a, b) => a.name.localeCompare(b.name)),
  };
}

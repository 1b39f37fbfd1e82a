import type { ClusterOverview } from '../cluster/stats/cluster-board.js';
import { FACTORY_SERIES, TOTAL_SERIES, type FactoryRow, type OperatorBoard, type ServerRow } from './operator-board.js';

export const DEFAULT_TOP = 25;
export const MAX_TOP = 500;

const FACTORY_SORTS = ['waitingTickets', 'queueLength', 'assignmentP99Ms', 'gamesPerMinute', 'openSlots', 'name'] as const;
const SERVER_SORTS = ['health', 'load', 'startsPerSecond', 'running', 'serverId'] as const;
type FactorySort = (typeof FACTORY_SORTS)[number];
type ServerSort = (typeof SERVER_SORTS)[number];

export interface OverviewQuery {
  readonly top: number;
  readonly factoryFilter: string;
  readonly factorySort: FactorySort;
  readonly serverFilter: string;
  readonly serverSort: ServerSort;
  /** A factory whose series to include. */
  readonly factory: string;
}

/** Reads the query string of GET /api/overview; a bad value is a clear error naming the parameter. */
export function parseOverviewQuery(params: URLSearchParams): OverviewQuery {
  const topText = params.get('top');
  const top = topText === null || topText === '' ? DEFAULT_TOP : Number(topText);
  if (!Number.isInteger(top) || top < 1 || top > MAX_TOP) throw new Error(`top: "${topText}" is not an integer from 1 to ${MAX_TOP}`);
  const pick = <T extends string>(name: string, allowed: readonly T[]): T => {
    const value = params.get(name) ?? allowed[0]!;
    if (!(allowed as readonly string[]).includes(value)) throw new Error(`${name}: "${value}" is not one of ${allowed.join(', ')}`);
    return value as T;
  };
  return {
    top,
    factoryFilter: (params.get('factory_filter') ?? '').toLowerCase(),
    factorySort: pick('factory_sort', FACTORY_SORTS),
    serverFilter: (params.get('server_filter') ?? '').toLowerCase(),
    serverSort: pick('server_sort', SERVER_SORTS),
    factory: params.get('factory') ?? '',
  };
}

const HEALTH_RANK = { 'backed-off': 0, full: 1, ok: 2 } as const;

function compareFactories(sort: FactorySort): (a: FactoryRow, b: FactoryRow) => number {
  if (sort === 'name') return (a, b) => a.name.localeCompare(b.name);
  return (a, b) => (b[sort] ?? -1) - (a[sort] ?? -1) || a.name.localeCompare(b.name);
}

function compareServers(sort: ServerSort): (a: ServerRow, b: ServerRow) => number {
  const load = (s: ServerRow) => (s.maxGames === 0 ? 1 : (s.running + s.starting) / s.maxGames);
  const byId = (a: ServerRow, b: ServerRow) => a.serverId.localeCompare(b.serverId);
  switch (sort) {
    case 'health':
      return (a, b) => HEALTH_RANK[a.health] - HEALTH_RANK[b.health] || load(b) - load(a) || byId(a, b);
    case 'load':
      return (a, b) => load(b) - load(a) || byId(a, b);
    case 'serverId':
      return byId;
    default:
      return (a, b) => b[sort] - a[sort] || byId(a, b);
  }
}

function topOf<T>(rows: readonly T[], keep: (row: T) => boolean, compare: (a: T, b: T) => number, top: number) {
  const matching = rows.filter(keep).sort(compare);
  return { total: rows.length, matching: matching.length, rows: matching.slice(0, top) };
}

/**
 * The body of GET /api/overview (documented in docs/operations.md, "Operator page"). On a cluster
 * node, `cluster` is every node's board as last read: the nodes, and every factory of the cluster
 * with the node that runs it (filtered by factory_filter, by name, top N).
 */
export function overview(board: OperatorBoard, query: OverviewQuery, cluster?: ClusterOverview) {
  const { at, totals, factories, servers } = board.state;
  const f = query.factoryFilter;
  const s = query.serverFilter;
  const selected = query.factory === '' ? undefined : board.factorySeries(query.factory);
  return {
    at,
    totals: totals ?? null,
    factories: topOf(factories, (r) => f === '' || r.name.toLowerCase().includes(f) || r.template.toLowerCase().includes(f), compareFactories(query.factorySort), query.top),
    servers: topOf(servers, (r) => s === '' || r.serverId.toLowerCase().includes(s), compareServers(query.serverSort), query.top),
    series: { columns: TOTAL_SERIES, data: board.totalsSeries() },
    factorySeries: selected && { factory: query.factory, columns: FACTORY_SERIES, data: selected },
    cluster: cluster
      ? {
          at: cluster.at,
          nodes: cluster.nodes,
          factories: topOf(
            cluster.factories,
            (r) => f === '' || r.name.toLowerCase().includes(f) || r.template.toLowerCase().includes(f) || r.node.toLowerCase().includes(f),
            (a, b) => a.name.localeCompare(b.name),
            query.top,
          ),
        }
      : null,
  };
}

import { ROOT } from '../keys.js';

/**
 * Names of the cluster's stats traffic. The channels are plain pub/sub (a Redis Cluster forwards
 * them to every master); the boards share the `{stats}` tag, so one MGET reads every node's.
 */
export const statsKeys = {
  /** Where a node hears stats questions meant for it. */
  ask: (nodeId: string) => `${ROOT}:stats:ask:${nodeId}`,
  /** Where a node hears the answers to its questions. */
  answer: (nodeId: string) => `${ROOT}:stats:answer:${nodeId}`,
  /** A node's board (SET PX): its shards and its factories' figures, for every node's operator page. */
  board: (nodeId: string) => `${ROOT}:{stats}:board:${nodeId}`,
  /** The nodes that wrote a board (SADD); one whose board lapsed is removed by the next reader. */
  boards: `${ROOT}:{stats}:boards`,
};

import { clusterOverview, type ClusterOverview, type NodeBoard } from '../../cluster/stats/cluster-board.js';
import type { Log } from '../../coordinator/ports.js';
import type { RedisClient } from '../script-set.js';
import { statsKeys } from './stats-keys.js';

/** How often a node writes its board and reads the others'. */
export const BOARD_MS = 1_000;
/** A board not rewritten within this long is gone (its node died or stalled). */
const BOARD_TTL_MS = 5 * BOARD_MS;

/**
 * Every node's board in Redis, for every node's operator page: each second a node writes its own
 * (SET PX, its id added to a set) and reads all of them (SMEMBERS and one MGET, the keys sharing
 * `{stats}`), keeping the result for the page. So the page's cluster section is at most about two
 * seconds old (a board written up to a second before this node's read, read up to a second before
 * the page's poll), and a dead node's board drops out within five.
 */
export class ClusterBoards {
  private latest: ClusterOverview | undefined;
  private readonly timer: ReturnType<typeof setInterval>;
  private round: Promise<void> = Promise.resolve();

  constructor(
    private readonly client: RedisClient,
    private readonly nodeId: string,
    private readonly board: (now: number) => NodeBoard,
    private readonly log: Log,
    private readonly now: () => number = Date.now,
  ) {
    this.timer = setInterval(() => void this.refresh(), BOARD_MS);
    this.timer.unref();
    void this.refresh();
  }

  /** The cluster as last read (undefined before the first read). */
  overview(): ClusterOverview | undefined {
    return this.latest;
  }

  /** Writes this node's board and reads every node's (one round at a time). */
  refresh(): Promise<void> {
    this.round = this.round.then(() => this.once()).catch((error: Error) => {
      this.log.debug({ error: error.message }, 'cluster boards not refreshed (the page keeps the last read)');
    });
    return this.round;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.round;
    await Promise.all([this.client.del(statsKeys.board(this.nodeId)), this.client.srem(statsKeys.boards, this.nodeId)]).catch(() => undefined);
  }

  private async once(): Promise<void> {
    const own = this.board(this.now());
    await Promise.all([this.client.set(statsKeys.board(this.nodeId), JSON.stringify(own), 'PX', BOARD_TTL_MS), this.client.sadd(statsKeys.boards, this.nodeId)]);
    const nodes = (await this.client.smembers(statsKeys.boards)).sort();
    const texts = nodes.length === 0 ? [] : await this.client.mget(nodes.map((n) => statsKeys.board(n)));
    const boards: NodeBoard[] = [];
    const lapsed: string[] = [];
    texts.forEach((text, i) => {
      if (text === null || text === undefined) return void lapsed.push(nodes[i]!);
      try {
        boards.push(JSON.parse(text) as NodeBoard);
      } catch {
        lapsed.push(nodes[i]!);
      }
    });
    if (lapsed.length > 0) await this.client.srem(statsKeys.boards, lapsed);
    // This node's own board as written, not as read back a moment later.
    const others = boards.filter((b) => b.node !== this.nodeId);
    this.latest = clusterOverview([own, ...others], this.nodeId, this.now());
  }
}

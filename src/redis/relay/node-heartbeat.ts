import type { RedisClient } from '../script-set.js';
import { relayKeys } from './relay-keys.js';

/**
 * A node's sign of life: `gf:{relay}:node:<id>` with a TTL, renewed by its gateway like the
 * matcher lease. The matcher owner reads them for the nodes its game servers are routed through:
 * a lapsed one means the node died (or stalled past the TTL), and its servers are disconnected
 * from the core instead of staying as ghosts whose free slots take creations that time out.
 */
export class NodeHeartbeat {
  constructor(
    private readonly client: RedisClient,
    readonly nodeId: string,
    readonly ttlMs: number,
  ) {
    if (!(ttlMs > 0)) throw new RangeError(`heartbeat ttlMs must be > 0, got ${ttlMs}`);
  }

  /** Announces the node (before it relays anything). */
  async start(): Promise<void> {
    await this.client.set(relayKeys.node(this.nodeId), String(Date.now()), 'PX', this.ttlMs);
  }

  /**
   * Extends the TTL. Answers false when the key had lapsed (the owner may have disconnected this
   * node's servers): the key is set again, and the caller must hand over what it holds anew.
   */
  async renew(): Promise<boolean> {
    const key = relayKeys.node(this.nodeId);
    if ((await this.client.set(key, String(Date.now()), 'PX', this.ttlMs, 'XX')) === 'OK') return true;
    await this.client.set(key, String(Date.now()), 'PX', this.ttlMs);
    return false;
  }

  async stop(): Promise<void> {
    await this.client.del(relayKeys.node(this.nodeId));
  }

  /** The nodes among `nodeIds` whose heartbeat has lapsed (one MGET: the keys share `{relay}`). */
  static async lapsed(client: RedisClient, nodeIds: readonly string[]): Promise<string[]> {
    if (nodeIds.length === 0) return [];
    const beats = await client.mget(nodeIds.map((id) => relayKeys.node(id)));
    return nodeIds.filter((_, i) => beats[i] === null);
  }
}

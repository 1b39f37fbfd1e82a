import type { StatsPart, StatsPeers } from '../../cluster/stats/cluster-stats.js';
import type { StatsQuery } from '../../coordinator/stats-query.js';
import type { Log } from '../../coordinator/ports.js';
import { MatchmakingError } from '../../errors/index.js';
import { fromWire, wireError } from '../relay/relay-codec.js';
import type { RedisClient } from '../script-set.js';
import { statsKeys } from './stats-keys.js';
import { decodeAsk, decodeReply, encodeAsk, type StatsReply } from './stats-wire.js';

interface Pending {
  resolve(part: StatsPart): void;
  reject(error: MatchmakingError): void;
  readonly timer: ReturnType<typeof setTimeout>;
}

/**
 * Stats questions between nodes over Redis pub/sub: a node publishes a query on the owner's ask
 * channel; the owner answers it from its own view at once and publishes the answer on the asker's
 * answer channel. Nothing is stored: a question nobody answers within `timeoutMs` (the owner died,
 * or is paused) is UNAVAILABLE with a retry hint, and a late answer is dropped.
 */
export class StatsExchange implements StatsPeers {
  private readonly pending = new Map<string, Pending>();
  private seq = 0;
  private closed = false;

  private constructor(
    private readonly client: RedisClient,
    private readonly subscriber: RedisClient,
    private readonly nodeId: string,
    private readonly answer: (query: StatsQuery) => StatsPart,
    private readonly log: Log,
    private readonly timeoutMs: number,
    private readonly retryMs: number,
  ) {}

  /** Listens on this node's channels (`subscriber` is a connection of its own: it only subscribes). */
  static async open(options: {
    readonly client: RedisClient;
    readonly subscriber: RedisClient;
    readonly nodeId: string;
    /** This node's own part of a query (throws MatchmakingError as the view does). */
    readonly answer: (query: StatsQuery) => StatsPart;
    readonly log: Log;
    readonly timeoutMs?: number;
    readonly retryMs?: number;
  }): Promise<StatsExchange> {
    const exchange = new StatsExchange(options.client, options.subscriber, options.nodeId, options.answer, options.log, options.timeoutMs ?? 2_000, options.retryMs ?? 1_000);
    options.subscriber.on('message', (channel: string, message: string) => exchange.heard(channel, message));
    await options.subscriber.subscribe(statsKeys.ask(options.nodeId), statsKeys.answer(options.nodeId));
    return exchange;
  }

  ask(node: string, query: StatsQuery): Promise<StatsPart> {
    if (this.closed) return Promise.reject(new MatchmakingError('UNAVAILABLE', 'this node is stopping: retry on another', this.retryMs));
    const id = `${this.nodeId}:${++this.seq}`;
    return new Promise<StatsPart>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new MatchmakingError('UNAVAILABLE', `node ${node}, which runs the factories asked about, did not answer within ${this.timeoutMs} ms: retry`, this.retryMs));
      }, this.timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      this.client.publish(statsKeys.ask(node), encodeAsk(id, this.nodeId, query)).catch((error: Error) => {
        clearTimeout(timer);
        this.pending.delete(id);
        reject(new MatchmakingError('UNAVAILABLE', `redis unreachable (${error.message}): retry`, this.retryMs));
      });
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      p.reject(new MatchmakingError('UNAVAILABLE', 'this node is stopping: retry on another', this.retryMs));
      this.pending.delete(id);
    }
    await this.subscriber.unsubscribe().catch(() => undefined);
  }

  private heard(channel: string, message: string): void {
    try {
      if (channel === statsKeys.ask(this.nodeId)) this.answerAsk(message);
      else if (channel === statsKeys.answer(this.nodeId)) this.settle(decodeReply(message));
    } catch (error) {
      this.log.warn({ channel, error: (error as Error).message }, 'a stats message could not be read; dropped');
    }
  }

  private answerAsk(message: string): void {
    const ask = decodeAsk(message);
    let reply: StatsReply;
    try {
      reply = { id: ask.id, part: this.answer(ask.query) };
    } catch (error) {
      if (!(error instanceof MatchmakingError)) this.log.warn({ error: (error as Error).message, query: ask.query.factory || ask.query.template }, 'a stats query failed');
      reply = { id: ask.id, error: wireError(error) };
    }
    this.client.publish(statsKeys.answer(ask.from), JSON.stringify(reply)).catch((error: Error) => {
      this.log.debug({ error: error.message }, 'a stats answer was not sent (the asker times out)');
    });
  }

  private settle(reply: StatsReply): void {
    const waiting = this.pending.get(reply.id);
    if (!waiting) return; // answered after its time: the asker has given up
    this.pending.delete(reply.id);
    clearTimeout(waiting.timer);
    if ('part' in reply) waiting.resolve(reply.part);
    else waiting.reject(fromWire(reply.error));
  }
}

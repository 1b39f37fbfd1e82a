import type { Log } from '../../coordinator/ports.js';
import type { RedisClient } from '../script-set.js';
import { streamsOfRead } from '../stream-reply.js';
import type { OutEntry } from './gateway-store.js';
import { decodeEntry, type OutMessage } from './relay-codec.js';

/** The reader of one shard's out stream for this node: its key, where it was read to, who takes its answers. */
export interface AnswerStream {
  readonly key: string;
  readonly readTo: () => string;
  readonly take: (entries: readonly OutEntry[]) => void;
}

/**
 * Every shard's answers to this node read by one blocking XREAD over all their out streams, on
 * one connection, instead of one blocked read (and one connection) per shard: a sharded node's
 * answers come from many owners at once, and 64 reads each woken for a few entries were a large
 * part of a node's Redis calls and wake-ups. One Redis only: the streams' keys live in different
 * hash slots, which a Redis Cluster will not read in one command (there each gateway reads its own).
 */
export class NodeAnswers {
  private running = true;
  private loop: Promise<void> = Promise.resolve();

  constructor(
    private readonly reader: RedisClient,
    private readonly streams: readonly AnswerStream[],
    private readonly log: Log,
    /** How long one read blocks when no answer comes (an idle node's cost: one call per block). */
    private readonly blockMs = 5_000,
  ) {}

  start(): void {
    this.loop = this.readLoop();
  }

  async close(): Promise<void> {
    this.running = false;
    this.reader.disconnect();
    await this.loop;
  }

  private async readLoop(): Promise<void> {
    const byKey = new Map(this.streams.map((s) => [s.key, s]));
    const keys = this.streams.map((s) => s.key);
    while (this.running) {
      try {
        const reply = await this.reader.call('XREAD', 'COUNT', 500, 'BLOCK', this.blockMs, 'STREAMS', ...keys, ...this.streams.map((s) => s.readTo()));
        for (const [key, entries] of streamsOfRead(reply)) {
          byKey.get(key)?.take(entries.map(([id, fields]) => ({ id, message: decodeEntry<OutMessage>(fields[1]) })));
        }
      } catch (error) {
        if (!this.running) return;
        this.log.warn({ error: (error as Error).message }, 'relay: reading answers failed; retrying');
        await new Promise((r) => setTimeout(r, 250));
      }
    }
  }
}

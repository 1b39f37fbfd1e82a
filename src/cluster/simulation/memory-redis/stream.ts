import { CommandError } from './reply.js';

/** A stream entry id: milliseconds and a sequence, both 64-bit in Redis (exact here below 2^53). */
export interface StreamId {
  readonly ms: number;
  readonly seq: number;
}

export interface StreamEntry {
  readonly id: StreamId;
  readonly fields: readonly string[];
  /** The node (Redis' listpack of up to NODE_ENTRIES appended entries) holding it: "~" trims whole nodes. */
  readonly node: number;
}

/**
 * Entries one node of a stream holds (stream-node-max-entries). Redis also closes a node at 4 KB
 * (stream-node-max-bytes), which entries of over ~40 bytes reach first: then its nodes hold fewer
 * and "~" trims more finely there than here.
 */
export const NODE_ENTRIES = 100;

export const INVALID_ID = 'ERR Invalid stream ID specified as stream command argument';

export function formatId(id: StreamId): string {
  return `${id.ms}-${id.seq}`;
}

export function compareIds(a: StreamId, b: StreamId): number {
  return a.ms - b.ms || a.seq - b.seq;
}

/**
 * An id as XRANGE and XREAD read it: "ms-seq", or "ms" with the sequence `missingSeq` (0 for a
 * start, the largest for an end); "-" and "+" are the smallest and largest ids.
 */
export function parseId(text: string, missingSeq: number): StreamId {
  if (text === '-') return { ms: 0, seq: 0 };
  if (text === '+') return { ms: Number.MAX_SAFE_INTEGER, seq: Number.MAX_SAFE_INTEGER };
  const match = /^(\d+)(?:-(\d+))?$/.exec(text);
  if (match === null) throw new CommandError(INVALID_ID);
  return { ms: Number(match[1]), seq: match[2] === undefined ? missingSeq : Number(match[2]) };
}

/** An entry delivered to a consumer and not acknowledged yet (the group's pending entries list). */
export interface PendingEntry {
  readonly id: StreamId;
  consumer: string;
  deliveredAt: number;
  deliveries: number;
}

/** A consumer group: where it has read to, and what it delivered and awaits acks for. */
export class ConsumerGroup {
  readonly pending = new Map<string, PendingEntry>();
  readonly consumers = new Set<string>();
  constructor(public lastId: StreamId) {}

  clone(): ConsumerGroup {
    const copy = new ConsumerGroup(this.lastId);
    for (const [key, p] of this.pending) copy.pending.set(key, { ...p });
    for (const c of this.consumers) copy.consumers.add(c);
    return copy;
  }

  /** Pending entries in id order. */
  pendingInOrder(): PendingEntry[] {
    return [...this.pending.values()].sort((a, b) => compareIds(a.id, b.id));
  }
}

/** A stream's entries in id order, and the last id it ever gave (deletions do not lower it). */
export class Stream {
  entries: StreamEntry[] = [];
  lastId: StreamId = { ms: 0, seq: 0 };
  /** Entries ever added (XINFO's entries-added); kept so a trimmed stream still refuses smaller ids. */
  added = 0;
  readonly groups = new Map<string, ConsumerGroup>();
  private tailNode = 0;
  private inTailNode = 0;

  /** The id XADD gives for "*" or "<ms>-*" or an explicit id, refused unless above the last one. */
  nextId(requested: string, now: number): StreamId {
    if (requested === '*') {
      const ms = Math.max(now, this.lastId.ms);
      return ms === this.lastId.ms ? { ms, seq: this.lastId.seq + 1 } : { ms, seq: 0 };
    }
    const auto = /^(\d+)-\*$/.exec(requested);
    let id: StreamId;
    if (auto !== null) {
      const ms = Number(auto[1]);
      id = ms === this.lastId.ms ? { ms, seq: this.lastId.seq + 1 } : { ms, seq: 0 };
    } else {
      const match = /^(\d+)(?:-(\d+))?$/.exec(requested);
      if (match === null) throw new CommandError(INVALID_ID);
      id = { ms: Number(match[1]), seq: match[2] === undefined ? 0 : Number(match[2]) };
    }
    if (id.ms === 0 && id.seq === 0) throw new CommandError('ERR The ID specified in XADD must be greater than 0-0');
    if (compareIds(id, this.lastId) <= 0) throw new CommandError('ERR The ID specified in XADD is equal or smaller than the target stream top item');
    return id;
  }

  clone(): Stream {
    const copy = new Stream();
    copy.entries = [...this.entries];
    copy.lastId = this.lastId;
    copy.added = this.added;
    for (const [name, group] of this.groups) copy.groups.set(name, group.clone());
    copy.tailNode = this.tailNode;
    copy.inTailNode = this.inTailNode;
    return copy;
  }

  append(id: StreamId, fields: readonly string[]): void {
    if (this.inTailNode >= NODE_ENTRIES || this.entries.length === 0) {
      this.tailNode++;
      this.inTailNode = 0;
    }
    this.inTailNode++;
    this.entries.push({ id, fields, node: this.tailNode });
    this.lastId = id;
    this.added++;
  }

  /**
   * XTRIM / XADD's trim, as Redis' streamTrim: whole nodes from the head while the stream stays at
   * or above `maxlen` without them (for MINID: while a node's last id is below it); then, unless
   * approximate, single entries of the head node.
   */
  trim(keep: (entry: StreamEntry, index: number, length: number) => boolean, wholeNode: (node: StreamEntry[], length: number) => boolean, approximate: boolean): number {
    const before = this.entries.length;
    while (this.entries.length > 0) {
      const head = this.entries[0]!.node;
      const node = this.entries.filter((e) => e.node === head);
      if (!wholeNode(node, this.entries.length)) break;
      this.entries.splice(0, node.length);
    }
    if (!approximate) {
      let cut = 0;
      while (cut < this.entries.length && !keep(this.entries[cut]!, cut, this.entries.length - cut)) cut++;
      this.entries.splice(0, cut);
    }
    return before - this.entries.length;
  }

  entry(id: StreamId): StreamEntry | undefined {
    return this.entries.find((e) => compareIds(e.id, id) === 0);
  }

  range(from: StreamId, to: StreamId): StreamEntry[] {
    return this.entries.filter((e) => compareIds(e.id, from) >= 0 && compareIds(e.id, to) <= 0);
  }
}

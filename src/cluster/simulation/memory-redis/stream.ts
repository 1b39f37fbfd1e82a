import { CommandError } from './reply.js';

/** A stream entry id: milliseconds and a sequence, both 64-bit in Redis (exact here below 2^53). */
export interface StreamId {
  readonly ms: number;
  readonly seq: number;
}

export interface StreamEntry {
  readonly id: StreamId;
  readonly fields: readonly string[];
}

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

/** A stream's entries in id order, and the last id it ever gave (deletions do not lower it). */
export class Stream {
  entries: StreamEntry[] = [];
  lastId: StreamId = { ms: 0, seq: 0 };
  /** Entries ever added (XINFO's entries-added); kept so a trimmed stream still refuses smaller ids. */
  added = 0;

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
    return copy;
  }

  append(id: StreamId, fields: readonly string[]): void {
    this.entries.push({ id, fields });
    this.lastId = id;
    this.added++;
  }

  range(from: StreamId, to: StreamId): StreamEntry[] {
    return this.entries.filter((e) => compareIds(e.id, from) >= 0 && compareIds(e.id, to) <= 0);
  }
}

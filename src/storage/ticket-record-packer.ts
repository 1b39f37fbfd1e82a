import type { TicketRecord } from '../coordinator/ports.js';

/** Bytes of one slab records are written into; a record larger than a quarter of it gets a buffer of its own. */
const SLAB_BYTES = 64 * 1024;

/**
 * The common ticket record (stored-ticket.ts' TupleRecord with no `rest`: no latencies, map lists,
 * budgets, location, soft attributes or owner) written as MessagePack by hand, one after another
 * into a slab LMDB reads each from (lmdb-js `asBinary`: the value goes in as it is, and the write
 * keeps the buffer alive until it is committed). The bytes are what msgpackr would write for the
 * tuple but for the widths it picks, and msgpackr reads them back as the same tuple; as with the
 * database's own encoder, the integers 64-127 are never positive fixints, which its records
 * extension reads as structure references. One record was ~1 µs of msgpackr's general encoding
 * (and the tuple built for it) on every ticket whose game was ordered; this walks the record once.
 * A record of another shape, or a value this does not write, is left to the database's encoder.
 */
export class TicketRecordPacker {
  private slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
  private at = 0;
  /** The buffer being written and the position in it (the slab, or a large record's own). */
  private out = this.slab;
  private pos = 0;
  /** The bytes of each attribute set written so far, by identity (see flatList). */
  private readonly lists = new WeakMap<ReadonlyMap<string, string>, Uint8Array>();

  /** The record's bytes, or undefined when its shape is not the common one. */
  pack(record: TicketRecord): Buffer | undefined {
    const r = record.request;
    if (r.latenciesMs.size > 0 || r.preferredMaps.length > 0 || r.vetoedMaps.length > 0 || r.waitBudgetMs !== undefined || r.maxLatencyMs !== undefined || r.location !== undefined || r.softAttributes !== undefined || record.owner !== undefined) return undefined;
    const slab = this.slab;
    const at = this.at;
    try {
      return this.write(record);
    } catch {
      // A value the types say cannot be there (the database's encoder writes whatever it is).
      if (this.slab === slab) this.at = at;
      return undefined;
    }
  }

  private write(record: TicketRecord): Buffer {
    const r = record.request;
    const p = record.placed;
    const partition = this.flatList(r.partition);
    const matchable = this.flatList(r.matchable);
    // Bounds: 3 UTF-8 bytes per UTF-16 unit and a 5-byte header a string, 9 bytes a number, 5 a list header.
    let bound = 64 + 3 * r.template.length + partition.length + matchable.length;
    for (let i = 0; i < r.party.length; i++) bound += 20 + 3 * r.party[i]!.playerId.length;
    if (p) bound += 60 + 3 * (p.requestId.length + p.serverId.length + p.token.length + p.map.length + p.region.length);
    const start = this.reserve(bound);
    this.list(p ? 9 : 7);
    this.number(2); // TUPLE_FORMAT
    this.string(r.template);
    this.list(r.party.length);
    for (let i = 0; i < r.party.length; i++) {
      const member = r.party[i]!;
      if (member.score === undefined) this.string(member.playerId);
      else {
        this.list(2);
        this.string(member.playerId);
        this.number(member.score);
      }
    }
    this.bytes(partition);
    this.bytes(matchable);
    this.number(record.createdAt);
    this.number(record.arrival);
    if (p) {
      this.out[this.pos++] = 0xc0; // rest: null
      this.list(7);
      this.string(p.requestId);
      this.string(p.serverId);
      this.string(p.token);
      this.number(p.at);
      this.number(p.team);
      this.string(p.map);
      this.string(p.region);
    }
    const bytes = this.out.subarray(start, this.pos);
    if (this.out === this.slab) this.at = this.pos;
    return bytes;
  }

  /** Room for `bound` bytes: in the slab (a new one when it is full), or a buffer of its own. */
  private reserve(bound: number): number {
    if (bound > SLAB_BYTES / 4) {
      this.out = Buffer.allocUnsafe(bound);
      this.pos = 0;
      return 0;
    }
    if (this.at + bound > SLAB_BYTES) {
      // The old slab lives on as long as the writes that point into it.
      this.slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
      this.at = 0;
    }
    this.out = this.slab;
    this.pos = this.at;
    return this.at;
  }

  private bytes(written: Uint8Array): void {
    this.out.set(written, this.pos);
    this.pos += written.length;
  }

  private list(length: number): void {
    const out = this.out;
    if (length < 16) out[this.pos++] = 0x90 | length;
    else {
      out[this.pos++] = 0xdc;
      out.writeUInt16BE(length, this.pos);
      this.pos += 2;
    }
  }

  /**
   * An attribute set's bytes as its flat list [key, value, key, value...]. Sets are the decoder's
   * interned ones (one Map for every ticket that sends the same attributes, never changed), so
   * each is written once and its bytes copied after.
   */
  private flatList(set: ReadonlyMap<string, string>): Uint8Array {
    let bytes = this.lists.get(set);
    if (bytes === undefined) {
      let bound = 5;
      for (const [key, value] of set) bound += 10 + 3 * (key.length + value.length);
      const out = this.out;
      const pos = this.pos;
      this.out = Buffer.allocUnsafe(bound);
      this.pos = 0;
      try {
        this.list(set.size * 2);
        for (const [key, value] of set) {
          this.string(key);
          this.string(value);
        }
        bytes = this.out.subarray(0, this.pos);
      } finally {
        this.out = out;
        this.pos = pos;
      }
      this.lists.set(set, bytes);
    }
    return bytes;
  }

  private number(n: number): void {
    if (typeof n !== 'number') throw new TypeError(`not a number: ${typeof n}`);
    const out = this.out;
    if (Number.isInteger(n) && n >= -0x80000000 && n <= 0xffffffff) {
      if (n >= 0) {
        if (n < 0x40) out[this.pos++] = n;
        else if (n <= 0xff) {
          out[this.pos++] = 0xcc;
          out[this.pos++] = n;
        } else if (n <= 0xffff) {
          out[this.pos++] = 0xcd;
          out.writeUInt16BE(n, this.pos);
          this.pos += 2;
        } else {
          out[this.pos++] = 0xce;
          out.writeUInt32BE(n, this.pos);
          this.pos += 4;
        }
      } else if (n >= -32) out[this.pos++] = n & 0xff;
      else {
        out[this.pos++] = 0xd2;
        out.writeInt32BE(n, this.pos);
        this.pos += 4;
      }
      return;
    }
    out[this.pos++] = 0xcb;
    out.writeDoubleBE(n, this.pos);
    this.pos += 8;
  }

  private string(s: string): void {
    if (typeof s !== 'string') throw new TypeError(`not a string: ${typeof s}`);
    const out = this.out;
    const n = s.length;
    if (n < 256) {
      // ASCII (nearly every id and attribute) straight in, behind the header its length takes.
      const header = n < 32 ? 1 : 2;
      let w = this.pos + header;
      let i = 0;
      for (; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c > 0x7f) break;
        out[w++] = c;
      }
      if (i === n) {
        if (header === 1) out[this.pos] = 0xa0 | n;
        else {
          out[this.pos] = 0xd9;
          out[this.pos + 1] = n;
        }
        this.pos = w;
        return;
      }
    }
    const bytes = Buffer.byteLength(s, 'utf8');
    if (bytes < 32) out[this.pos++] = 0xa0 | bytes;
    else if (bytes < 256) {
      out[this.pos++] = 0xd9;
      out[this.pos++] = bytes;
    } else if (bytes < 0x10000) {
      out[this.pos++] = 0xda;
      out.writeUInt16BE(bytes, this.pos);
      this.pos += 2;
    } else {
      out[this.pos++] = 0xdb;
      out.writeUInt32BE(bytes, this.pos);
      this.pos += 4;
    }
    this.pos += out.write(s, this.pos, bytes, 'utf8');
  }
}

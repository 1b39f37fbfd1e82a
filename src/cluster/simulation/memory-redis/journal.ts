import type { Keyspace } from './keyspace.js';

/** A write as the append-only file keeps it: the command and the clock it ran at. */
interface Written {
  readonly at: number;
  readonly args: readonly string[];
}

/** Runs one journaled write on a keyspace at its time (the server's command table). */
export type Replay = (db: Keyspace, at: number, args: readonly string[]) => void;

/**
 * What a restart keeps. An append-only file written with fsync always keeps every acknowledged
 * write ('all'); no persistence keeps nothing ('none'); fsync every second loses the writes of
 * the last moments before the crash (`{ lostLastMs }`: writes made within that many ms before it).
 */
export type Keep = 'all' | 'none' | { readonly lostLastMs: number };

/**
 * The writes since the last fold, with the durable state before them. A script's or a
 * transaction's writes share one time, so a loss window never splits one. Writes older than the
 * longest loss window a restart may ask for are folded into the base, so the journal stays short.
 */
export class Journal {
  private written: Written[] = [];

  constructor(
    private base: Keyspace,
    private readonly replay: Replay,
    private readonly maxLossWindowMs: number,
  ) {}

  record(at: number, args: readonly string[]): void {
    this.written.push({ at, args });
    if (this.written.length >= 4096) this.fold(at - this.maxLossWindowMs);
  }

  private fold(until: number): void {
    let n = 0;
    while (n < this.written.length && this.written[n]!.at <= until) {
      this.replay(this.base, this.written[n]!.at, this.written[n]!.args);
      n++;
    }
    this.written.splice(0, n);
  }

  /** The state a restart at `now` comes back with; the journal then starts from it. */
  recover(keep: Exclude<Keep, 'all'>, now: number, empty: () => Keyspace): Keyspace {
    if (keep === 'none') {
      this.base = empty();
    } else {
      if (!(keep.lostLastMs >= 0) || keep.lostLastMs > this.maxLossWindowMs) {
        throw new RangeError(`keep.lostLastMs must be within 0..${this.maxLossWindowMs} (the memory Redis' maxLossWindowMs), got ${keep.lostLastMs}`);
      }
      this.fold(now - keep.lostLastMs);
    }
    this.written = [];
    return this.base.clone();
  }
}

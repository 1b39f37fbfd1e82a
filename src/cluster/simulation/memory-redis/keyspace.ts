import { CommandError, WRONGTYPE } from './reply.js';
import { SortedSet } from './sorted-set.js';
import { Stream } from './stream.js';

export type Value =
  | { readonly type: 'string'; value: string }
  | { readonly type: 'hash'; readonly value: Map<string, string> }
  | { readonly type: 'set'; readonly value: Set<string> }
  | { readonly type: 'zset'; readonly value: SortedSet }
  | { readonly type: 'list'; readonly value: string[] }
  | { readonly type: 'stream'; readonly value: Stream };

export type ValueType = Value['type'];
type Of<T extends ValueType> = Extract<Value, { type: T }>;

interface Entry {
  value: Value;
  /** Absolute ms on the injected clock; the key is gone once the clock is past it (Redis: now > when). */
  expiresAt?: number;
}

/**
 * One database: keys to typed values with an optional expiry on the injected clock. Reads see an
 * expired key as absent and delete it (Redis' lazy expiry); `sweep` is the active expiry.
 */
export class Keyspace {
  private readonly entries = new Map<string, Entry>();

  /** `now`: the clock of the command being run (a script's or a transaction's is read once, as Redis freezes it). */
  now = 0;

  get size(): number {
    return this.entries.size;
  }

  private live(key: string): Entry | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt !== undefined && this.now > entry.expiresAt) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }

  exists(key: string): boolean {
    return this.live(key) !== undefined;
  }

  typeOf(key: string): ValueType | undefined {
    return this.live(key)?.value.type;
  }

  /** The key's value of that type, undefined when absent; WRONGTYPE when another type. */
  get<T extends ValueType>(key: string, type: T): Of<T> | undefined {
    const entry = this.live(key);
    if (entry === undefined) return undefined;
    if (entry.value.type !== type) throw new CommandError(WRONGTYPE);
    return entry.value as Of<T>;
  }

  /** The key's value of that type, created empty when absent. */
  getOrCreate<T extends ValueType>(key: string, type: T, create: () => Of<T>): Of<T> {
    const found = this.get(key, type);
    if (found !== undefined) return found;
    const value = create();
    this.entries.set(key, { value });
    return value;
  }

  /** Sets a value; `keepTtl` keeps the key's expiry (SET KEEPTTL), else the value is persistent. */
  set(key: string, value: Value, keepTtl = false): void {
    const before = keepTtl ? this.live(key) : undefined;
    this.entries.set(key, before?.expiresAt === undefined ? { value } : { value, expiresAt: before.expiresAt });
  }

  delete(key: string): boolean {
    return this.live(key) !== undefined && this.entries.delete(key);
  }

  /** Deletes a container left empty (Redis never keeps an empty hash, set, zset or list). */
  dropIfEmpty(key: string, size: number): void {
    if (size === 0) this.entries.delete(key);
  }

  /** Remaining ms, -1 without expiry, -2 when absent. */
  pttl(key: string): number {
    const entry = this.live(key);
    if (entry === undefined) return -2;
    if (entry.expiresAt === undefined) return -1;
    return Math.max(0, entry.expiresAt - this.now);
  }

  expireAt(key: string, at: number | undefined): boolean {
    const entry = this.live(key);
    if (entry === undefined) return false;
    if (at === undefined) delete entry.expiresAt;
    else if (at <= this.now) this.entries.delete(key);
    else entry.expiresAt = at;
    return true;
  }

  keys(): string[] {
    return [...this.entries.keys()].filter((key) => this.live(key) !== undefined);
  }

  /** Active expiry: deletes every key past its time; returns how many. */
  sweep(): number {
    let n = 0;
    for (const [key, entry] of this.entries) {
      if (entry.expiresAt !== undefined && this.now > entry.expiresAt) {
        this.entries.delete(key);
        n++;
      }
    }
    return n;
  }

  clear(): void {
    this.entries.clear();
  }

  /** A deep copy (the durable state a restart starts from, kept apart from the live one). */
  clone(): Keyspace {
    const copy = new Keyspace();
    copy.now = this.now;
    for (const [key, entry] of this.entries) {
      const value = copyValue(entry.value);
      copy.entries.set(key, entry.expiresAt === undefined ? { value } : { value, expiresAt: entry.expiresAt });
    }
    return copy;
  }
}

function copyValue(value: Value): Value {
  switch (value.type) {
    case 'string':
      return { type: 'string', value: value.value };
    case 'hash':
      return { type: 'hash', value: new Map(value.value) };
    case 'set':
      return { type: 'set', value: new Set(value.value) };
    case 'list':
      return { type: 'list', value: [...value.value] };
    case 'zset':
      return { type: 'zset', value: value.value.clone() };
    case 'stream':
      return { type: 'stream', value: value.value.clone() };
  }
}

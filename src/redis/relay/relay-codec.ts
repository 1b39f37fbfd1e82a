import type { FindRequest, ServerEvent, ServerHello, ServerOrder, TicketUpdate } from '../../coordinator/messages.js';
import type { TicketRecord } from '../../coordinator/tickets/ticket-record.js';
import { FIND, RelayDecodeError, assignedFromWire, assignedToWire, findFromWire, findToWire, recordFromWire, recordToWire } from './compact-codec.js';
import { MatchmakingError, type ErrorCode } from '../../errors/index.js';
import type { TicketOwner } from '../../security/roles/ticket-ownership.js';
import type { Principal } from '../../security/tokens/principal.js';

/** What a node asks of the matcher owner (one inbox entry each). */
export type InboxMessage =
  | { readonly k: 'find'; readonly node: string; readonly request: FindRequest }
  /** `req` numbers the node's cancels, so the owner's answer finds the call that asked; `caller` is checked against the ticket's owner. */
  | { readonly k: 'cancel'; readonly node: string; readonly ticketId: string; readonly req?: number; readonly caller?: Principal }
  | { readonly k: 'abandon'; readonly node: string; readonly ticketId: string }
  /** `conn` numbers the server's connections on its node, so a close meant for an older one spares the newer. */
  | { readonly k: 'hello'; readonly node: string; readonly conn: number; readonly hello: ServerHello }
  /** `conn`: only that connection (a node telling the owner it holds no such connection); absent: whichever the owner holds from the node. */
  | { readonly k: 'bye'; readonly node: string; readonly serverId: string; readonly conn?: number }
  | { readonly k: 'event'; readonly node: string; readonly serverId: string; readonly event: ServerEvent }
  | Unreadable;

/**
 * Never written: an entry read back that does not decode (damaged, truncated). Its reader skips
 * it (an owner acknowledges it with the rest of the batch), so one bad entry cannot block a
 * stream whose reads would otherwise fail on it again and again.
 */
export interface Unreadable {
  readonly k: 'unreadable';
  readonly reason: string;
}

export interface KeptCheck {
  readonly fingerprint: string;
  readonly owner?: TicketOwner;
}

export interface WireError {
  readonly code: ErrorCode;
  readonly message: string;
  readonly retryAfterMs?: number;
}

/** What the owner answers a node (one entry of that node's out stream each). */
export type OutMessage =
  /**
   * An assignment carries `kept`: what the ticket was asked as (its request's fingerprint, hashed)
   * and by whom, so a find resumed on another node from the kept copy is checked as the core checks a retry.
   */
  | { readonly k: 'update'; readonly ticketId: string; readonly update: TicketUpdate; readonly kept?: KeptCheck }
  | { readonly k: 'cancelled'; readonly req: number; readonly cancelled: boolean; readonly error?: WireError }
  | { readonly k: 'fail'; readonly ticketId: string; readonly error: WireError }
  /** `conn`: the connection the core meant; an order for an older one is not handed to a newer. */
  | { readonly k: 'order'; readonly serverId: string; readonly conn: number; readonly order: ServerOrder }
  | { readonly k: 'close'; readonly serverId: string; readonly conn: number; readonly error: WireError }
  | Unreadable;

/**
 * JSON that keeps Maps (attribute sets, latencies): `{"$m": [[k, v], ...]}`; a find and an
 * assignment, nearly every entry the relay carries, in the compact form (compact-codec.ts).
 */
export function encode(message: InboxMessage | OutMessage): string {
  if (message.k === 'unreadable') throw new RangeError('an unreadable entry is never written');
  if (message.k === 'find') return JSON.stringify(findToWire(message.node, message.request));
  if (message.k === 'update' && message.update.kind === 'assigned') return JSON.stringify(assignedToWire(message.ticketId, message.update.assignment, message.kept));
  return stringifyWithMaps(message);
}

/** A waiting ticket's record (compact-codec.ts). */
export function encodeRecord(record: TicketRecord): string {
  return JSON.stringify(recordToWire(record));
}

/** A record as `encodeRecord` wrote it, or in the object form written before; throws RelayDecodeError. */
export function decodeRecord(text: string): TicketRecord {
  const value = parse(text);
  return Array.isArray(value) ? recordFromWire(value) : (revive(value) as TicketRecord);
}

/**
 * JSON.stringify with every Map, at any depth, written as `{"$m": [[k, v], ...]}`. Maps are
 * swapped out by a walk that copies only the objects on the way to one, not by a replacer: a
 * replacer function is called for every value and turns off V8's fast serializer, which made
 * encoding the relay's busiest function on a sharded node (perf/PROFILE.md).
 */
export function stringifyWithMaps(value: unknown): string {
  return JSON.stringify(withoutMaps(value));
}

function withoutMaps(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (value instanceof Map) return { $m: [...value].map(([k, v]: [unknown, unknown]) => [k, withoutMaps(v)]) };
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const plain = withoutMaps(item);
      if (plain !== item) (copy ??= value.slice())[i] = plain;
    }
    return copy ?? value;
  }
  if (ArrayBuffer.isView(value) || typeof (value as { toJSON?: unknown }).toJSON === 'function') return value;
  const object = value as Record<string, unknown>;
  let copy: Record<string, unknown> | undefined;
  for (const key of Object.keys(object)) {
    const item = object[key];
    const plain = withoutMaps(item);
    if (plain !== item) (copy ??= { ...object })[key] = plain;
  }
  return copy ?? object;
}

/** Throws RelayDecodeError for a text that is not a relay message (truncated, damaged). */
export function decode<T extends InboxMessage | OutMessage>(text: string): T {
  // A plain parse and a walk of the objects only: a reviver is called for every value, strings
  // included, and made decoding the owner's busiest function (perf/PROFILE.md).
  const value = parse(text);
  if (Array.isArray(value)) {
    if (value[0] === FIND) return { k: 'find', ...findFromWire(value) } as T;
    const { ticketId, assignment, kept } = assignedFromWire(value);
    return { k: 'update', ticketId, update: { kind: 'assigned', assignment }, kept } as T;
  }
  if (value === null || typeof value !== 'object' || typeof (value as { k?: unknown }).k !== 'string') throw new RelayDecodeError('not a relay message');
  return (text.includes('"$m"') ? revive(value) : value) as T;
}

/** A stream entry's message, or `unreadable` when it does not decode (see Unreadable). */
export function decodeEntry<T extends InboxMessage | OutMessage>(text: string | undefined): T | Unreadable {
  try {
    if (text === undefined) throw new RelayDecodeError('no message field');
    return decode<T>(text);
  } catch (error) {
    if (!(error instanceof RelayDecodeError)) throw error;
    return { k: 'unreadable', reason: error.message };
  }
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new RelayDecodeError(`not JSON (${(error as Error).message}): ${text.slice(0, 40)}`);
  }
}

function revive(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = revive(value[i]);
    return value;
  }
  const object = value as Record<string, unknown>;
  if ('$m' in object) return new Map((object.$m as [string, unknown][]).map(([k, v]) => [k, revive(v)]));
  for (const key of Object.keys(object)) {
    const revived = revive(object[key]);
    if (revived !== object[key] && key !== '__proto__') object[key] = revived;
  }
  return object;
}

export function wireError(error: unknown): WireError {
  if (error instanceof MatchmakingError) return { code: error.code, message: error.message, retryAfterMs: error.retryAfterMs };
  return { code: 'UNAVAILABLE', message: `matcher failed: ${(error as Error)?.message ?? String(error)}` };
}

export const fromWire = (e: WireError) => new MatchmakingError(e.code, e.message, e.retryAfterMs);

/** An ioredis failure (connection refused, stream not writeable...) as the gRPC answer UNAVAILABLE. */
export function redisUnavailable(error: unknown): MatchmakingError {
  if (error instanceof MatchmakingError) return error;
  return new MatchmakingError('UNAVAILABLE', `redis unreachable (${(error as Error)?.message ?? String(error)}): retry with the same ticket id`);
}

import { ReplyError as IoredisReplyError } from 'ioredis';
import { DoubleReply, ErrorReply, formatG, MapReply, PairsReply, StatusReply, type Reply } from './reply.js';

const ReplyError = IoredisReplyError as new (message: string) => Error;

/** An error reply as ioredis rejects with it (its ReplyError, with the command that got it). */
export function replyError(message: string, args: readonly string[]): Error {
  const error = new ReplyError(message);
  Object.assign(error, { command: { name: (args[0] ?? '').toLowerCase(), args: args.slice(1) } });
  return error;
}

/**
 * A reply as ioredis 6 hands it over with its defaults (RESP3, "legacy" mapping): maps as flat
 * arrays, doubles as strings, pairs (ZRANGE WITHSCORES) nested, an error inside an array as an
 * error object.
 */
export function clientShape(reply: Reply, args: readonly string[]): unknown {
  if (reply === null || typeof reply === 'string' || typeof reply === 'number') return reply;
  if (Array.isArray(reply)) return reply.map((r) => clientShape(r, args));
  if (reply instanceof StatusReply) return reply.status;
  if (reply instanceof ErrorReply) return replyError(reply.message, args);
  if (reply instanceof DoubleReply) return formatG(reply.value, 17);
  if (reply instanceof MapReply) return reply.entries.flat().map((r) => clientShape(r, args));
  return (reply as PairsReply).pairs.map((pair) => pair.map((r) => clientShape(r, args)));
}

export type Transform = (reply: unknown) => unknown;

function flattenPairs(reply: unknown): unknown {
  return Array.isArray(reply) ? reply.flatMap((item: unknown) => (Array.isArray(item) ? item : [item])) : reply;
}

/** ioredis' reply transformers, by command name as ioredis registers them (lower case: `call('ZRANGE', ...)` gets none, `call('zrange', ...)` does). */
export const TRANSFORMS: Record<string, Transform> = {
  hgetall: (reply) => {
    const flat = reply as string[];
    const object: Record<string, string> = {};
    for (let i = 0; i < flat.length; i += 2) object[flat[i]!] = flat[i + 1]!;
    return object;
  },
  zrange: flattenPairs,
  zrevrange: flattenPairs,
  zrangebyscore: flattenPairs,
  zrevrangebyscore: flattenPairs,
  xread: wrapStreamPairs,
  xreadgroup: wrapStreamPairs,
};

/** The transformer ioredis applies to a command of this name, if any. */
export function transformOf(name: string): Transform | undefined {
  return Object.hasOwn(TRANSFORMS, name) ? TRANSFORMS[name] : undefined;
}

function wrapStreamPairs(reply: unknown): unknown {
  if (!Array.isArray(reply)) return reply;
  const wrapped: unknown[] = [];
  for (let i = 0; i < reply.length; i += 2) wrapped.push([reply[i], reply[i + 1]]);
  return wrapped;
}

/** The named methods of ioredis the memory client answers (each the command of its name). */
export const METHODS = [
  'get', 'set', 'mget', 'mset', 'getdel', 'incr', 'incrby', 'decr', 'decrby', 'strlen',
  'del', 'unlink', 'exists', 'type', 'expire', 'pexpire', 'expireat', 'pexpireat', 'persist', 'ttl', 'pttl', 'dbsize', 'keys', 'flushall', 'ping', 'echo', 'time',
  'hset', 'hmset', 'hsetnx', 'hget', 'hmget', 'hgetall', 'hkeys', 'hvals', 'hlen', 'hexists', 'hdel', 'hincrby', 'hscan',
  'sadd', 'srem', 'smembers', 'scard', 'sismember',
  'zadd', 'zincrby', 'zrem', 'zrange', 'zrevrange', 'zrangebyscore', 'zrevrangebyscore', 'zrank', 'zrevrank', 'zscore', 'zcard', 'zcount', 'zremrangebyscore',
  'lpush', 'rpush', 'lpop', 'rpop', 'llen', 'lrange', 'ltrim',
  'xadd', 'xrange', 'xrevrange', 'xread', 'xlen', 'xdel', 'xtrim', 'xgroup', 'xreadgroup', 'xack', 'xautoclaim',
  'publish', 'eval', 'evalsha', 'script',
] as const;

export type MethodName = (typeof METHODS)[number];

type Arg = string | number | Buffer | readonly (string | number)[];

/** ioredis' argument flattening: arrays spread (one level), numbers as their decimal text. */
export function words(args: readonly Arg[]): string[] {
  const out: string[] = [];
  for (const arg of args) {
    if (Array.isArray(arg)) for (const a of arg as readonly (string | number)[]) out.push(String(a));
    else out.push(Buffer.isBuffer(arg) ? arg.toString('utf8') : String(arg));
  }
  return out;
}

export type { Arg };

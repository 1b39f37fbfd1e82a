import { CommandError, MapReply, OK, parseInteger } from '../reply.js';
import { globToRegExp } from './keys.js';
import { command, syntaxError, upper, type CommandContext, type CommandTable } from './command.js';

const hashOf = (ctx: CommandContext, key: string) => ctx.db.get(key, 'hash')?.value;

function hset(name: string) {
  return (ctx: CommandContext, [key, ...pairs]: string[]) => {
    if (pairs.length % 2 !== 0) throw new CommandError(`ERR wrong number of arguments for '${name}' command`);
    const hash = ctx.db.getOrCreate(key!, 'hash', () => ({ type: 'hash', value: new Map() })).value;
    let added = 0;
    for (let i = 0; i < pairs.length; i += 2) {
      if (!hash.has(pairs[i]!)) added++;
      hash.set(pairs[i]!, pairs[i + 1]!);
    }
    return added;
  };
}

export const hashCommands: CommandTable = {
  HSET: command(-4, true, hset('hset')),
  HMSET: command(-4, true, (ctx, args) => {
    hset('hmset')(ctx, args);
    return OK;
  }),
  HSETNX: command(4, true, (ctx, [key, field, value]) => {
    const hash = ctx.db.getOrCreate(key!, 'hash', () => ({ type: 'hash', value: new Map() })).value;
    if (hash.has(field!)) return 0;
    hash.set(field!, value!);
    return 1;
  }),
  HGET: command(3, false, (ctx, [key, field]) => hashOf(ctx, key!)?.get(field!) ?? null),
  HMGET: command(-3, false, (ctx, [key, ...fields]) => {
    const hash = hashOf(ctx, key!);
    return fields.map((f) => hash?.get(f) ?? null);
  }),
  HGETALL: command(2, false, (ctx, [key]) => new MapReply([...(hashOf(ctx, key!) ?? [])])),
  HKEYS: command(2, false, (ctx, [key]) => [...(hashOf(ctx, key!)?.keys() ?? [])]),
  HVALS: command(2, false, (ctx, [key]) => [...(hashOf(ctx, key!)?.values() ?? [])]),
  HLEN: command(2, false, (ctx, [key]) => hashOf(ctx, key!)?.size ?? 0),
  HEXISTS: command(3, false, (ctx, [key, field]) => (hashOf(ctx, key!)?.has(field!) ? 1 : 0)),
  HDEL: command(-3, true, (ctx, [key, ...fields]) => {
    const hash = hashOf(ctx, key!);
    if (hash === undefined) return 0;
    const removed = fields.filter((f) => hash.delete(f)).length;
    ctx.db.dropIfEmpty(key!, hash.size);
    return removed;
  }),
  HINCRBY: command(4, true, (ctx, [key, field, by]) => {
    const increment = parseInteger(by!);
    const hash = ctx.db.getOrCreate(key!, 'hash', () => ({ type: 'hash', value: new Map() })).value;
    const before = hash.get(field!);
    const current = before === undefined ? 0 : parseInteger(before, 'ERR hash value is not an integer');
    const next = current + increment;
    if (!Number.isSafeInteger(next)) throw new CommandError('ERR increment or decrement would overflow');
    hash.set(field!, String(next));
    return next;
  }),
  /** One page holding every field (cursor "0"), as Redis answers for a small (listpack) hash. */
  HSCAN: command(-3, false, (ctx, [key, cursor, ...options]) => {
    parseInteger(cursor!, 'ERR invalid cursor');
    let match: RegExp | undefined;
    for (let i = 0; i < options.length; i += 2) {
      const word = upper(options[i]);
      if (options[i + 1] === undefined) syntaxError();
      if (word === 'MATCH') match = globToRegExp(options[i + 1]!);
      else if (word === 'COUNT') parseInteger(options[i + 1]!);
      else syntaxError();
    }
    const flat: string[] = [];
    for (const [field, value] of hashOf(ctx, key!) ?? []) if (match === undefined || match.test(field)) flat.push(field, value);
    return ['0', flat];
  }),
};

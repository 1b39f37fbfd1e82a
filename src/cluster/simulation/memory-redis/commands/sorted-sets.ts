import { CommandError, DoubleReply, NOT_FLOAT, PairsReply, parseFloatStrict, parseInteger, type Reply } from '../reply.js';
import { SortedSet } from '../sorted-set.js';
import { clampRange, command, syntaxError, upper, type CommandContext, type CommandTable } from './command.js';

const zsetOf = (ctx: CommandContext, key: string) => ctx.db.get(key, 'zset')?.value;

interface ScoreBound {
  readonly value: number;
  readonly exclusive: boolean;
}

function parseBound(text: string): ScoreBound {
  const exclusive = text.startsWith('(');
  const value = parseFloatStrict(exclusive ? text.slice(1) : text, 'ERR min or max is not a float');
  return { value, exclusive };
}

const above = (score: number, min: ScoreBound) => (min.exclusive ? score > min.value : score >= min.value);
const below = (score: number, max: ScoreBound) => (max.exclusive ? score < max.value : score <= max.value);

type Scored = { member: string; score: number };

function answer(entries: readonly Scored[], withScores: boolean): Reply {
  if (withScores) return new PairsReply(entries.map((e) => [e.member, new DoubleReply(e.score)]));
  return entries.map((e) => e.member);
}

function byScore(zset: SortedSet | undefined, min: ScoreBound, max: ScoreBound, reverse: boolean, offset: number, count: number): Scored[] {
  let found = (zset?.ordered() ?? []).filter((e) => above(e.score, min) && below(e.score, max));
  if (reverse) found = [...found].reverse();
  if (offset < 0) return [];
  return found.slice(offset, count < 0 ? undefined : offset + count);
}

function byIndex(zset: SortedSet | undefined, start: number, stop: number, reverse: boolean): Scored[] {
  const all = zset?.ordered() ?? [];
  const range = clampRange(start, stop, all.length);
  if (range === undefined) return [];
  if (!reverse) return all.slice(range[0], range[1] + 1);
  return [...all].reverse().slice(range[0], range[1] + 1);
}

/** ZRANGE key start stop [BYSCORE] [REV] [LIMIT offset count] [WITHSCORES] (BYLEX is not implemented). */
function zrange(ctx: CommandContext, [key, start, stop, ...options]: string[]): Reply {
  let scores = false;
  let reverse = false;
  let withScores = false;
  let limit: [number, number] | undefined;
  for (let i = 0; i < options.length; i++) {
    const word = upper(options[i]);
    if (word === 'BYSCORE') scores = true;
    else if (word === 'REV') reverse = true;
    else if (word === 'WITHSCORES') withScores = true;
    else if (word === 'LIMIT' && i + 2 < options.length) limit = [parseInteger(options[++i]!), parseInteger(options[++i]!)];
    else if (word === 'BYLEX') throw new CommandError('ERR BYLEX is not implemented by the memory Redis');
    else syntaxError();
  }
  if (limit !== undefined && !scores) throw new CommandError('ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX');
  const zset = zsetOf(ctx, key!);
  if (scores) {
    const [min, max] = reverse ? [parseBound(stop!), parseBound(start!)] : [parseBound(start!), parseBound(stop!)];
    return answer(byScore(zset, min, max, reverse, limit?.[0] ?? 0, limit?.[1] ?? -1), withScores);
  }
  return answer(byIndex(zset, parseInteger(start!), parseInteger(stop!), reverse), withScores);
}

/** ZRANGEBYSCORE key min max [WITHSCORES] [LIMIT offset count], and ZREVRANGEBYSCORE key max min ... */
function rangeByScore(reverse: boolean) {
  return (ctx: CommandContext, [key, first, second, ...options]: string[]): Reply => {
    let withScores = false;
    let limit: [number, number] | undefined;
    for (let i = 0; i < options.length; i++) {
      const word = upper(options[i]);
      if (word === 'WITHSCORES') withScores = true;
      else if (word === 'LIMIT' && i + 2 < options.length) limit = [parseInteger(options[++i]!), parseInteger(options[++i]!)];
      else syntaxError();
    }
    const [min, max] = reverse ? [parseBound(second!), parseBound(first!)] : [parseBound(first!), parseBound(second!)];
    return answer(byScore(zsetOf(ctx, key!), min, max, reverse, limit?.[0] ?? 0, limit?.[1] ?? -1), withScores);
  };
}

function zadd(ctx: CommandContext, [key, ...rest]: string[]): Reply {
  const flags = new Set<string>();
  let i = 0;
  for (; i < rest.length; i++) {
    const word = upper(rest[i]);
    if (['NX', 'XX', 'GT', 'LT', 'CH', 'INCR'].includes(word)) flags.add(word);
    else break;
  }
  const pairs = rest.slice(i);
  if (pairs.length === 0 || pairs.length % 2 !== 0) syntaxError();
  if (flags.has('NX') && flags.has('XX')) throw new CommandError('ERR XX and NX options at the same time are not compatible');
  if ((flags.has('GT') && flags.has('LT')) || (flags.has('NX') && (flags.has('GT') || flags.has('LT')))) {
    throw new CommandError('ERR GT, LT, and/or NX options at the same time are not compatible');
  }
  if (flags.has('INCR') && pairs.length > 2) throw new CommandError('ERR INCR option supports a single increment-element pair');
  const scores = pairs.filter((_, k) => k % 2 === 0).map((s) => parseFloatStrict(s, NOT_FLOAT));
  const zset = ctx.db.getOrCreate(key!, 'zset', () => ({ type: 'zset', value: new SortedSet() })).value;
  let added = 0;
  let changed = 0;
  let incremented: number | null = null;
  scores.forEach((given, k) => {
    const member = pairs[2 * k + 1]!;
    const before = zset.score(member);
    if ((flags.has('NX') && before !== undefined) || (flags.has('XX') && before === undefined)) return;
    const score = flags.has('INCR') ? (before ?? 0) + given : given;
    if (Number.isNaN(score)) throw new CommandError('ERR resulting score is not a number (NaN)');
    if (before !== undefined && ((flags.has('GT') && score <= before) || (flags.has('LT') && score >= before))) return;
    if (zset.set(member, score)) added++;
    else if (before !== score) changed++;
    incremented = score;
  });
  ctx.db.dropIfEmpty(key!, zset.size);
  if (flags.has('INCR')) return incremented === null ? null : new DoubleReply(incremented);
  return flags.has('CH') ? added + changed : added;
}

export const sortedSetCommands: CommandTable = {
  ZADD: command(-4, true, zadd),
  ZINCRBY: command(4, true, (ctx, [key, by, member]) => {
    const increment = parseFloatStrict(by!);
    const zset = ctx.db.getOrCreate(key!, 'zset', () => ({ type: 'zset', value: new SortedSet() })).value;
    const score = (zset.score(member!) ?? 0) + increment;
    if (Number.isNaN(score)) throw new CommandError('ERR resulting score is not a number (NaN)');
    zset.set(member!, score);
    return new DoubleReply(score);
  }),
  ZREM: command(-3, true, (ctx, [key, ...members]) => {
    const zset = zsetOf(ctx, key!);
    if (zset === undefined) return 0;
    const removed = members.filter((m) => zset.delete(m)).length;
    ctx.db.dropIfEmpty(key!, zset.size);
    return removed;
  }),
  ZRANGE: command(-4, false, zrange),
  ZREVRANGE: command(-4, false, (ctx, [key, start, stop, ...options]) => {
    if (options.length > 1 || (options.length === 1 && upper(options[0]) !== 'WITHSCORES')) syntaxError();
    return answer(byIndex(zsetOf(ctx, key!), parseInteger(start!), parseInteger(stop!), true), options.length === 1);
  }),
  ZRANGEBYSCORE: command(-4, false, rangeByScore(false)),
  ZREVRANGEBYSCORE: command(-4, false, rangeByScore(true)),
  ZRANK: command(3, false, (ctx, [key, member]) => zsetOf(ctx, key!)?.rank(member!) ?? null),
  ZREVRANK: command(3, false, (ctx, [key, member]) => {
    const zset = zsetOf(ctx, key!);
    const rank = zset?.rank(member!);
    return rank === undefined ? null : zset!.size - 1 - rank;
  }),
  ZSCORE: command(3, false, (ctx, [key, member]) => {
    const score = zsetOf(ctx, key!)?.score(member!);
    return score === undefined ? null : new DoubleReply(score);
  }),
  ZCARD: command(2, false, (ctx, [key]) => zsetOf(ctx, key!)?.size ?? 0),
  ZCOUNT: command(4, false, (ctx, [key, min, max]) => byScore(zsetOf(ctx, key!), parseBound(min!), parseBound(max!), false, 0, -1).length),
  ZREMRANGEBYSCORE: command(4, true, (ctx, [key, min, max]) => {
    const zset = zsetOf(ctx, key!);
    const gone = byScore(zset, parseBound(min!), parseBound(max!), false, 0, -1);
    for (const e of gone) zset!.delete(e.member);
    if (zset) ctx.db.dropIfEmpty(key!, zset.size);
    return gone.length;
  }),
};

import { OK, parseInteger } from '../reply.js';
import { clampRange, command, type CommandContext, type CommandTable } from './command.js';

const listOf = (ctx: CommandContext, key: string) => ctx.db.get(key, 'list')?.value;
const create = () => ({ type: 'list' as const, value: [] as string[] });

export const listCommands: CommandTable = {
  LPUSH: command(-3, true, (ctx, [key, ...values]) => {
    const list = ctx.db.getOrCreate(key!, 'list', create).value;
    for (const v of values) list.unshift(v);
    return list.length;
  }),
  RPUSH: command(-3, true, (ctx, [key, ...values]) => {
    const list = ctx.db.getOrCreate(key!, 'list', create).value;
    list.push(...values);
    return list.length;
  }),
  LPOP: command(2, true, (ctx, [key]) => {
    const list = listOf(ctx, key!);
    const value = list?.shift() ?? null;
    if (list) ctx.db.dropIfEmpty(key!, list.length);
    return value;
  }),
  RPOP: command(2, true, (ctx, [key]) => {
    const list = listOf(ctx, key!);
    const value = list?.pop() ?? null;
    if (list) ctx.db.dropIfEmpty(key!, list.length);
    return value;
  }),
  LLEN: command(2, false, (ctx, [key]) => listOf(ctx, key!)?.length ?? 0),
  LRANGE: command(4, false, (ctx, [key, start, stop]) => {
    const list = listOf(ctx, key!) ?? [];
    const range = clampRange(parseInteger(start!), parseInteger(stop!), list.length);
    return range === undefined ? [] : list.slice(range[0], range[1] + 1);
  }),
  LTRIM: command(4, true, (ctx, [key, start, stop]) => {
    const list = listOf(ctx, key!);
    const [from, to] = [parseInteger(start!), parseInteger(stop!)];
    if (list === undefined) return OK;
    const range = clampRange(from, to, list.length);
    const kept = range === undefined ? [] : list.slice(range[0], range[1] + 1);
    list.splice(0, list.length, ...kept);
    ctx.db.dropIfEmpty(key!, list.length);
    return OK;
  }),
};

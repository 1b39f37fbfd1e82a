import { command, type CommandContext, type CommandTable } from './command.js';

const setOf = (ctx: CommandContext, key: string) => ctx.db.get(key, 'set')?.value;

export const setCommands: CommandTable = {
  SADD: command(-3, true, (ctx, [key, ...members]) => {
    const set = ctx.db.getOrCreate(key!, 'set', () => ({ type: 'set', value: new Set() })).value;
    let added = 0;
    for (const m of members) if (!set.has(m) && set.add(m)) added++;
    return added;
  }),
  SREM: command(-3, true, (ctx, [key, ...members]) => {
    const set = setOf(ctx, key!);
    if (set === undefined) return 0;
    const removed = members.filter((m) => set.delete(m)).length;
    ctx.db.dropIfEmpty(key!, set.size);
    return removed;
  }),
  SMEMBERS: command(2, false, (ctx, [key]) => [...(setOf(ctx, key!) ?? [])]),
  SCARD: command(2, false, (ctx, [key]) => setOf(ctx, key!)?.size ?? 0),
  SISMEMBER: command(3, false, (ctx, [key, member]) => (setOf(ctx, key!)?.has(member!) ? 1 : 0)),
};

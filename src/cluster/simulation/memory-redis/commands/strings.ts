import { CommandError, OK, parseInteger, type Reply } from '../reply.js';
import { command, syntaxError, upper, type CommandContext, type CommandTable } from './command.js';

function getString(ctx: CommandContext, key: string): string | null {
  return ctx.db.get(key, 'string')?.value ?? null;
}

function set(ctx: CommandContext, args: string[]): Reply {
  const [key, value] = args as [string, string];
  let condition: 'NX' | 'XX' | undefined;
  let get = false;
  let expiry: 'EX' | 'PX' | 'EXAT' | 'PXAT' | 'KEEPTTL' | undefined;
  let expiryValue = 0;
  for (let i = 2; i < args.length; i++) {
    const word = upper(args[i]);
    if ((word === 'NX' || word === 'XX') && condition === undefined) condition = word;
    else if (word === 'GET' && !get) get = true;
    else if (word === 'KEEPTTL' && expiry === undefined) expiry = 'KEEPTTL';
    else if ((word === 'EX' || word === 'PX' || word === 'EXAT' || word === 'PXAT') && expiry === undefined && i + 1 < args.length) {
      expiry = word;
      expiryValue = parseInteger(args[++i]!);
      if (expiryValue <= 0) throw new CommandError("ERR invalid expire time in 'set' command");
    } else syntaxError();
  }
  const before = get ? getString(ctx, key) : null;
  const exists = ctx.db.exists(key);
  if ((condition === 'NX' && exists) || (condition === 'XX' && !exists)) return get ? before : null;
  ctx.db.set(key, { type: 'string', value }, expiry === 'KEEPTTL');
  if (expiry === 'EX') ctx.db.expireAt(key, ctx.now + expiryValue * 1000);
  else if (expiry === 'PX') ctx.db.expireAt(key, ctx.now + expiryValue);
  else if (expiry === 'EXAT') ctx.db.expireAt(key, expiryValue * 1000);
  else if (expiry === 'PXAT') ctx.db.expireAt(key, expiryValue);
  return get ? before : OK;
}

function incrementBy(ctx: CommandContext, key: string, by: number): number {
  const found = ctx.db.get(key, 'string');
  const current = found === undefined ? 0 : parseInteger(found.value);
  const next = current + by;
  if (!Number.isSafeInteger(next)) throw new CommandError('ERR increment or decrement would overflow');
  if (found === undefined) ctx.db.set(key, { type: 'string', value: String(next) });
  else found.value = String(next);
  return next;
}

export const stringCommands: CommandTable = {
  GET: command(2, false, (ctx, [key]) => getString(ctx, key!)),
  SET: command(-3, true, set),
  MGET: command(-2, false, (ctx, keys) => keys.map((key) => (ctx.db.typeOf(key) === 'string' ? getString(ctx, key) : null))),
  MSET: command(-3, true, (ctx, args) => {
    if (args.length % 2 !== 0) throw new CommandError("ERR wrong number of arguments for 'mset' command");
    for (let i = 0; i < args.length; i += 2) ctx.db.set(args[i]!, { type: 'string', value: args[i + 1]! });
    return OK;
  }),
  GETDEL: command(2, true, (ctx, [key]) => {
    const value = getString(ctx, key!);
    if (value !== null) ctx.db.delete(key!);
    return value;
  }),
  INCR: command(2, true, (ctx, [key]) => incrementBy(ctx, key!, 1)),
  DECR: command(2, true, (ctx, [key]) => incrementBy(ctx, key!, -1)),
  INCRBY: command(3, true, (ctx, [key, by]) => incrementBy(ctx, key!, parseInteger(by!))),
  DECRBY: command(3, true, (ctx, [key, by]) => incrementBy(ctx, key!, -parseInteger(by!))),
  STRLEN: command(2, false, (ctx, [key]) => Buffer.byteLength(getString(ctx, key!) ?? '', 'utf8')),
};



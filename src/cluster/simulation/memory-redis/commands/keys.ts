import { CommandError, OK, parseInteger, StatusReply } from '../reply.js';
import { command, syntaxError, upper, type CommandContext, type CommandTable } from './command.js';

/** PEXPIRE and its kin: `at` absolute ms; NX/XX/GT/LT as Redis 7 reads them. */
function expire(ctx: CommandContext, key: string, at: number, options: string[]): number {
  const flags = new Set(options.map(upper));
  for (const flag of flags) if (!['NX', 'XX', 'GT', 'LT'].includes(flag)) throw new CommandError(`ERR Unsupported option ${options.find((o) => upper(o) === flag)}`);
  if (flags.has('NX') && flags.size > 1) throw new CommandError('ERR NX and XX, GT or LT options at the same time are not compatible');
  if (flags.has('GT') && flags.has('LT')) throw new CommandError('ERR GT and LT options at the same time are not compatible');
  const ttl = ctx.db.pttl(key);
  if (ttl === -2) return 0;
  const current = ttl === -1 ? undefined : ctx.now + ttl;
  if (flags.has('NX') && current !== undefined) return 0;
  if (flags.has('XX') && current === undefined) return 0;
  // A key without expiry counts as an infinite one for GT and LT.
  if (flags.has('GT') && (current === undefined || at <= current)) return 0;
  if (flags.has('LT') && current !== undefined && at >= current) return 0;
  ctx.db.expireAt(key, at);
  return 1;
}

/** KEYS' glob: * ? [...] and backslash escapes. */
function globToRegExp(pattern: string): RegExp {
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*') source += '.*';
    else if (c === '?') source += '.';
    else if (c === '[') {
      const end = pattern.indexOf(']', i + 1);
      if (end < 0) source += '\\[';
      else {
        let body = pattern.slice(i + 1, end);
        if (body.startsWith('^')) body = '^' + body.slice(1).replace(/[\\\]]/g, '\\$&');
        else body = body.replace(/[\\\]^]/g, '\\$&');
        source += `[${body}]`;
        i = end;
      }
    } else if (c === '\\' && i + 1 < pattern.length) source += '\\' + pattern[++i]!;
    else source += c.replace(/[.+^${}()|\\/]/g, '\\$&');
  }
  return new RegExp(`^${source}$`, 's');
}

export const keyCommands: CommandTable = {
  DEL: command(-2, true, (ctx, keys) => keys.filter((key) => ctx.db.delete(key)).length),
  UNLINK: command(-2, true, (ctx, keys) => keys.filter((key) => ctx.db.delete(key)).length),
  EXISTS: command(-2, false, (ctx, keys) => keys.filter((key) => ctx.db.exists(key)).length),
  TYPE: command(2, false, (ctx, [key]) => new StatusReply(ctx.db.typeOf(key!) ?? 'none')),
  PEXPIRE: command(-3, true, (ctx, [key, ms, ...options]) => expire(ctx, key!, ctx.now + parseInteger(ms!), options)),
  EXPIRE: command(-3, true, (ctx, [key, s, ...options]) => expire(ctx, key!, ctx.now + parseInteger(s!) * 1000, options)),
  PEXPIREAT: command(-3, true, (ctx, [key, at, ...options]) => expire(ctx, key!, parseInteger(at!), options)),
  EXPIREAT: command(-3, true, (ctx, [key, at, ...options]) => expire(ctx, key!, parseInteger(at!) * 1000, options)),
  PERSIST: command(2, true, (ctx, [key]) => (ctx.db.pttl(key!) >= 0 && ctx.db.expireAt(key!, undefined) ? 1 : 0)),
  PTTL: command(2, false, (ctx, [key]) => ctx.db.pttl(key!)),
  TTL: command(2, false, (ctx, [key]) => {
    const ms = ctx.db.pttl(key!);
    return ms < 0 ? ms : Math.floor((ms + 500) / 1000);
  }),
  DBSIZE: command(1, false, (ctx) => ctx.db.keys().length),
  KEYS: command(2, false, (ctx, [pattern]) => {
    const match = globToRegExp(pattern!);
    return ctx.db.keys().filter((key) => match.test(key));
  }),
  FLUSHALL: command(-1, true, (ctx, options) => {
    if (options.length > 1 || (options.length === 1 && !['SYNC', 'ASYNC'].includes(upper(options[0])))) syntaxError();
    ctx.db.clear();
    return OK;
  }),
  PING: command(-1, false, (_, [message, ...rest]) => {
    if (rest.length > 0) throw new CommandError("ERR wrong number of arguments for 'ping' command");
    return message ?? new StatusReply('PONG');
  }),
  ECHO: command(2, false, (_, [message]) => message!),
  /** The injected clock as Redis' TIME: seconds and microseconds, both as strings. */
  TIME: command(1, false, (ctx) => {
    const micros = Math.floor(ctx.now * 1000);
    return [String(Math.floor(micros / 1_000_000)), String(micros % 1_000_000)];
  }),
};

export { globToRegExp };

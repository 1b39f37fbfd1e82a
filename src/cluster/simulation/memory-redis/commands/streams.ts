import { CommandError, MapReply, parseInteger, type Reply } from '../reply.js';
import { compareIds, formatId, parseId, Stream, type StreamEntry, type StreamId } from '../stream.js';
import { command, syntaxError, upper, type CommandContext, type CommandTable } from './command.js';

const streamOf = (ctx: CommandContext, key: string) => ctx.db.get(key, 'stream')?.value;
const entryReply = (e: StreamEntry): Reply => [formatId(e.id), [...e.fields]];

interface Trim {
  readonly by: 'MAXLEN' | 'MINID';
  readonly approximate: boolean;
  readonly threshold: string;
}

/** Reads [MAXLEN|MINID [=|~] threshold [LIMIT count]] at `at`; returns the trim and the next index. */
function readTrim(args: string[], at: number): [Trim | undefined, number] {
  const by = upper(args[at]);
  if (by !== 'MAXLEN' && by !== 'MINID') return [undefined, at];
  let i = at + 1;
  let approximate = false;
  if (args[i] === '~' || args[i] === '=') approximate = args[i++] === '~';
  const threshold = args[i++];
  if (threshold === undefined) syntaxError();
  if (upper(args[i]) === 'LIMIT') {
    if (!approximate) throw new CommandError('ERR syntax error, LIMIT cannot be used without the special ~ option');
    parseInteger(args[i + 1] ?? '');
    i += 2;
  }
  if (by === 'MAXLEN') {
    const n = parseInteger(threshold);
    if (n < 0) throw new CommandError('ERR The MAXLEN argument must be >= 0.');
  } else parseId(threshold, 0);
  return [{ by, approximate, threshold }, i];
}

function applyTrim(stream: Stream, trim: Trim): number {
  if (trim.by === 'MAXLEN') {
    const maxlen = parseInteger(trim.threshold);
    return stream.trim((_, __, left) => left <= maxlen, (node, length) => length - node.length >= maxlen, trim.approximate);
  }
  const min = parseId(trim.threshold, 0);
  return stream.trim((entry) => compareIds(entry.id, min) >= 0, (node) => compareIds(node[node.length - 1]!.id, min) < 0, trim.approximate);
}

function xadd(ctx: CommandContext, [key, ...rest]: string[]): Reply {
  let i = 0;
  let create = true;
  if (upper(rest[i]) === 'NOMKSTREAM') {
    create = false;
    i++;
  }
  const [trim, next] = readTrim(rest, i);
  i = next;
  const requested = rest[i++];
  const fields = rest.slice(i);
  if (requested === undefined || fields.length === 0 || fields.length % 2 !== 0) throw new CommandError("ERR wrong number of arguments for 'xadd' command");
  const found = streamOf(ctx, key!);
  if (found === undefined && !create) return null;
  const stream = found ?? new Stream();
  const id = stream.nextId(requested, ctx.now);
  if (found === undefined) ctx.db.set(key!, { type: 'stream', value: stream });
  stream.append(id, fields);
  if (trim) applyTrim(stream, trim);
  return formatId(id);
}

/** A range bound: "(" makes it exclusive (Redis 6.2+). */
function bound(text: string, isEnd: boolean): StreamId {
  if (!text.startsWith('(')) return parseId(text, isEnd ? Number.MAX_SAFE_INTEGER : 0);
  const id = parseId(text.slice(1), isEnd ? Number.MAX_SAFE_INTEGER : 0);
  if (isEnd) return id.seq > 0 ? { ms: id.ms, seq: id.seq - 1 } : { ms: id.ms - 1, seq: Number.MAX_SAFE_INTEGER };
  return { ms: id.ms, seq: id.seq + 1 };
}

function readCount(options: string[]): number | undefined {
  if (options.length === 0) return undefined;
  if (options.length !== 2 || upper(options[0]) !== 'COUNT') syntaxError();
  return parseInteger(options[1]!);
}

function xrange(reverse: boolean) {
  return (ctx: CommandContext, [key, first, second, ...options]: string[]): Reply => {
    const count = readCount(options);
    const [from, to] = reverse ? [bound(second!, false), bound(first!, true)] : [bound(first!, false), bound(second!, true)];
    let found = streamOf(ctx, key!)?.range(from, to) ?? [];
    if (reverse) found = found.reverse();
    if (count !== undefined && count >= 0) found = found.slice(0, count);
    return found.map(entryReply);
  };
}

/** XREAD [COUNT n] [BLOCK ms] STREAMS key... id...: BLOCK answers at once, as a block whose time ran out would. */
function xread(ctx: CommandContext, args: string[]): Reply {
  let count: number | undefined;
  let i = 0;
  for (; i < args.length; i++) {
    const word = upper(args[i]);
    if (word === 'COUNT' && i + 1 < args.length) count = parseInteger(args[++i]!);
    else if (word === 'BLOCK' && i + 1 < args.length) parseInteger(args[++i]!);
    else if (word === 'STREAMS') break;
    else syntaxError();
  }
  const rest = args.slice(i + 1);
  if (i >= args.length || rest.length === 0 || rest.length % 2 !== 0) {
    throw new CommandError("ERR Unbalanced 'xread' list of streams: for each stream key an ID or '$' must be specified.");
  }
  const half = rest.length / 2;
  const after = rest.slice(half).map((id, k) => (id === '$' ? (streamOf(ctx, rest[k]!)?.lastId ?? { ms: 0, seq: 0 }) : parseId(id, 0)));
  const answered: [Reply, Reply][] = [];
  for (let k = 0; k < half; k++) {
    const stream = streamOf(ctx, rest[k]!);
    let found = (stream?.entries ?? []).filter((e) => compareIds(e.id, after[k]!) > 0);
    if (count !== undefined && count > 0) found = found.slice(0, count);
    if (found.length > 0) answered.push([rest[k]!, found.map(entryReply)]);
  }
  return answered.length === 0 ? null : new MapReply(answered);
}

export const streamCommands: CommandTable = {
  XADD: command(-5, true, xadd),
  XRANGE: command(-4, false, xrange(false)),
  XREVRANGE: command(-4, false, xrange(true)),
  XREAD: command(-4, false, xread),
  XLEN: command(2, false, (ctx, [key]) => streamOf(ctx, key!)?.entries.length ?? 0),
  XDEL: command(-3, true, (ctx, [key, ...ids]) => {
    const stream = streamOf(ctx, key!);
    const gone = new Set(ids.map((id) => formatId(parseId(id, 0))));
    if (stream === undefined) return 0;
    const before = stream.entries.length;
    stream.entries = stream.entries.filter((e) => !gone.has(formatId(e.id)));
    return before - stream.entries.length;
  }),
  XTRIM: command(-4, true, (ctx, [key, ...rest]) => {
    const [trim, next] = readTrim(rest, 0);
    if (trim === undefined || next !== rest.length) syntaxError();
    const stream = streamOf(ctx, key!);
    return stream === undefined ? 0 : applyTrim(stream, trim);
  }),
};

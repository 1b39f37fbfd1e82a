import { CommandError, MapReply, OK, parseInteger, type Reply } from '../reply.js';
import { compareIds, ConsumerGroup, formatId, parseId, Stream, type StreamEntry } from '../stream.js';
import { command, syntaxError, upper, type CommandContext, type CommandTable } from './command.js';

const entryReply = (e: StreamEntry): Reply => [formatId(e.id), [...e.fields]];

function groupOf(ctx: CommandContext, key: string, group: string, command: string): { stream: Stream; group: ConsumerGroup } {
  const stream = ctx.db.get(key, 'stream')?.value;
  const found = stream?.groups.get(group);
  if (stream === undefined || found === undefined) {
    throw new CommandError(`NOGROUP No such key '${key}' or consumer group '${group}'${command === 'XREADGROUP' ? ' in XREADGROUP with GROUP option' : ''}`);
  }
  return { stream, group: found };
}

/** XGROUP CREATE key group id|$ [MKSTREAM], XGROUP DESTROY key group. */
function xgroup(ctx: CommandContext, [sub, key, name, id, ...options]: string[]): Reply {
  const word = upper(sub);
  if (word === 'CREATE') {
    if (key === undefined || name === undefined || id === undefined) throw new CommandError("ERR wrong number of arguments for 'xgroup|create' command");
    const create = options.some((o) => upper(o) === 'MKSTREAM');
    if (options.some((o) => upper(o) !== 'MKSTREAM')) syntaxError();
    let stream = ctx.db.get(key, 'stream')?.value;
    if (stream === undefined) {
      if (!create) {
        throw new CommandError('ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to use the MKSTREAM option to create an empty stream automatically.');
      }
      stream = new Stream();
      ctx.db.set(key, { type: 'stream', value: stream });
    }
    if (stream.groups.has(name)) throw new CommandError('BUSYGROUP Consumer Group name already exists');
    stream.groups.set(name, new ConsumerGroup(id === '$' ? stream.lastId : parseId(id, 0)));
    return OK;
  }
  if (word === 'DESTROY' && key !== undefined && name !== undefined && id === undefined) {
    const stream = ctx.db.get(key, 'stream')?.value;
    if (stream === undefined) throw new CommandError('ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to use the MKSTREAM option to create an empty stream automatically.');
    return stream.groups.delete(name) ? 1 : 0;
  }
  throw new CommandError(`ERR unknown subcommand '${sub}'. Try XGROUP HELP.`);
}

/**
 * XREADGROUP GROUP group consumer [COUNT n] [BLOCK ms] [NOACK] STREAMS key... id...: ">" hands
 * out entries never delivered to the group (pending until acknowledged), another id reads back
 * the consumer's own pending entries after it. BLOCK answers at once.
 */
function xreadgroup(ctx: CommandContext, args: string[]): Reply {
  if (upper(args[0]) !== 'GROUP' || args.length < 3) syntaxError();
  const [, groupName, consumer] = args as [string, string, string];
  let count: number | undefined;
  let noAck = false;
  let i = 3;
  for (; i < args.length; i++) {
    const word = upper(args[i]);
    if (word === 'COUNT' && i + 1 < args.length) count = parseInteger(args[++i]!);
    else if (word === 'BLOCK' && i + 1 < args.length) parseInteger(args[++i]!);
    else if (word === 'NOACK') noAck = true;
    else if (word === 'STREAMS') break;
    else syntaxError();
  }
  const rest = args.slice(i + 1);
  if (i >= args.length || rest.length === 0 || rest.length % 2 !== 0) {
    throw new CommandError("ERR Unbalanced 'xreadgroup' list of streams: for each stream key an ID or '>' must be specified.");
  }
  const half = rest.length / 2;
  const limit = count !== undefined && count > 0 ? count : Infinity;
  const answered: [Reply, Reply][] = [];
  for (let k = 0; k < half; k++) {
    const key = rest[k]!;
    const { stream, group } = groupOf(ctx, key, groupName, 'XREADGROUP');
    group.consumers.add(consumer);
    const from = rest[half + k]!;
    if (from === '>') {
      const fresh = stream.entries.filter((e) => compareIds(e.id, group.lastId) > 0).slice(0, limit);
      if (fresh.length === 0) continue;
      for (const e of fresh) {
        group.lastId = e.id;
        if (!noAck) group.pending.set(formatId(e.id), { id: e.id, consumer, deliveredAt: ctx.now, deliveries: 1 });
      }
      answered.push([key, fresh.map(entryReply)]);
    } else {
      const after = parseId(from, 0);
      const own = group
        .pendingInOrder()
        .filter((p) => p.consumer === consumer && compareIds(p.id, after) > 0)
        .slice(0, limit);
      answered.push([
        key,
        own.map((p) => {
          const e = stream.entry(p.id);
          return e === undefined ? [formatId(p.id), null] : entryReply(e);
        }),
      ]);
    }
  }
  return answered.length === 0 ? null : new MapReply(answered);
}

/**
 * XAUTOCLAIM key group consumer min-idle start [COUNT n] [JUSTID]: pending entries idle that long
 * move to the consumer (their delivery count up unless JUSTID); entries deleted from the stream
 * leave the pending list and are named in the third element (Redis 7).
 */
function xautoclaim(ctx: CommandContext, [key, groupName, consumer, minIdle, start, ...options]: string[]): Reply {
  const idle = parseInteger(minIdle!, 'ERR Invalid min-idle-time argument for XAUTOCLAIM');
  let count = 100;
  let justId = false;
  for (let i = 0; i < options.length; i++) {
    const word = upper(options[i]);
    if (word === 'COUNT' && i + 1 < options.length) {
      count = parseInteger(options[++i]!);
      if (count < 1) throw new CommandError('ERR COUNT must be > 0');
    } else if (word === 'JUSTID') justId = true;
    else syntaxError();
  }
  const from = parseId(start!, 0);
  const { stream, group } = groupOf(ctx, key!, groupName!, 'XAUTOCLAIM');
  group.consumers.add(consumer!);
  const claimed: Reply[] = [];
  const deleted: Reply[] = [];
  let attempts = count * 10;
  let next = '0-0';
  for (const p of group.pendingInOrder()) {
    if (compareIds(p.id, from) < 0) continue;
    if (attempts-- <= 0 || claimed.length >= count) {
      next = formatId(p.id);
      break;
    }
    const entry = stream.entry(p.id);
    if (entry === undefined) {
      group.pending.delete(formatId(p.id));
      deleted.push(formatId(p.id));
      continue;
    }
    if (ctx.now - p.deliveredAt < idle) continue;
    p.consumer = consumer!;
    p.deliveredAt = ctx.now;
    if (!justId) p.deliveries++;
    claimed.push(justId ? formatId(p.id) : entryReply(entry));
  }
  return [next, claimed, deleted];
}

export const streamGroupCommands: CommandTable = {
  XGROUP: command(-2, true, xgroup),
  XREADGROUP: command(-7, true, xreadgroup),
  XACK: command(-4, true, (ctx, [key, groupName, ...ids]) => {
    const stream = ctx.db.get(key!, 'stream')?.value;
    const group = stream?.groups.get(groupName!);
    if (group === undefined) return 0;
    return ids.filter((id) => group.pending.delete(formatId(parseId(id, 0)))).length;
  }),
  XAUTOCLAIM: command(-6, true, xautoclaim),
};

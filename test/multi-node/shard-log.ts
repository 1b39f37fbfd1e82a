/** What a sharded node's JSON log says about the shards it owns. */

interface ShardLine {
  readonly time: number;
  readonly shard: number;
  readonly gained: boolean;
}

function shardLines(log: string): ShardLine[] {
  const lines: ShardLine[] = [];
  for (const line of log.split('\n')) {
    const gained = line.includes('this node now owns a shard');
    if (!gained && !line.includes('this node no longer owns a shard')) continue;
    try {
      const entry = JSON.parse(line) as { time?: number | string; shard?: number };
      if (typeof entry.shard === 'number') lines.push({ time: typeof entry.time === 'string' ? Date.parse(entry.time) : Number(entry.time), shard: entry.shard, gained });
    } catch {
      // a line cut in two by the pipe: the next read has it whole
    }
  }
  return lines;
}

/** The shards the node owns now, by its log. */
export function ownedShards(log: string): Set<number> {
  const owned = new Set<number>();
  for (const { shard, gained } of shardLines(log)) {
    if (gained) owned.add(shard);
    else owned.delete(shard);
  }
  return owned;
}

/** When (the node's clock, ms) it first owned `count` shards at once, by its log. */
export function ownedAt(log: string, count: number): number | undefined {
  const owned = new Set<number>();
  for (const { shard, gained, time } of shardLines(log)) {
    if (gained) owned.add(shard);
    else owned.delete(shard);
    if (owned.size >= count) return time;
  }
  return undefined;
}

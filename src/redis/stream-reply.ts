export type StreamEntry = [id: string, fields: string[]];

/**
 * Entries of the one stream an XREADGROUP named. RESP2 answers [[key, entries]]; RESP3 (ioredis'
 * default) answers a map, which ioredis' legacy mapping flattens to [key, entries].
 */
export function entriesOfRead(reply: unknown): StreamEntry[] {
  if (reply === null || reply === undefined) return [];
  const r = reply as unknown[];
  if (typeof r[0] === 'string') return (r[1] as StreamEntry[] | undefined) ?? [];
  return ((r[0] as [string, StreamEntry[]] | undefined)?.[1]) ?? [];
}

/**
 * Each stream an XREAD of several streams answered, with its entries (streams with none are left
 * out). RESP2: [[key, entries], ...]; RESP3 flattened by ioredis: [key, entries, key, entries, ...].
 */
export function streamsOfRead(reply: unknown): [key: string, entries: StreamEntry[]][] {
  if (reply === null || reply === undefined) return [];
  const r = reply as unknown[];
  if (typeof r[0] !== 'string') return r as [string, StreamEntry[]][];
  const out: [string, StreamEntry[]][] = [];
  for (let i = 0; i + 1 < r.length; i += 2) out.push([r[i] as string, r[i + 1] as StreamEntry[]]);
  return out;
}

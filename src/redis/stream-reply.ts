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

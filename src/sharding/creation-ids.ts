/**
 * A shard's owner prefixes the ids it makes (creation request ids, reservation tokens) with its
 * shard, so any node can tell which shard ordered a CreateGame from the id alone. A game server
 * that reconnects to another node lists the orders it is still making (`Hello.pending_creations`)
 * and answers them there; that node never saw the orders, and without the shard in the id it could
 * neither tell each owner which of its orders are still coming nor route the answer back.
 */
const TAGGED = /^s(\d{1,4})\./;

/** What a shard's owner puts before each id it makes. */
export function shardIdPrefix(shard: number): string {
  return `s${shard}.`;
}

/** The shard an id was made by, if it carries one (a server may send anything: the caller checks it hosts that shard). */
export function shardOfId(id: string): number | undefined {
  const tagged = TAGGED.exec(id);
  return tagged ? Number(tagged[1]) : undefined;
}

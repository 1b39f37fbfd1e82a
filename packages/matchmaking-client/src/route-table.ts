import type { AttributeValue } from '@gamefactory/protocol/v1/attributes';
import type { FindGameRequest } from '@gamefactory/protocol/v1/matchmaker';

/** Most keys remembered; past it the oldest route is dropped (a client of endless partitions stays bounded). */
const MAX_ROUTES = 10_000;

/**
 * Where to send a find first. In a sharded cluster every factory has one owner node; a node that
 * relays a find to another node's shard names that owner in the ticket's first update
 * (`FindGameUpdate.owner_address`, a route hint). The table remembers it per template and
 * partition (what selects the factory), so the next find of that key goes straight to the owner,
 * the way Kafka and Redis Cluster clients go to a partition's leader. Any node still takes any
 * find: a stale route costs one relay hop, and the answer's next hint corrects it.
 *
 * Only addresses `accepts` allows are learned (by default the ones the client was configured
 * with), so a node cannot send the client anywhere else.
 */
export class RouteTable {
  private readonly routes = new Map<string, string>();
  /** The keys routed to each address, so a failed node is forgotten in one step however many tickets report it. */
  private readonly keysOf = new Map<string, Set<string>>();

  constructor(
    private readonly accepts: (address: string) => boolean,
    private readonly maxRoutes = MAX_ROUTES,
  ) {}

  /** A find's key: its template and partition attributes, in a canonical order (the factory they select). */
  static keyOf(request: Pick<FindGameRequest, 'template' | 'partitionAttributes'>): string {
    let key = `${request.template.length}:${request.template}`;
    for (const name of Object.keys(request.partitionAttributes).sort()) {
      const value = valueText(request.partitionAttributes[name]);
      key += `|${name.length}:${name}=${value.length}:${value}`;
    }
    return key;
  }

  /** The owner last learned for this key, if any. */
  get(key: string): string | undefined {
    return this.routes.get(key);
  }

  /** A hint: the owner of the key's factory is at `address`. False when the address is not one the table accepts. */
  learn(key: string, address: string): boolean {
    if (!this.accepts(address)) return false;
    const before = this.routes.get(key);
    if (before === address) return true;
    if (before !== undefined) this.keysOf.get(before)?.delete(key);
    else if (this.routes.size >= this.maxRoutes) this.dropOldest();
    this.routes.set(key, address);
    let keys = this.keysOf.get(address);
    if (!keys) this.keysOf.set(address, (keys = new Set()));
    keys.add(key);
    return true;
  }

  /** The node at `address` failed (UNAVAILABLE, or no connection): no find goes there first until a hint names it again. */
  forget(address: string): void {
    const keys = this.keysOf.get(address);
    if (!keys) return;
    this.keysOf.delete(address);
    for (const key of keys) this.routes.delete(key);
  }

  get size(): number {
    return this.routes.size;
  }

  private dropOldest(): void {
    const oldest = this.routes.keys().next();
    if (oldest.done) return;
    const address = this.routes.get(oldest.value)!;
    this.routes.delete(oldest.value);
    this.keysOf.get(address)?.delete(oldest.value);
  }
}

function valueText(value: AttributeValue | undefined): string {
  const kind = value?.kind;
  if (!kind) return '';
  if (kind.$case === 'bytesValue') return `x${Buffer.from(kind.value).toString('base64')}`;
  return `${kind.$case[0]}${String(kind.value)}`;
}

/** host:port with a port 1-65535 (an IPv6 host in brackets): what an unlisted address must look like to be followed. */
export function isHostPort(address: string): boolean {
  const match = /^(\[[0-9A-Fa-f:.]+\]|[^\s:[\]/]+):(\d{1,5})$/.exec(address);
  return match !== null && Number(match[2]) >= 1 && Number(match[2]) <= 65535;
}

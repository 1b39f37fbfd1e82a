import { isIP } from 'node:net';

/**
 * A node's client-facing address (`--advertise-address`): what it publishes with its cluster
 * membership, and what other nodes name in a route hint (FindGameUpdate.owner_address) when they
 * relay a find to a shard it owns. Clients dial it, so it must be an address, not "every
 * interface".
 */

const FLAG = '--advertise-address';

/** 0.0.0.0, :: (and its longer spellings), or empty: a listen host meaning every interface. */
export function isUnspecifiedHost(host: string): boolean {
  if (host === '' || host === '0.0.0.0') return true;
  return isIP(host) === 6 && /^[0:]+$/.test(host);
}

/** host:port as a client writes it: an IPv6 host in brackets. */
export function joinHostPort(host: string, port: number): string {
  return isIP(host) === 6 ? `[${host}]:${port}` : `${host}:${port}`;
}

/**
 * The default: the gRPC address actually bound (the port chosen when it listens on port 0), or,
 * when it listens on every interface, this machine's hostname with that port (what other
 * machines resolve it by).
 */
export function defaultAdvertiseAddress(listenHost: string, boundPort: number, hostname: string): string {
  return joinHostPort(isUnspecifiedHost(listenHost) ? hostname : listenHost, boundPort);
}

/** A given `--advertise-address`, checked: host:port with a port 1-65535, a host a client can dial. */
export function parseAdvertiseAddress(value: string): string {
  const match = /^(\[[0-9A-Fa-f:.]+\]|[^\s:[\]/]+):(\d{1,5})$/.exec(value);
  const port = match ? Number(match[2]) : NaN;
  if (!match || !(port >= 1 && port <= 65535)) {
    throw new Error(`${FLAG}: "${value}" is not host:port (a port from 1 to 65535; an IPv6 host in brackets, [::1]:50051)`);
  }
  const host = match[1]!.replace(/^\[(.*)\]$/, '$1');
  if (match[1]!.startsWith('[') && isIP(host) !== 6) throw new Error(`${FLAG}: "${value}": ${match[1]} is not an IPv6 address`);
  if (isUnspecifiedHost(host)) throw new Error(`${FLAG}: "${value}" names every interface, not an address clients can reach; give this node's hostname or IP`);
  return value;
}

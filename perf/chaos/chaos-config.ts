/**
 * The factories of a chaos run: 64 cooperative factories of four players (the load's) and 64 of
 * one player (the failover run's: every ticket needs a game of its own, so with no free slot they
 * all wait in one queue), with their names and shards as every node computes them.
 */
import { valueKey } from '../../src/attributes/attribute-value.js';
import { parseConfig } from '../../src/config/load.js';
import { FactoryRegistry } from '../../src/factories/factory-registry.js';
import { DEFAULT_SHARD_COUNT, shardOfFactory } from '../../src/sharding/index.js';

export const ZONES = Array.from({ length: 64 }, (_, i) => `z${String(i).padStart(2, '0')}`);
export const TICKET_TTL_MS = 120_000;
export const MAX_PLAYERS: Record<string, number> = { chaos: 4, solo: 1 };

export const CONFIG_YAML = `
placement: { policy: fill, createTimeoutMs: 5000, maxQueuedPerFactory: 100000, ticketTtlSeconds: ${TICKET_TTL_MS / 1000} }
servers: { keepaliveIntervalMs: 5000 }
factories:
  - name: chaos
    partitioning: { zone: [${ZONES.join(', ')}] }
    cooperative: { maxPlayers: ${MAX_PLAYERS.chaos}, order: fill, reservationMs: 10000 }
  - name: solo
    partitioning: { zone: [${ZONES.join(', ')}] }
    cooperative: { maxPlayers: ${MAX_PLAYERS.solo}, order: fill, reservationMs: 10000 }
`;

export interface ChaosFactory {
  readonly partition: Record<string, string>;
  readonly name: string;
  readonly shard: number;
}

const registry = new FactoryRegistry(parseConfig(CONFIG_YAML, 'chaos.yaml').templates, () => null);

export function factoriesOf(template: 'chaos' | 'solo'): ChaosFactory[] {
  return ZONES.map((zone) => {
    const name = registry.resolve(template, new Map([['zone', valueKey({ kind: 'string', value: zone })]]));
    return { partition: { zone }, name, shard: shardOf(name) };
  });
}

export function shardOf(factory: string): number {
  return shardOfFactory(factory, DEFAULT_SHARD_COUNT);
}

import type { ClusterPorts } from '../ports.js';
import { ArrivalCounter } from './arrival-counter.js';
import { LocalDelivery } from './local-delivery.js';
import { PlayerClaims } from './player-claims.js';

export { ArrivalCounter, LocalDelivery, PlayerClaims };

/** The embedded deployment: one node, every cluster-wide port in memory. */
export function inProcessCluster(): ClusterPorts {
  return { arrivals: new ArrivalCounter(), players: new PlayerClaims(), orders: new LocalDelivery() };
}

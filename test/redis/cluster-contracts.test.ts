/**
 * Core's port contract tables (test/contracts/) against the Redis adapters, on one redis-server
 * and on a 3-master Redis Cluster. Each case gets adapters on fresh keys (a unique prefix per
 * case would need key options everywhere; fresh ids per case are enough since every case names
 * its own players, servers and counters... except the shared ones below, which use a fresh key).
 */
import { afterAll, describe } from 'vitest';
import { arrivalSequenceCases } from '../contracts/arrival-sequence.contract.js';
import { runContract } from '../contracts/contract.js';
import { orderDeliveryCases } from '../contracts/order-delivery.contract.js';
import { playerIndexCases } from '../contracts/player-index.contract.js';
import { RedisArrivalSequence } from '../../src/redis/arrival-sequence.js';
import { playerKeys, routeKeys } from '../../src/redis/keys.js';
import { RedisOrderDelivery } from '../../src/redis/order-delivery.js';
import { RedisPlayerIndex } from '../../src/redis/player-index.js';
import { redisTargets } from './redis-targets.js';

let unique = 0;

describe.each(redisTargets())('contracts on $name', (target) => {
  const deliveries: RedisOrderDelivery[] = [];
  afterAll(async () => {
    await Promise.all(deliveries.map((d) => d.close()));
  });
  runContract('ArrivalSequence', `Redis (${target.name})`, arrivalSequenceCases, () =>
    RedisArrivalSequence.open(target.client(), `gf:{arrival-test}:${++unique}`),
  );
  // The cases reuse player and server names: start each from empty shared keys.
  runContract('PlayerIndex', `Redis (${target.name})`, playerIndexCases, async () => {
    await target.client().del(playerKeys.live);
    return RedisPlayerIndex.open(target.client());
  });
  runContract('OrderDelivery', `Redis (${target.name})`, orderDeliveryCases, async () => {
    await target.client().del(routeKeys.servers);
    const delivery = await RedisOrderDelivery.open(target.client(), `node-${++unique}`, { blockMs: 100 });
    deliveries.push(delivery);
    return delivery;
  });
});

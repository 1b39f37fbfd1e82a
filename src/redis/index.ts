/** Cluster-wide state on Redis (issue 11); see README.md beside this file. */
export { RedisPlacement, type RedisPlacementOptions } from './redis-placement.js';
export { RedisFactoryLease, type LeaseAnswer } from './factory-lease.js';
export { RedisTicketBook, type TicketState, type TicketIntake, type IntakeEntry, type FencedResult } from './ticket-book.js';
export { RedisArrivalSequence } from './arrival-sequence.js';
export { RedisPlayerIndex } from './player-index.js';
export { RedisOrderDelivery, type RedisOrderDeliveryOptions } from './order-delivery.js';
export { RedisOrderOutbox, type Order, type OutboxEntry, type OrderOutboxOptions } from './order-outbox.js';
export { defineScripts, loadScriptSources, type RedisClient } from './script-set.js';
export { connectRedis, redisReady } from './connect.js';

/** Placement: which server gets a new game, and who waits for a slot (Battle.net talk, "Queueing and Distribution"). */
export { SlotLedger, type ServerCapacity, type ServerPolicy, type ServerSlotsView } from './slot-ledger.js';
export { StartRateBucket } from './start-rate-bucket.js';
export { CreationQueue, type CreationQueueOptions, type QueuedCreation } from './creation-queue.js';
export {
  DemandApportion,
  equalApportion,
  type ApportionPolicy,
  type DemandApportionOptions,
} from './apportion-policy.js';
export { DecayingRate } from './decaying-rate.js';
export { LineDepartures, QUEUED_UPDATE_MIN_INTERVAL_MS, worthTelling, type ToldQueued } from './wait-estimate.js';
export { Placement, type Drained, type Placed } from './placement.js';

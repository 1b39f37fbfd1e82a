import slotOf from 'cluster-key-slot';
import { ROOT } from '../keys.js';

/**
 * Where the cluster's claims live: a player's (the ticket holding it) and a live ticket id's (the
 * shard it is in). Each is a key of its own, but its hash tag is one of CLAIM_BUCKETS, chosen by a
 * hash of the id: on a Redis Cluster a node's claims of one tick then go out as one call per
 * bucket they fall in, not one per key (each key in its own slot, a ticket cost a script call per
 * player and for its id, for its claim and for each of its two releases). Sixteen slots still
 * spread the claims, and no single slot carries them all.
 */
export const CLAIM_BUCKETS = 16;

const SLOTS = 16_384;
const SPAN = SLOTS / CLAIM_BUCKETS;

/**
 * Bucket b's hash tag lies in the b-th sixteenth of the slot space (the first `claims:<b>.<k>`
 * that does): a Cluster whose masters hold even runs of slots, as `redis-cli --cluster create`
 * makes them, gets an even share of the buckets (3 masters: 5 or 6 each), where 16 tags hashed at
 * random would often leave one master with half of them.
 */
const TAGS: readonly string[] = Array.from({ length: CLAIM_BUCKETS }, (_, bucket) => {
  for (let k = 0; ; k++) {
    const tag = `claims:${bucket}.${k}`;
    if (Math.floor(slotOf(tag) / SPAN) === bucket) return tag;
  }
});

/** An id's bucket: FNV-1a of its UTF-16 code units. */
export function claimBucket(id: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) hash = Math.imul(hash ^ id.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % CLAIM_BUCKETS;
}

/** A player's claim: the ticket holding the player. The id follows the tag, so every id is a key of its own, braces included. */
export const playerClaimKey = (playerId: string) => `${ROOT}:{${TAGS[claimBucket(playerId)]}}:player:${playerId}`;

/** A live ticket id's claim: the shard its ticket is in. */
export const ticketClaimKey = (ticketId: string) => `${ROOT}:{${TAGS[claimBucket(ticketId)]}}:ticket:${ticketId}`;

/** The hash tag of a claim key (what a Cluster call groups by). */
export function claimKeyTag(key: string): string {
  return key.slice(key.indexOf('{') + 1, key.indexOf('}'));
}

/** The slot of a bucket's tag. */
export const claimBucketSlot = (bucket: number) => slotOf(TAGS[bucket]!);

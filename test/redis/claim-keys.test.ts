import slotOf from 'cluster-key-slot';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CLAIM_BUCKETS, claimBucket, claimBucketSlot, claimKeyTag, playerClaimKey, ticketClaimKey } from '../../src/redis/shards/claim-keys.js';

/** Claim keys: a key per player and per live ticket id, in one of CLAIM_BUCKETS slots spread over the slot space. */
describe('player claim keys', () => {
  it("a key is in its bucket's slot, its tag is that slot's, and each bucket's slot is in its own sixteenth of the slot space", () => {
    const span = 16_384 / CLAIM_BUCKETS;
    for (let bucket = 0; bucket < CLAIM_BUCKETS; bucket++) expect(Math.floor(claimBucketSlot(bucket) / span)).toBe(bucket);
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), (id) => {
        for (const key of [playerClaimKey(id), ticketClaimKey(id)]) {
          expect(slotOf(key)).toBe(claimBucketSlot(claimBucket(id)));
          expect(slotOf(claimKeyTag(key))).toBe(slotOf(key));
        }
      }),
    );
  });

  it('gives distinct ids distinct keys, braces included (they once shared one: "a{b" and "a_b"), and a player and a ticket of one id two', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 20 }), fc.string({ maxLength: 20 }), (a, b) => {
        expect(playerClaimKey(a)).not.toBe(ticketClaimKey(b));
        fc.pre(a !== b);
        expect(playerClaimKey(a)).not.toBe(playerClaimKey(b));
        expect(ticketClaimKey(a)).not.toBe(ticketClaimKey(b));
      }),
    );
    expect(playerClaimKey('a{b')).not.toBe(playerClaimKey('a_b'));
  });

  it('spreads players evenly over the buckets: a 3-master Cluster of even slot runs gets 5 or 6 buckets each', () => {
    const counts = new Array<number>(CLAIM_BUCKETS).fill(0);
    for (let i = 0; i < 64_000; i++) counts[claimBucket(`player-${i * 7919}`)]!++;
    for (const count of counts) expect(count).toBeGreaterThan((64_000 / CLAIM_BUCKETS) * 0.9);
    const perMaster = [0, 0, 0];
    for (let bucket = 0; bucket < CLAIM_BUCKETS; bucket++) perMaster[Math.min(2, Math.floor(claimBucketSlot(bucket) / 5461))]!++;
    for (const n of perMaster) expect([5, 6]).toContain(n);
  });
});

import { DEFAULT_LIMITS, type Limits } from '../../../src/security/limits/limits-config.js';
import { PeerLimits } from '../../../src/security/limits/peer-limits.js';
import { defineCase } from '../case.js';

/**
 * Per-peer limits run on every call start and every stream message, so their cost must not grow
 * with the number of peers tracked (up to `maxTrackedPeers`, 100k by default): O(1) in n, like
 * slot claims (DESIGN.md, "Complexity budgets"). Rates are set high enough that nothing is
 * refused; the clock advances 10 µs a call.
 */
const rate = { perSecond: 1_000_000, burst: 10_000_000 };
const limitsFor = (n: number): Limits => ({
  ...DEFAULT_LIMITS,
  rate: { findGame: rate, findGames: rate, queryStats: rate, cancelFind: rate, ratings: rate },
  maxTrackedPeers: n,
});

const address = (k: number) => `10.${k >> 16}.${(k >> 8) & 255}.${k & 255}`;

/** n tracked peers, the first `holding` of them with a stream open; the last one is the busy peer. */
function trackedPeers(n: number, holding: number) {
  const peerLimits = new PeerLimits(limitsFor(n));
  for (let k = 0; k < n; k++) {
    peerLimits.admit(address(k), undefined, 'findGame', 0);
    if (k < holding) peerLimits.openStream(address(k), 0);
  }
  return { peerLimits, busy: address(n - 1) };
}

export default [
  defineCase({
    // A game server or an unexempt gateway sending many messages among many tracked addresses.
    name: "security: one busy peer's admit among n tracked peers",
    budget: 'O(1)',
    setup: (n) => {
      const tracked = trackedPeers(n, 0);
      // A busy peer is measured in its steady state, having sent many messages already: the first
      // few thousand calls after a Map is built can hide a cost that grows with each call (a V8
      // Map's delete and set of one key grows its hash chain until the table is rebuilt, every
      // ~n such moves), and the suite makes only a few thousand calls a size.
      for (let k = 0; k < n / 2; k++) tracked.peerLimits.admit(tracked.busy, undefined, 'findGames', 0);
      return tracked;
    },
    run: ({ peerLimits, busy }, i) => {
      peerLimits.admit(busy, undefined, 'findGames', i / 100);
      return peerLimits.trackedPeers();
    },
  }),
  defineCase({
    // A flood of new addresses while the longest-known half of the peers hold streams (e.g. idle
    // health Watch streams): each new peer forgets one idle peer.
    name: 'security: a new peer among n tracked peers, half of them holding streams',
    budget: 'O(1)',
    setup: (n) => trackedPeers(n, n / 2),
    run: ({ peerLimits }, i) => {
      peerLimits.admit(`new-${i}`, undefined, 'findGame', i / 100);
      return peerLimits.trackedPeers();
    },
  }),
];

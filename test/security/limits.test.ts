import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SecurityError } from '../../src/security/errors.js';
import type { LimitEvent } from '../../src/security/limits/limit-events.js';
import { DEFAULT_LIMITS, limitsSchema, type Limits } from '../../src/security/limits/limits-config.js';
import { PeerLimits } from '../../src/security/limits/peer-limits.js';
import { checkMessageSize, IdleClock, StreamTickets } from '../../src/security/limits/stream-limits.js';
import { fullBucket, take } from '../../src/security/limits/token-bucket.js';

const limits = (over: Partial<Limits> = {}): Limits => ({ ...DEFAULT_LIMITS, ...over });

function refusal(fn: () => void): SecurityError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(SecurityError);
    return error as SecurityError;
  }
  throw new Error('expected a refusal');
}

describe('token bucket', () => {
  it('never lets more than burst + rate × elapsed through', () => {
    fc.assert(
      fc.property(
        fc.record({ perSecond: fc.integer({ min: 1, max: 1000 }), burst: fc.integer({ min: 1, max: 100 }) }),
        fc.array(fc.integer({ min: 0, max: 500 }), { maxLength: 200 }),
        (rate, gaps) => {
          const bucket = fullBucket(rate, 0);
          let now = 0;
          let admitted = 0;
          for (const gap of gaps) {
            now += gap;
            if (take(bucket, rate, now).ok) admitted += 1;
          }
          expect(admitted).toBeLessThanOrEqual(rate.burst + (rate.perSecond * now) / 1000 + 1e-9);
        },
      ),
    );
  });

  it('hints how long until the next token', () => {
    const rate = { perSecond: 4, burst: 1 };
    const bucket = fullBucket(rate, 0);
    expect(take(bucket, rate, 0)).toEqual({ ok: true });
    expect(take(bucket, rate, 0)).toEqual({ ok: false, retryAfterMs: 250 });
    expect(take(bucket, rate, 250)).toEqual({ ok: true });
  });
});

describe('PeerLimits', () => {
  it('trips the FindGame rate per peer, names the limit, counts it, and recovers', () => {
    const events: LimitEvent[] = [];
    const peerLimits = new PeerLimits(limits({ rate: { ...DEFAULT_LIMITS.rate, findGame: { perSecond: 2, burst: 3 } } }), (e) => events.push(e));
    for (let i = 0; i < 3; i++) peerLimits.admit('alice', 'player', 'findGame', 1000);
    const error = refusal(() => peerLimits.admit('alice', 'player', 'findGame', 1000));
    expect(error.code).toBe('RESOURCE_EXHAUSTED');
    expect(error.message).toBe('limit rate.findGame: 2/s per peer (burst 3) exceeded; retry in 500 ms');
    expect(error.retryAfterMs).toBe(500);
    expect(events).toEqual([{ limit: 'rate.findGame', peer: 'alice' }]);
    peerLimits.admit('bob', 'player', 'findGame', 1000); // another peer is untouched
    peerLimits.admit('alice', 'player', 'queryStats', 1000); // another family too
    peerLimits.admit('alice', 'player', 'findGame', 1500); // recovered
  });

  it('exempts gateways from rates by default', () => {
    const peerLimits = new PeerLimits(limits({ rate: { ...DEFAULT_LIMITS.rate, findGames: { perSecond: 1, burst: 1 } } }));
    for (let i = 0; i < 100; i++) peerLimits.admit('gw', 'gateway', 'findGames', 0);
    expect(() => peerLimits.admit('p', 'player', 'findGames', 0)).not.toThrow();
    expect(refusal(() => peerLimits.admit('p', 'player', 'findGames', 0)).message).toMatch(/^limit rate.findGames/);
  });

  it('caps concurrent streams per peer and frees a slot on release (once)', () => {
    const events: LimitEvent[] = [];
    const peerLimits = new PeerLimits(limits({ maxStreamsPerPeer: 2 }), (e) => events.push(e));
    const first = peerLimits.openStream('10.0.0.1', 0);
    peerLimits.openStream('10.0.0.1', 0);
    expect(refusal(() => peerLimits.openStream('10.0.0.1', 0)).message).toBe('limit maxStreamsPerPeer: 2 open streams per peer reached');
    first();
    first();
    expect(peerLimits.openStreams('10.0.0.1')).toBe(1);
    peerLimits.openStream('10.0.0.1', 0);
    expect(events.map((e) => e.limit)).toEqual(['maxStreamsPerPeer']);
  });

  it('keeps memory bounded: a flood of peers never tracks more than maxTrackedPeers, and peers at rest are swept', () => {
    const peerLimits = new PeerLimits(limits({ maxTrackedPeers: 16 }));
    const held = peerLimits.openStream('holder', 0);
    for (let i = 0; i < 1000; i++) peerLimits.admit(`ip-${i}`, undefined, 'findGame', 0);
    expect(peerLimits.trackedPeers()).toBeLessThanOrEqual(16);
    expect(peerLimits.openStreams('holder')).toBe(1); // a peer with a stream is never evicted
    peerLimits.sweep(60_000);
    expect(peerLimits.trackedPeers()).toBe(1);
    held();
    peerLimits.sweep(60_000);
    expect(peerLimits.trackedPeers()).toBe(0);
  });
});

describe('PeerLimits recency', () => {
  // A rate that never refills at a clock held at 0: a peer's first admit passes and the next is
  // refused while it is tracked, so an admit's outcome tells whether the peer was forgotten.
  const oneShot = { perSecond: 1e-9, burst: 1 };
  const oneShotLimits = (maxTrackedPeers: number): Limits =>
    limits({ maxTrackedPeers, maxStreamsPerPeer: 1000, rate: { ...DEFAULT_LIMITS.rate, findGame: oneShot } });
  const admitted = (peerLimits: PeerLimits, peer: string): boolean => {
    try {
      peerLimits.admit(peer, undefined, 'findGame', 0);
      return true;
    } catch (error) {
      if (error instanceof SecurityError && error.message.startsWith('limit rate.findGame')) return false;
      throw error;
    }
  };

  // A few more peers than fit, so peers are often forgotten and often come back while tracked.
  const PEERS = 24;
  type Op = { kind: 'admit' | 'open'; peer: number } | { kind: 'release'; index: number } | { kind: 'sweep' };
  const op: fc.Arbitrary<Op> = fc.oneof(
    { weight: 6, arbitrary: fc.record({ kind: fc.constant('admit' as const), peer: fc.integer({ min: 0, max: PEERS - 1 }) }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('open' as const), peer: fc.integer({ min: 0, max: PEERS - 1 }) }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('release' as const), index: fc.nat() }) },
    { weight: 1, arbitrary: fc.constant({ kind: 'sweep' as const }) },
  );

  it('forgets the longest-idle peer without streams, never one holding streams, and tracks at most maxTrackedPeers', () => {
    fc.assert(
      fc.property(fc.integer({ min: 16, max: 20 }), fc.array(op, { maxLength: 300, size: 'max' }), (max, ops) => {
        const peerLimits = new PeerLimits(oneShotLimits(max));
        // The model: tracked peers in recency order (least recent first), their streams, and
        // whether they spent their one findGame token.
        const model = new Map<string, { streams: number; spent: boolean }>();
        const held: { peer: string; release: () => void }[] = [];
        const touch = (peer: string): 'refused' | 'tracked' => {
          const known = model.get(peer);
          if (known) {
            model.delete(peer);
            model.set(peer, known);
            return 'tracked';
          }
          if (model.size >= max) {
            const longestIdle = [...model].find(([, m]) => m.streams === 0)?.[0];
            if (longestIdle === undefined) return 'refused';
            model.delete(longestIdle);
          }
          model.set(peer, { streams: 0, spent: false });
          return 'tracked';
        };
        for (const o of ops) {
          if (o.kind === 'admit' || o.kind === 'open') {
            const peer = `p${o.peer}`;
            const call = () => (o.kind === 'admit' ? admitted(peerLimits, peer) : held.push({ peer, release: peerLimits.openStream(peer, 0) }));
            if (touch(peer) === 'refused') {
              expect(refusal(call).message).toBe(`limit maxTrackedPeers: all ${max} peers tracked hold open streams; retry in 1000 ms`);
              continue;
            }
            const m = model.get(peer)!;
            if (o.kind === 'admit') {
              expect(call()).toBe(!m.spent);
              m.spent = true;
            } else {
              call();
              m.streams += 1;
            }
          } else if (o.kind === 'release' && held.length > 0) {
            const [{ peer, release }] = held.splice(o.index % held.length, 1) as [{ peer: string; release: () => void }];
            release();
            const m = model.get(peer)!;
            m.streams -= 1;
            if (m.streams === 0) {
              // Ending its last stream makes the peer the most recent idle one.
              model.delete(peer);
              model.set(peer, m);
            }
          } else if (o.kind === 'sweep') {
            peerLimits.sweep(0);
            for (const [peer, m] of model) if (m.streams === 0 && !m.spent) model.delete(peer);
          }
          // Plain comparisons: an expect per peer per step made this test take seconds.
          const streams = (of: (peer: string) => number) => Array.from({ length: PEERS }, (_, k) => of(`p${k}`)).join();
          if (peerLimits.trackedPeers() !== model.size || streams((p) => peerLimits.openStreams(p)) !== streams((p) => model.get(p)?.streams ?? 0)) {
            expect({ tracked: peerLimits.trackedPeers(), streams: streams((p) => peerLimits.openStreams(p)) }).toEqual({
              tracked: model.size,
              streams: streams((p) => model.get(p)?.streams ?? 0),
            });
          }
        }
        expect(peerLimits.trackedPeers()).toBeLessThanOrEqual(max);
      }),
    );
  });

  it('keeps a busy peer through a flood of new addresses, however large', () => {
    fc.assert(
      fc.property(fc.integer({ min: 16, max: 64 }), fc.integer({ min: 1, max: 1000 }), fc.integer({ min: 1, max: 63 }), (max, flood, every) => {
        fc.pre(every < max);
        const peerLimits = new PeerLimits(oneShotLimits(max));
        admitted(peerLimits, 'gateway');
        let forgotten = 0;
        for (let i = 0; i < flood; i++) {
          peerLimits.admit(`ip-${i}`, undefined, 'findGame', 0);
          // Still tracked, so its bucket is still empty: a flood does not reset a busy peer's rate.
          if (i % every === 0 && admitted(peerLimits, 'gateway')) forgotten += 1;
        }
        expect(forgotten).toBe(0);
        expect(peerLimits.trackedPeers()).toBe(Math.min(max, flood + 1));
      }),
    );
  });

  it('refuses a new peer, naming the limit, while every tracked peer holds a stream', () => {
    const events: LimitEvent[] = [];
    const peerLimits = new PeerLimits(limits({ maxTrackedPeers: 16 }), (e) => events.push(e));
    const releases = Array.from({ length: 16 }, (_, i) => peerLimits.openStream(`watcher-${i}`, 0));
    const error = refusal(() => peerLimits.admit('newcomer', undefined, 'findGame', 0));
    expect(error.code).toBe('RESOURCE_EXHAUSTED');
    expect(error.message).toBe('limit maxTrackedPeers: all 16 peers tracked hold open streams; retry in 1000 ms');
    expect(error.retryAfterMs).toBe(1000);
    expect(events).toEqual([{ limit: 'maxTrackedPeers', peer: 'newcomer' }]);
    expect(peerLimits.trackedPeers()).toBe(16);
    peerLimits.openStream('watcher-3', 0); // a tracked peer is still let in
    releases[5]!();
    peerLimits.admit('newcomer', undefined, 'findGame', 0); // takes the place of the peer that went idle
    expect(peerLimits.openStreams('watcher-5')).toBe(0);
    expect(peerLimits.trackedPeers()).toBe(16);
  });
});

describe('stream limits', () => {
  it('caps tickets in flight on one FindGames stream', () => {
    const events: LimitEvent[] = [];
    const tickets = new StreamTickets({ maxTicketsInFlightPerStream: 2 }, 'gw', (e) => events.push(e));
    tickets.add('a');
    tickets.add('b');
    tickets.add('b'); // a retry of a ticket already counted
    expect(refusal(() => tickets.add('c')).message).toBe('limit maxTicketsInFlightPerStream: 2 tickets already waiting on this stream');
    tickets.remove('a');
    tickets.add('c');
    expect(events).toEqual([{ limit: 'maxTicketsInFlightPerStream', peer: 'gw' }]);
  });

  it('tells when a stream goes idle, and touching it pushes that back', () => {
    const idle = new IdleClock(1000, 0);
    expect(idle.isIdle(999)).toBe(false);
    idle.touch(500);
    expect(idle.remainingMs(1000)).toBe(500);
    expect(idle.isIdle(1500)).toBe(true);
  });

  it('names the message size limit', () => {
    expect(refusal(() => checkMessageSize(2048, { maxMessageBytes: 1024 }, 'p')).message).toBe('limit maxMessageBytes: a message of 2048 bytes exceeds 1024');
    expect(() => checkMessageSize(1024, { maxMessageBytes: 1024 }, 'p')).not.toThrow();
  });
});

describe('limits config', () => {
  it('has documented defaults and refuses nonsense with the field named', () => {
    expect(DEFAULT_LIMITS.maxStreamsPerPeer).toBe(32);
    expect(DEFAULT_LIMITS.rate.findGame).toEqual({ perSecond: 10, burst: 20 });
    expect(limitsSchema.parse({ rate: { findGame: { perSecond: 1 } } }).rate.findGame).toEqual({ perSecond: 1, burst: 20 });
    const result = limitsSchema.safeParse({ maxStreamsPerPeer: 0 });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(['maxStreamsPerPeer']);
  });
});

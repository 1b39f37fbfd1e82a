import { status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, SecureProcess, until } from './secure-process.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Each limit of factories.yaml `limits:` tripped and recovered on the real process over TLS, and
 * counted in gamefactory_limit_refusals_total{limit} (issue 14).
 */
describe('limits on a running coordinator', () => {
  let p: SecureProcess;
  beforeAll(async () => {
    p = await SecureProcess.start(`limits:
  rate: { findGame: { perSecond: 5, burst: 6 } }
  maxStreamsPerPeer: 2
  maxTicketsInFlightPerStream: 2
  maxMessageBytes: 65536`);
    await p.gameServer(p.certs['eu-1'], 'eu-1').welcomed;
  });
  afterAll(() => p.stop());

  it('rate.findGame: a burst beyond 6 is refused with a retry hint; after it, calls pass', async () => {
    const rater = await bearer({ sub: 'rater', role: 'player' });
    // Ten at once: the bucket holds 6 and refills 5/s, so at least 3 are refused even if a busy
    // machine spreads the burst over a few hundred ms (sequential calls could outpace no bucket).
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => p.find(rater, `r-${i}`, ['rater'], { template: 'nope' }).result));
    const refused = answers.filter((a) => a.code === status.RESOURCE_EXHAUSTED);
    expect(answers.filter((a) => a.code === status.NOT_FOUND).length).toBeGreaterThanOrEqual(6);
    expect(refused.length).toBeGreaterThanOrEqual(3);
    expect(refused.length + answers.filter((a) => a.code === status.NOT_FOUND).length).toBe(10);
    for (const r of refused) expect(r.details).toMatch(/^limit rate\.findGame: 5\/s per peer \(burst 6\) exceeded; retry in \d+ ms$/);
    expect(await p.limitCount('rate.findGame')).toBe(refused.length);
    await sleep(Math.max(...refused.map((r) => Number(r.retryAfter))));
    expect((await p.find(rater, 'r-10', ['rater'], { template: 'nope' }).result).code).toBe(status.NOT_FOUND);
  });

  it('maxStreamsPerPeer: a third open stream is refused; once one ends, a new one opens', async () => {
    const streamer = await bearer({ sub: 'streamer', role: 'player', player_ids: ['s1', 's2', 's3', 's4'] });
    const first = p.find(streamer, 's-1', ['s1']);
    const second = p.find(streamer, 's-2', ['s2']);
    await Promise.all([first.waiting, second.waiting]);
    const third = await p.find(streamer, 's-3', ['s3']).result;
    expect(third).toMatchObject({ code: status.RESOURCE_EXHAUSTED, details: 'limit maxStreamsPerPeer: 2 open streams per peer reached' });
    expect(await p.limitCount('maxStreamsPerPeer')).toBe(1);
    expect(await p.cancel(streamer, 's-1')).toMatchObject({ code: status.OK, cancelled: true });
    expect((await first.result).code).toBe(status.CANCELLED);
    const fourth = p.find(streamer, 's-4', ['s4']);
    await fourth.waiting;
    expect(p.running.coordinator.view.ticket('s-4')).toBeDefined();
    fourth.call.cancel();
    second.call.cancel();
  });

  it('maxTicketsInFlightPerStream: a third waiting ticket on one FindGames stream is refused as its error; after a cancel, another is taken', async () => {
    const gateway = p.findGames(await bearer({ sub: 'gw', role: 'gateway' }));
    gateway.send('g-1', ['g1']);
    gateway.send('g-2', ['g2']);
    await until(() => p.running.coordinator.view.ticket('g-2') !== undefined);
    gateway.send('g-3', ['g3']);
    await until(() => gateway.updates.some((u) => u.ticketId === 'g-3'));
    expect(gateway.updates.find((u) => u.ticketId === 'g-3')).toMatchObject({
      update: { $case: 'error', value: { code: status.RESOURCE_EXHAUSTED, message: 'limit maxTicketsInFlightPerStream: 2 tickets already waiting on this stream' } },
    });
    expect(await p.limitCount('maxTicketsInFlightPerStream')).toBe(1);
    gateway.cancel('g-1');
    await until(() => gateway.updates.some((u) => u.ticketId === 'g-1'));
    gateway.send('g-4', ['g4']);
    await until(() => p.running.coordinator.view.ticket('g-4') !== undefined || gateway.updates.some((u) => u.ticketId === 'g-4'));
    expect(gateway.updates.find((u) => u.ticketId === 'g-4')).toBeUndefined();
    gateway.call.cancel();
  });

  it('maxMessageBytes: a 100 KB request is refused naming the limit; a normal one passes', async () => {
    const big = await p.find(await bearer({ sub: 'big', role: 'player' }), 'big', ['big'], { vetoedBytes: 100_000 }).result;
    expect(big.code).toBe(status.RESOURCE_EXHAUSTED);
    expect(big.details).toMatch(/^limit maxMessageBytes: a message of \d+ bytes exceeds 65536$/);
    expect(await p.limitCount('maxMessageBytes')).toBe(1);
    expect((await p.find(await bearer({ sub: 'big', role: 'player' }), 'small', ['big'], { template: 'nope' }).result).code).toBe(status.NOT_FOUND);
  });
});

describe('idleStreamTimeoutMs on a running coordinator', () => {
  let p: SecureProcess;
  beforeAll(async () => {
    p = await SecureProcess.start('limits: { idleStreamTimeoutMs: 1000 }');
    await p.gameServer(p.certs['eu-1'], 'eu-1').welcomed;
  });
  afterAll(() => p.stop());

  it('closes a silent FindGame stream naming the limit; a new stream is served', async () => {
    const player = await bearer({ sub: 'idler', role: 'player' });
    const idle = await p.find(player, 'idle-1', ['idler']).result;
    expect(idle).toMatchObject({ code: status.RESOURCE_EXHAUSTED, details: 'limit idleStreamTimeoutMs: no message for 1000 ms, stream closed' });
    expect(await p.limitCount('idleStreamTimeoutMs')).toBe(1);
    const again = p.find(player, 'idle-2', ['idler']);
    await again.waiting;
    expect(p.running.coordinator.view.ticket('idle-2')).toBeDefined();
    again.call.cancel();
  });
});

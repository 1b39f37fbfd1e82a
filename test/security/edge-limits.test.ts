import { Client, status, type ClientReadableStream, type ServiceError } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RatingsClient } from '../../src/generated/gamefactory/v1/ratings.js';
import { bearer, SecureProcess } from './secure-process.js';

/**
 * The calls that had no per-peer limit, tripped on the real process over TLS: unauthenticated
 * health Watch streams (counted by address against maxStreamsPerPeer), CancelFind and the
 * Ratings methods (token buckets). Each refusal is RESOURCE_EXHAUSTED naming the limit, and counted.
 */
describe('per-peer limits on health Watch, CancelFind and Ratings', () => {
  let p: SecureProcess;
  const closers: (() => void)[] = [];
  beforeAll(async () => {
    p = await SecureProcess.start(`limits:
  rate: { cancelFind: { perSecond: 1, burst: 3 }, ratings: { perSecond: 1, burst: 3 } }
  maxStreamsPerPeer: 3`);
  });
  afterAll(async () => {
    closers.forEach((c) => c());
    await p.stop();
  });

  const watch = () => {
    const client = new Client(p.address, p.tls());
    closers.push(() => client.close());
    const call: ClientReadableStream<Buffer> = client.makeServerStreamRequest('/grpc.health.v1.Health/Watch', (b: Buffer) => b, (b: Buffer) => b, Buffer.alloc(0));
    const first = new Promise<'serving' | ServiceError>((resolve) => {
      call.on('data', () => resolve('serving'));
      call.on('error', (e: ServiceError) => resolve(e));
    });
    return { call, first };
  };

  it('health Watch: streams beyond maxStreamsPerPeer from one address are refused without credentials; a closed one frees its place', async () => {
    const open = [watch(), watch(), watch()];
    for (const w of open) expect(await w.first).toBe('serving');
    const fourth = (await watch().first) as ServiceError;
    expect(fourth.code).toBe(status.RESOURCE_EXHAUSTED);
    expect(fourth.details).toBe('limit maxStreamsPerPeer: 3 open streams per peer reached');
    expect(await p.limitCount('maxStreamsPerPeer')).toBe(1);
    open[0]!.call.cancel();
    // The release follows the cancel on the server; poll until a new Watch is served.
    let again: 'serving' | ServiceError = await watch().first;
    while (again !== 'serving') again = await watch().first;
    expect(again).toBe('serving');
    for (const w of open) w.call.cancel();
  });

  it('CancelFind: a burst beyond 3 is refused with a retry hint', async () => {
    const player = await bearer({ sub: 'canceller', role: 'player' });
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => p.cancel(player, `nothing-${i}`)));
    const refused = answers.filter((a) => a.code === status.RESOURCE_EXHAUSTED);
    expect(refused.length).toBeGreaterThanOrEqual(3);
    expect(answers.length - refused.length).toBeGreaterThanOrEqual(3);
    for (const r of refused) expect(r.details).toMatch(/^limit rate\.cancelFind: 1\/s per peer \(burst 3\) exceeded; retry in \d+ ms$/);
    expect(await p.limitCount('rate.cancelFind')).toBe(refused.length);
  });

  it('Ratings: GetRating, Leaderboard and PlayerRank share one bucket per peer', async () => {
    const client = new RatingsClient(p.address, p.tls());
    closers.push(() => client.close());
    const player = await bearer({ sub: 'rater', role: 'player' });
    const call = (i: number) =>
      new Promise<ServiceError | null>((resolve) => {
        const done = (e: ServiceError | null) => resolve(e);
        if (i % 3 === 0) client.getRating({ ladder: 'none', playerId: 'rater' }, player, done);
        else if (i % 3 === 1) client.leaderboard({ ladder: 'none', offset: 0, limit: 10 }, player, done);
        else client.playerRank({ ladder: 'none', playerId: 'rater' }, player, done);
      });
    const answers = await Promise.all(Array.from({ length: 9 }, (_, i) => call(i)));
    const refused = answers.filter((e) => e?.code === status.RESOURCE_EXHAUSTED);
    expect(refused.length).toBeGreaterThanOrEqual(3);
    expect(answers.length - refused.length).toBeGreaterThanOrEqual(3);
    for (const r of refused) expect(r!.details).toMatch(/^limit rate\.ratings: 1\/s per peer \(burst 3\) exceeded; retry in \d+ ms$/);
    expect(Number(refused[0]!.metadata.get('retry-after-ms')[0])).toBeGreaterThan(0);
    expect(await p.limitCount('rate.ratings')).toBe(refused.length);
  });
});

import { credentials, Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startCoordinatorProcess, type RunningCoordinator } from '../../src/app/coordinator-process.js';
import { parseConfig } from '../../src/config/load.js';
import { silentLog } from '../../src/coordinator/ports.js';
import { MatchmakingError } from '../../src/errors/index.js';
import { MatchmakerClient, type QueryStatsResponse } from '../../src/generated/gamefactory/v1/matchmaker.js';
import type { CallGate, CallRecord } from '../../src/transport/grpc/interceptors/index.js';
import { DIABLO_YAML } from './harness.js';

describe('the gRPC interceptor chain', () => {
  let running: RunningCoordinator | undefined;
  let dir = '';
  let client: MatchmakerClient | undefined;
  afterEach(async () => {
    client?.close();
    await running?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const start = async (gates: CallGate[], ended: CallRecord[]) => {
    dir = mkdtempSync(join(tmpdir(), 'gamefactory-interceptors-'));
    running = await startCoordinatorProcess({
      config: parseConfig(DIABLO_YAML, 'test.yaml'),
      listen: '127.0.0.1:0',
      metricsListen: '127.0.0.1:0',
      dataDir: dir,
      log: silentLog,
      gates,
      onCallEnded: (r) => ended.push(r),
    });
    client = new MatchmakerClient(`127.0.0.1:${running.grpcPort}`, credentials.createInsecure());
    return client;
  };

  const stats = (c: MatchmakerClient, metadata = new Metadata()) =>
    new Promise<QueryStatsResponse | ServiceError>((resolve) =>
      c.queryStats({ factory: '', template: 'diablo', partitionAttributes: {}, predicates: [], mode: 0 }, metadata, (err, res) => resolve(err ?? res!)),
    );

  it('a gate refuses a call with its own code before the handler runs; the log records it', async () => {
    const seen: string[] = [];
    const ended: CallRecord[] = [];
    const c = await start(
      [
        async (call) => {
          seen.push(call.method);
          return call.metadata.get('authorization')[0] === 'Bearer good' ? undefined : new MatchmakingError('PERMISSION_DENIED', 'authorization: no role allows QueryStats');
        },
      ],
      ended,
    );
    const refused = (await stats(c)) as ServiceError;
    expect(refused.code).toBe(status.PERMISSION_DENIED);
    expect(refused.details).toContain('authorization');
    const metadata = new Metadata();
    metadata.set('authorization', 'Bearer good');
    const answered = await stats(c, metadata);
    expect('factories' in answered).toBe(true);
    expect(seen).toEqual(['/gamefactory.v1.Matchmaker/QueryStats', '/gamefactory.v1.Matchmaker/QueryStats']);
    expect(ended.map((r) => [r.method, r.code])).toEqual([
      ['/gamefactory.v1.Matchmaker/QueryStats', status.PERMISSION_DENIED],
      ['/gamefactory.v1.Matchmaker/QueryStats', status.OK],
    ]);
  });

  it('gates run in order and the first refusal wins (a rate limit with a retry hint)', async () => {
    const ended: CallRecord[] = [];
    let second = 0;
    const c = await start(
      [
        () => new MatchmakingError('RESOURCE_EXHAUSTED', 'too many calls; retry later', 250),
        () => {
          second++;
          return undefined;
        },
      ],
      ended,
    );
    const refused = (await stats(c)) as ServiceError;
    expect(refused.code).toBe(status.RESOURCE_EXHAUSTED);
    expect(refused.metadata.get('retry-after-ms')).toEqual(['250']);
    expect(second).toBe(0);
  });

  it('sync and async gates mix in order; a gate that throws ends the call UNAVAILABLE, not UNKNOWN', async () => {
    const ended: CallRecord[] = [];
    const order: string[] = [];
    const c = await start(
      [
        () => void order.push('sync'),
        async () => void order.push('async'),
        (call) => {
          order.push('last');
          if (call.metadata.get('x-refuse')[0] === 'yes') return new MatchmakingError('PERMISSION_DENIED', 'x-refuse: refused after an async gate');
          if (call.metadata.get('x-throw')[0] === 'yes') throw new Error('gate broke');
          return undefined;
        },
      ],
      ended,
    );
    expect('factories' in (await stats(c))).toBe(true);
    expect(order).toEqual(['sync', 'async', 'last']);
    const refuse = new Metadata();
    refuse.set('x-refuse', 'yes');
    expect(((await stats(c, refuse)) as ServiceError).code).toBe(status.PERMISSION_DENIED);
    const broken = new Metadata();
    broken.set('x-throw', 'yes');
    const failed = (await stats(c, broken)) as ServiceError;
    expect(failed.code).toBe(status.UNAVAILABLE);
    expect(failed.details).toContain('could not be checked');
  });

  it('a gate that throws at once ends the call UNAVAILABLE too', async () => {
    const c = await start(
      [
        () => {
          throw new Error('gate broke');
        },
      ],
      [],
    );
    expect(((await stats(c)) as ServiceError).code).toBe(status.UNAVAILABLE);
  });
});

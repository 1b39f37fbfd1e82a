import { credentials, status, type ServiceError } from '@grpc/grpc-js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startCoordinatorProcess } from '../../src/app/coordinator-process.js';
import { ConfigError, parseConfig } from '../../src/config/load.js';
import { silentLog } from '../../src/coordinator/ports.js';
import { MatchmakerClient } from '../../src/generated/gamefactory/v1/matchmaker.js';

// Issue 10, defect 7: keepalive times and message-size limits were hard-coded in the gRPC server.

const factories = `
factories:
  - name: duel
    competitive:
      teams: 2
      teamSize: 1
      expansion: [{ afterSeconds: 0 }]
`;

describe('the grpc section of factories.yaml', () => {
  it('has documented defaults when left out', () => {
    expect(parseConfig(factories, 'f.yaml').grpc).toEqual({
      keepaliveTimeMs: 30_000,
      keepaliveTimeoutMs: 10_000,
    });
  });

  it('takes each setting, the others keeping their defaults', () => {
    const config = parseConfig(`grpc: { keepaliveTimeMs: 60000 }\n${factories}`, 'f.yaml');
    expect(config.grpc).toEqual({
      keepaliveTimeMs: 60_000,
      keepaliveTimeoutMs: 10_000,
    });
  });

  it.each([
    ['grpc: { keepaliveTimeMs: 10 }', 'grpc.keepaliveTimeMs'],
    ['grpc: { keepaliveTimeoutMs: 0 }', 'grpc.keepaliveTimeoutMs'],
    // One setting for message size: limits.maxMessageBytes (issue 14).
    ['grpc: { maxReceiveMessageBytes: 4194304 }', 'grpc'],
    ['limits: { maxMessageBytes: 1e12 }', 'limits.maxMessageBytes'],
    ['grpc: { keepalive: 5 }', 'grpc'],
  ])('refuses %s, naming %s', (line, path) => {
    expect(() => parseConfig(`${line}\n${factories}`, 'f.yaml')).toThrow(ConfigError);
    expect(() => parseConfig(`${line}\n${factories}`, 'f.yaml')).toThrow(`at ${path}`);
  });
});

/** FindGame with `bytes` worth of vetoed map names, answered with its error code. */
async function findGameCode(maxMessageBytes: number | undefined, bytes: number): Promise<number | undefined> {
  const dataDir = mkdtempSync(join(tmpdir(), 'gamefactory-grpc-'));
  const yaml = maxMessageBytes === undefined ? factories : `limits: { maxMessageBytes: ${maxMessageBytes} }\n${factories}`;
  const running = await startCoordinatorProcess({
    config: parseConfig(yaml, 'test.yaml'),
    listen: '127.0.0.1:0',
    metricsListen: '127.0.0.1:0',
    dataDir,
    log: silentLog,
  });
  const client = new MatchmakerClient(`127.0.0.1:${running.grpcPort}`, credentials.createInsecure(), {
    'grpc.max_send_message_length': -1,
  });
  try {
    return await new Promise<number | undefined>((resolve) => {
      const call = client.findGame({
        ticketId: 'big',
        template: 'duel',
        party: [{ playerId: 'p', score: 1500 }],
        partitionAttributes: {},
        matchableAttributes: {},
        latenciesMs: {},
        preferredMaps: [],
        vetoedMaps: Array.from({ length: Math.ceil(bytes / 100) }, (_, i) => `${i}`.padEnd(100, 'm')),
      });
      call.on('data', () => undefined);
      call.on('error', (error: ServiceError) => resolve(error.code));
      call.on('end', () => resolve(undefined));
    });
  } finally {
    client.close();
    await running.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

describe('limits.maxMessageBytes on a running coordinator', () => {
  it('a 200 KB request is read (and refused for its content) under the 1 MiB default', async () => {
    expect(await findGameCode(undefined, 200_000)).toBe(status.INVALID_ARGUMENT);
  });

  it('the same request is refused for its size under a 64 KiB limit', async () => {
    expect(await findGameCode(65_536, 200_000)).toBe(status.RESOURCE_EXHAUSTED);
  });
});

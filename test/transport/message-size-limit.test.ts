import { credentials, status, type ServiceError } from '@grpc/grpc-js';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../../src/attributes/limits.js';
import { startCoordinatorProcess, type RunningCoordinator } from '../../src/app/coordinator-process.js';
import { parseConfig } from '../../src/config/load.js';
import { silentLog } from '../../src/coordinator/ports.js';
import { MatchmakerClient } from '../../src/generated/gamefactory/v1/matchmaker.js';
import { namedSizeRefusal } from '../../src/transport/grpc/oversize-refusal.js';

const ROOT = join(import.meta.dirname, '../..');
const factories = `
factories:
  - name: coop
    partitioning: { version: [v201] }
    cooperative: { maxPlayers: 4 }
`;

/**
 * One message-size limit, `limits.maxMessageBytes`: whatever the size of a request over it, the
 * refusal is RESOURCE_EXHAUSTED naming the setting and its value, the value the docs give.
 */
describe('limits.maxMessageBytes is the one size limit, named in every refusal', () => {
  let running: RunningCoordinator;
  let client: MatchmakerClient;
  const dataDir = mkdtempSync(join(tmpdir(), 'gamefactory-size-'));

  beforeAll(async () => {
    running = await startCoordinatorProcess({ config: parseConfig(factories, 'test.yaml'), listen: '127.0.0.1:0', metricsListen: '127.0.0.1:0', dataDir, log: silentLog });
    client = new MatchmakerClient(`127.0.0.1:${running.grpcPort}`, credentials.createInsecure(), { 'grpc.max_send_message_length': -1 });
  });

  afterAll(async () => {
    client.close();
    await running.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** FindGame with one partition attribute of `bytes` bytes: its error. */
  const findWithAttribute = (ticketId: string, bytes: number) =>
    new Promise<ServiceError | undefined>((resolve) => {
      const call = client.findGame({
        ticketId,
        template: 'coop',
        party: [{ playerId: ticketId }],
        partitionAttributes: { version: { kind: { $case: 'stringValue', value: 'v'.repeat(bytes) } } },
        matchableAttributes: {},
        latenciesMs: {},
        preferredMaps: [],
        vetoedMaps: [],
      });
      call.on('data', () => undefined);
      call.on('error', (error: ServiceError) => resolve(error));
      call.on('end', () => resolve(undefined));
    });

  const refusalCount = async () => {
    const text = await (await fetch(`http://127.0.0.1:${running.metricsPort}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith('gamefactory_limit_refusals_total{limit="maxMessageBytes"}'));
    return line ? Number(line.split(' ').pop()) : 0;
  };

  it.each([
    ['10 MB', 10_000_000],
    ['2 MB', 2_000_000],
    ['just over 1 MiB', LIMITS.maxMessageBytes],
  ])('a %s attribute: RESOURCE_EXHAUSTED "limit maxMessageBytes: ... exceeds 1048576", counted', async (_label, bytes) => {
    const before = await refusalCount();
    const error = await findWithAttribute(`big-${bytes}`, bytes);
    expect(error?.code).toBe(status.RESOURCE_EXHAUSTED);
    expect(error?.details).toMatch(new RegExp(`^limit maxMessageBytes: a message of \\d+ bytes exceeds ${LIMITS.maxMessageBytes}$`));
    expect(await refusalCount()).toBe(before + 1);
  });

  it('grpc-js\'s own wordings are the ones rewritten (a grpc-js release that rewords them fails here)', () => {
    expect(namedSizeRefusal('Received message larger than max (10000125 vs 1048576)')).toBe('limit maxMessageBytes: a message of 10000125 bytes exceeds 1048576');
    expect(namedSizeRefusal('Received message that decompresses to a size larger than 1048576')).toBe('limit maxMessageBytes: a message decompresses to more than 1048576 bytes');
    const decoder = readFileSync(join(ROOT, 'node_modules/@grpc/grpc-js/build/src/stream-decoder.js'), 'utf8');
    expect(decoder).toContain('`Received message larger than max (${this.readMessageSize} vs ${this.maxReadMessageLength})`');
  });

  it('the docs give the same limit', () => {
    expect(LIMITS.maxMessageBytes).toBe(1024 * 1024);
    expect(readFileSync(join(ROOT, 'docs/protocol.md'), 'utf8')).toContain('| gRPC message, either direction | 1 MiB (`limits.maxMessageBytes`) |');
    expect(readFileSync(join(ROOT, 'docs/security.md'), 'utf8')).toMatch(/\| `maxMessageBytes` \| 1 MiB \|/);
  });
});

import { Client, credentials, status, type ServiceError } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GameServerConnection } from '../support/game-server-connection.js';
import { DIABLO_YAML, TestCoordinator } from '../integration/harness.js';

/** Defects the fuzz suite found, each kept as a reproducer (issue 14). */
describe('found by fuzzing', () => {
  let coordinator: TestCoordinator;
  beforeAll(async () => {
    coordinator = await TestCoordinator.start(DIABLO_YAML);
  });
  afterAll(() => coordinator.stop());

  it('a start rate so small its next token is past the timer range is refused, naming the field', async () => {
    // Before: max_starts_per_second 1e-200 was accepted; the start bucket's next token was 1e203 ms
    // away, setTimeout clamped it to 1 ms and placement re-drained every millisecond.
    const server = new GameServerConnection(coordinator.address, { serverId: 'slow', endpoint: 'slow:1', maxGames: 4, maxStartsPerSecond: 1e-200 });
    const error = (await server.connect().catch((e: ServiceError) => e)) as ServiceError;
    expect(error.code).toBe(status.INVALID_ARGUMENT);
    expect(error.details).toContain('hello.capacity.max_starts_per_second: must be 0 (unlimited) or a finite number >= 0.001');
    server.close();
    const ok = await coordinator.server({ serverId: 'slow-but-fine', maxStartsPerSecond: 0.001 });
    expect(ok.ended).toBeUndefined();
  });

  it('request bytes that are not the method\'s message are INVALID_ARGUMENT naming the problem, not INTERNAL', async () => {
    // Before: grpc-js answered a throwing requestDeserialize with INTERNAL "Error deserializing
    // request" before any handler ran; the transport's deserializers are tolerant now (issue 14).
    const client = new Client(coordinator.address, credentials.createInsecure());
    const error = await new Promise<ServiceError | null>((resolve) =>
      client.makeUnaryRequest('/gamefactory.v1.Matchmaker/CancelFind', (b: Buffer) => b, (b: Buffer) => b, Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f]), (e) => resolve(e)),
    );
    client.close();
    expect(error?.code).toBe(status.INVALID_ARGUMENT);
    expect(error?.details).toMatch(/^request: 6 bytes are not a valid CancelFind request \(.+\)$/);
  });
});

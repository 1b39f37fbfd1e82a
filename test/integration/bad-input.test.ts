import { credentials, status, type ServiceError } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findGame, type FindOptions } from '../support/find-game.js';
import { GameServerLinkClient } from '../../src/generated/gamefactory/v1/game_server_link.js';
import type { GameServerConnection } from '../support/game-server-connection.js';
import { DIABLO_YAML, TestCoordinator, eventually } from './harness.js';
import { loadSync } from '@grpc/proto-loader';
import { loadPackageDefinition, type GrpcObject, type ServiceClientConstructor } from '@grpc/grpc-js';
import { protoPath as healthProtoPath } from 'grpc-health-check';

const partition = { difficulty: 'hard', hardcore: false, version: 'v201' };
const good: FindOptions = { ticketId: 'ok', template: 'diablo', party: ['ok'], partition };

/** Requests that can never succeed as asked: each gets the right code and names the field. */
const refusals: { name: string; request: FindOptions; code: number; field: string }[] = [
  { name: 'empty ticket id', request: { ...good, ticketId: '' }, code: status.INVALID_ARGUMENT, field: 'ticket_id' },
  { name: 'empty party', request: { ...good, ticketId: 'b1', party: [] }, code: status.INVALID_ARGUMENT, field: 'party' },
  {
    name: 'oversized party',
    request: { ...good, ticketId: 'b2', party: Array.from({ length: 17 }, (_, i) => `x${i}`) },
    code: status.INVALID_ARGUMENT,
    field: 'party',
  },
  { name: 'party larger than a game', request: { ...good, ticketId: 'b3', party: ['a', 'b', 'c', 'd', 'e'] }, code: status.INVALID_ARGUMENT, field: 'party' },
  { name: 'duplicate player ids', request: { ...good, ticketId: 'b4', party: ['a', 'a'] }, code: status.INVALID_ARGUMENT, field: 'party[1].player_id' },
  { name: 'unknown template', request: { ...good, ticketId: 'b5', template: 'chess' }, code: status.NOT_FOUND, field: 'template' },
  {
    name: 'partition value outside the config',
    request: { ...good, ticketId: 'b6', partition: { ...partition, difficulty: 'nightmare' } },
    code: status.NOT_FOUND,
    field: 'partition_attributes[difficulty]',
  },
  {
    name: 'missing partitioning attribute',
    request: { ...good, ticketId: 'b7', partition: { difficulty: 'hard', hardcore: false } },
    code: status.INVALID_ARGUMENT,
    field: 'partition_attributes[version]',
  },
  {
    name: 'unknown matchable key',
    request: { ...good, ticketId: 'b8', matchable: { color: 'red' } },
    code: status.INVALID_ARGUMENT,
    field: 'matchable_attributes[color]',
  },
  {
    name: 'oversized attribute value',
    request: { ...good, ticketId: 'b9', matchable: { act: 'x'.repeat(300) } },
    code: status.INVALID_ARGUMENT,
    field: 'matchable_attributes[act]',
  },
  {
    name: 'a partition no server serves',
    request: { ...good, ticketId: 'b10', partition: { ...partition, version: 'v202' } },
    code: status.FAILED_PRECONDITION,
    field: 'diablo/difficulty=hard/hardcore=false/version=v202',
  },
];

describe('bad input over gRPC: a clear error, and nobody else disturbed', () => {
  let coordinator: TestCoordinator;
  let server: GameServerConnection;
  beforeAll(async () => {
    coordinator = await TestCoordinator.start(DIABLO_YAML);
    server = await coordinator.server({ serverId: 'a', attributes: { version: 'v201' } }, { autoJoin: false });
  });
  afterAll(async () => {
    await coordinator.stop();
  });

  it.each(refusals)('$name: $code naming $field', async ({ request, code, field }) => {
    const error = (await findGame(coordinator.client(), request).catch((e: ServiceError) => e)) as ServiceError;
    expect(error.code).toBe(code);
    expect(error.details).toContain(field);
  });

  it('refuses a player already finding or in a game, and a ticket id reused for another request, without harming the first', async () => {
    // A server that never confirms keeps the first ticket waiting.
    await coordinator.server({ serverId: 'silent', attributes: { version: 'v202' } }, { decide: () => 'ignore' });
    const client = coordinator.client();
    const waiting = { ...good, ticketId: 'first', party: ['dup'], partition: { ...partition, version: 'v202' } };
    const first = findGame(client, waiting).catch((e: ServiceError) => e);
    await eventually(() => coordinator.running.coordinator.view.ticket('first')?.state === 'placing');
    const again = (await findGame(client, { ...good, ticketId: 'second', party: ['dup'] }).catch((e) => e)) as ServiceError;
    expect(again.code).toBe(status.ALREADY_EXISTS);
    expect(again.details).toContain('"dup"');
    const reused = (await findGame(client, { ...waiting, party: ['other'] }).catch((e) => e)) as ServiceError;
    expect(reused.code).toBe(status.ALREADY_EXISTS);
    expect(reused.details).toContain('ticket_id');
    expect(coordinator.running.coordinator.view.ticket('first')?.state).toBe('placing');

    const seated = await findGame(client, { ...good, ticketId: 'seated', party: ['sat'] });
    expect(seated.assignment.gameId).not.toBe('');
    const twice = (await findGame(client, { ...good, ticketId: 'seated-again', party: ['sat'] }).catch((e) => e)) as ServiceError;
    expect(twice.code).toBe(status.FAILED_PRECONDITION);
    expect(twice.details).toContain(seated.assignment.gameId);
    coordinator.running.coordinator.cancel('first');
    expect(((await first) as ServiceError).code).toBe(status.CANCELLED);
  });

  it('answers out-of-order server messages with a rejection, keeping the stream and the games', async () => {
    const gamesBefore = coordinator.running.coordinator.view.snapshot().games;
    server.send({ event: { $case: 'gameCreated', value: { requestId: 'never-sent', gameId: 'ghost' } } });
    server.send({ event: { $case: 'playerJoined', value: { gameId: 'no-such-game', playerId: 'p' } } });
    await eventually(() => server.rejections.length >= 2);
    expect(server.rejections[0]).toContain('request_id "never-sent"');
    expect(server.rejections[1]).toContain('game_id "no-such-game"');
    expect(server.ended).toBeUndefined();
    expect(coordinator.running.coordinator.view.snapshot().games).toBe(gamesBefore);
  });

  it('ends a stream whose first message is not a hello with FAILED_PRECONDITION', async () => {
    const client = new GameServerLinkClient(coordinator.address, credentials.createInsecure());
    const stream = client.connect();
    const ended = new Promise<ServiceError>((resolve) => stream.on('error', resolve));
    stream.on('data', () => {});
    stream.write({ event: { $case: 'gameEnded', value: { gameId: 'g' } } });
    expect((await ended).code).toBe(status.FAILED_PRECONDITION);
    client.close();
  });

  it('serves health SERVING and lists its services through reflection', async () => {
    const health = loadPackageDefinition(loadSync(healthProtoPath, { enums: String })) as GrpcObject;
    const Health = ((health.grpc as GrpcObject).health as GrpcObject).v1 as GrpcObject;
    const client = new (Health.Health as ServiceClientConstructor)(coordinator.address, credentials.createInsecure());
    const reply = await new Promise<{ status: string }>((resolve, reject) =>
      client.check!({ service: '' }, (err: Error | null, res: { status: string }) => (err ? reject(err) : resolve(res))),
    );
    expect(reply.status).toBe('SERVING');
    client.close();

    const reflectionProto = loadPackageDefinition(
      loadSync('reflection/v1/reflection.proto', { includeDirs: [reflectionProtoDir()] }),
    ) as GrpcObject;
    const Reflection = (((reflectionProto.grpc as GrpcObject).reflection as GrpcObject).v1 as GrpcObject).ServerReflection as ServiceClientConstructor;
    const reflection = new Reflection(coordinator.address, credentials.createInsecure());
    const call = reflection.serverReflectionInfo!();
    const services = await new Promise<string[]>((resolve, reject) => {
      call.on('data', (res: { listServicesResponse?: { service: { name: string }[] } }) => {
        resolve(res.listServicesResponse!.service.map((s) => s.name));
        call.end();
      });
      call.on('error', reject);
      call.write({ listServices: '' });
    });
    expect(services).toEqual(expect.arrayContaining(['gamefactory.v1.GameServerLink', 'gamefactory.v1.Matchmaker', 'grpc.health.v1.Health']));
    reflection.close();
  });
});

function reflectionProtoDir(): string {
  const entry = new URL(import.meta.resolve('@grpc/reflection'));
  return new URL('../proto/grpc/', entry).pathname;
}

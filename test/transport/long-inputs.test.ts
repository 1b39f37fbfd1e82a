import { Client, credentials, Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GameServerLinkService, ServerMessage } from '../../src/generated/gamefactory/v1/game_server_link.js';
import { MatchmakerService } from '../../src/generated/gamefactory/v1/matchmaker.js';
import { RatingsService } from '../../src/generated/gamefactory/v1/ratings.js';
import { findGameRequest } from '../support/find-game.js';
import { DIABLO_YAML, TestCoordinator } from '../integration/harness.js';

/**
 * Answers to over-long or undecodable input, from a client outside: every call gets a status in
 * time, with a short message. A status message is sent as the `grpc-message` trailer; one that
 * echoed a 600 KB request field was over what the client accepts in headers (grpc-js: 8 KB by
 * default), so the client never saw the status and waited out its deadline, forever without one.
 * And the health and reflection services, added by their libraries, answered undecodable bytes
 * with INTERNAL (Check) or not at all (Watch, reflection).
 */
const HUGE = 'Z'.repeat(600_000);
/** The longest a status message may be: anything longer is cut. */
const MAX_DETAILS = 2048;

interface Answer {
  readonly code: number;
  readonly details: string;
}

describe('over-long and undecodable input gets a short status, never a hang', () => {
  let coordinator: TestCoordinator;
  let client: Client;
  beforeAll(async () => {
    coordinator = await TestCoordinator.start(DIABLO_YAML);
    await coordinator.server({ serverId: 'host', attributes: { version: 'v201' } });
    client = new Client(coordinator.address, credentials.createInsecure());
  });
  afterAll(async () => {
    client.close();
    await coordinator.stop();
  });

  const options = () => ({ deadline: Date.now() + 4000 });
  const answer = (e: ServiceError | null): Answer => ({ code: e?.code ?? status.OK, details: e?.details ?? '' });
  const unary = (path: string, request: Buffer) =>
    new Promise<Answer>((resolve) => client.makeUnaryRequest(path, (b: Buffer) => b, (b: Buffer) => b, request, new Metadata(), options(), (e) => resolve(answer(e))));
  const serverStream = (path: string, request: Buffer) =>
    new Promise<Answer>((resolve) => {
      const call = client.makeServerStreamRequest(path, (b: Buffer) => b, (b: Buffer) => b, request, new Metadata(), options());
      call.on('data', () => {});
      call.on('error', (e: ServiceError) => resolve(answer(e)));
      call.on('status', (s) => s.code === status.OK && resolve({ code: s.code, details: s.details }));
    });
  const bidi = (path: string, request: Buffer) =>
    new Promise<Answer>((resolve) => {
      const call = client.makeBidiStreamRequest(path, (b: Buffer) => b, (b: Buffer) => b, new Metadata(), options());
      call.on('data', () => {});
      call.on('error', (e: ServiceError) => resolve(answer(e)));
      call.on('status', (s) => s.code === status.OK && resolve({ code: s.code, details: s.details }));
      call.write(request);
    });

  it('a 600 KB attribute key is INVALID_ARGUMENT naming the field by the key cut short', async () => {
    const request = findGameRequest({ ticketId: 'long-key', template: 'diablo', party: [{ playerId: 'p' }], partition: { difficulty: 'hard', hardcore: false, version: 'v201', [HUGE]: 'x' } });
    const got = await serverStream(MatchmakerService.findGame.path, MatchmakerService.findGame.requestSerialize(request));
    expect(got.code).toBe(status.INVALID_ARGUMENT);
    expect(got.details).toMatch(/^partition_attributes\[Z{64}…\]: 600000 bytes; at most 64$/);
  });

  it('a server hello with a 600 KB attribute key ends its stream INVALID_ARGUMENT, in time', async () => {
    const hello = ServerMessage.encode({ event: { $case: 'hello', value: { serverId: 'long', endpoint: 'long:1', attributes: { [HUGE]: { kind: { $case: 'stringValue', value: 'x' } } }, templates: [], runningGames: [], pendingCreations: [] } } }).finish();
    const got = await bidi(GameServerLinkService.connect.path, Buffer.from(hello));
    expect(got.code).toBe(status.INVALID_ARGUMENT);
    expect(got.details.length).toBeLessThan(200);
  });

  it('QueryStats naming a 600 KB factory or template, and Ratings a 600 KB ladder or player, get a short status', async () => {
    const stats = (request: object) => MatchmakerService.queryStats.requestSerialize({ factory: '', template: '', partitionAttributes: {}, predicates: [], mode: 0, ...request });
    for (const [what, got] of [
      ['factory', await unary(MatchmakerService.queryStats.path, stats({ factory: HUGE }))],
      ['template', await unary(MatchmakerService.queryStats.path, stats({ template: HUGE }))],
      ['ladder', await unary(RatingsService.getRating.path, RatingsService.getRating.requestSerialize({ ladder: HUGE, playerId: 'p' }))],
      ['player', await unary(RatingsService.playerRank.path, RatingsService.playerRank.requestSerialize({ ladder: 'none', playerId: HUGE }))],
    ] as const) {
      expect([status.INVALID_ARGUMENT, status.NOT_FOUND], `${what}: ${got.code} ${got.details.slice(0, 80)}`).toContain(got.code);
      expect(got.details.length, what).toBeLessThanOrEqual(MAX_DETAILS);
    }
    const predicate = await unary(MatchmakerService.queryStats.path, stats({ template: 'diablo', predicates: [{ key: HUGE, value: { kind: { $case: 'intValue', value: 1n } } }] }));
    expect(predicate).toEqual({ code: status.INVALID_ARGUMENT, details: 'predicates[0].key: 600000 bytes; at most 64' });
  });

  it('the health service: undecodable bytes are INVALID_ARGUMENT (Check and Watch), and a 600 KB service name gets a short NOT_FOUND', async () => {
    const garbage = Buffer.from([0xff]); // a tag with no field number's varint end
    for (const got of [await unary('/grpc.health.v1.Health/Check', garbage), await serverStream('/grpc.health.v1.Health/Watch', garbage)]) {
      expect(got.code).toBe(status.INVALID_ARGUMENT);
      expect(got.details).toMatch(/^request: 1 bytes are not a valid (Check|Watch) request/);
    }
    const longName = Buffer.concat([Buffer.from([0x0a, 0xc0, 0xcf, 0x24]), Buffer.from(HUGE)]);
    const got = await unary('/grpc.health.v1.Health/Check', longName);
    expect(got.code).toBe(status.NOT_FOUND);
    expect(got.details.length).toBeLessThanOrEqual(MAX_DETAILS);
    expect(await unary('/grpc.health.v1.Health/Check', Buffer.alloc(0))).toEqual({ code: status.OK, details: '' });
  });

  it('server reflection: undecodable bytes are INVALID_ARGUMENT, not a stream that never answers', async () => {
    const garbage = Buffer.from([0xff]);
    for (const version of ['v1', 'v1alpha']) {
      const got = await bidi(`/grpc.reflection.${version}.ServerReflection/ServerReflectionInfo`, garbage);
      expect(got.code, version).toBe(status.INVALID_ARGUMENT);
    }
  });
});

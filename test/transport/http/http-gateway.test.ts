import { status, type ServiceError } from '@grpc/grpc-js';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CancelFindRequest, FindGameRequest, FindGameUpdate, MatchmakerService, QueryStatsRequest, type MatchmakerClient } from '../../../src/generated/gamefactory/v1/matchmaker.js';
import { RatingsService } from '../../../src/generated/gamefactory/v1/ratings.js';
import { MatchmakingError } from '../../../src/errors/index.js';
import { servedMethods } from '../../../src/transport/http/served-methods.js';
import type { CallInfo } from '../../../src/transport/grpc/interceptors/index.js';
import { findGameRequest } from '../../support/find-game.js';
import { TestCoordinator } from '../../integration/harness.js';
import { httpCall, type HttpProtocol } from './http-client.js';

const YAML = `
placement: { policy: fill, createTimeoutMs: 1000, maxQueuedPerFactory: 10, ticketTtlSeconds: 60 }
servers: { keepaliveIntervalMs: 200 }
factories:
  - name: solo
    partitioning: { region: [eu, us] }
    cooperative: { maxPlayers: 1 }
`;

/** The curl line docs/protocol.md gives, as written there. */
function documentedCurl(): string {
  const doc = readFileSync(new URL('../../../docs/protocol.md', import.meta.url), 'utf8');
  const block = /Finding a game with curl[^\n]*\n\n```sh\n([\s\S]*?)\n```/.exec(doc);
  if (!block) throw new Error('docs/protocol.md: no curl example under "Finding a game with curl"');
  return block[1]!;
}

/** A FindGame over gRPC with the bare client: its updates and its status. */
function grpcFind(client: MatchmakerClient, request: FindGameRequest, deadlineMs = 5000): Promise<{ code: number; details: string; updates: FindGameUpdate[] }> {
  return new Promise((resolve) => {
    const updates: FindGameUpdate[] = [];
    const call = client.findGame(request, { deadline: Date.now() + deadlineMs });
    call.on('data', (u: FindGameUpdate) => updates.push(u));
    call.on('error', (e: ServiceError) => resolve({ code: e.code, details: e.details, updates }));
    call.on('end', () => resolve({ code: status.OK, details: '', updates }));
  });
}

const grpcUnary = <Req, Res>(call: (req: Req, cb: (e: ServiceError | null, r?: Res) => void) => void, request: Req): Promise<{ code: number; details: string }> =>
  new Promise((resolve) => call(request, (e) => resolve(e ? { code: e.code, details: e.details } : { code: status.OK, details: '' })));

describe('the HTTP gateway (--http-listen): Connect, gRPC-Web and JSON through the gRPC server', () => {
  let coordinator: TestCoordinator;
  let base: string;
  const seen: CallInfo[] = [];
  // A gate as authentication is: every call's metadata and peer, refused without the right token.
  const gate = (call: CallInfo) => {
    seen.push(call);
    const token = call.metadata.get('authorization')[0];
    return token === undefined || token === 'Bearer good' ? undefined : new MatchmakingError('UNAUTHENTICATED', 'authorization: the token is not valid');
  };

  beforeAll(async () => {
    coordinator = await TestCoordinator.start(YAML, undefined, { httpListen: '127.0.0.1:0', gates: [gate] });
    base = `http://127.0.0.1:${coordinator.running.httpPort}`;
  });
  afterAll(async () => {
    await coordinator?.stop();
  });

  it('serves every Matchmaker and Ratings method a client calls with one request, as the generated gRPC services list them', () => {
    const expected = [...Object.values(MatchmakerService), ...Object.values(RatingsService)].filter((m) => !m.requestStream).map((m) => m.path);
    expect([...servedMethods().keys()].sort()).toEqual(expected.sort());
  });

  it('the curl line in docs/protocol.md finds a game: the queued update, then the assignment, one JSON line each', { timeout: 20_000 }, async () => {
    const server = await coordinator.server({ serverId: 's1', maxGames: 0, attributes: { region: 'eu' } });
    const line = documentedCurl().replace('http://127.0.0.1:8080', base);
    const curl = spawn('sh', ['-c', line]);
    const lines: string[] = [];
    let out = '';
    const firstLine = new Promise<void>((resolve) =>
      curl.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const parts = out.split('\n');
        out = parts.pop()!;
        lines.push(...parts);
        if (lines.length > 0) resolve();
      }),
    );
    const exited = new Promise<number | null>((resolve) => curl.on('close', resolve));
    await firstLine;
    expect(JSON.parse(lines[0]!)).toEqual({ ticketId: 't-1', queued: { factory: 'solo/region=eu', position: 1, estimateUnknown: true } });
    server.setCapacity(1);
    expect(await exited).toBe(0);
    expect(lines).toHaveLength(2);
    const assigned = JSON.parse(lines[1]!) as { ticketId: string; assignment: { serverEndpoint: string; factory: string; reservationToken: string } };
    expect(assigned.ticketId).toBe('t-1');
    expect(assigned.assignment).toMatchObject({ serverEndpoint: 's1.example:7777', factory: 'solo/region=eu' });
    expect(assigned.assignment.reservationToken).toMatch(/^[A-Za-z0-9_-]{32}$/);
    server.close();
  });

  it.each<HttpProtocol>(['connect', 'grpc-web', 'json'])('over %s, a refused FindGame has the gRPC call\'s code and message', async (protocol) => {
    const requests: FindGameRequest[] = [
      findGameRequest({ ticketId: 'bad-1', template: 'nope', party: ['a'] }),
      findGameRequest({ ticketId: 'bad-2', template: 'solo', party: [], partition: { region: 'eu' } }),
      findGameRequest({ ticketId: 'bad-3', template: 'solo', party: ['b'], partition: { region: 'mars' } }),
      findGameRequest({ ticketId: 'bad-4', template: 'solo', party: ['c'], partition: { region: 'us' } }), // no server serves it (yet)
      findGameRequest({ ticketId: 'x'.repeat(300), template: 'solo', party: ['d'], partition: { region: 'eu' } }),
    ];
    const client = coordinator.client();
    for (const request of requests) {
      const overGrpc = await grpcFind(client, request);
      const message = protocol === 'json' ? JSON.stringify(FindGameRequest.toJSON(request)) : FindGameRequest.encode(request).finish();
      const overHttp = await httpCall(base, MatchmakerService.findGame.path, message, { protocol, streaming: true });
      expect(overGrpc.code).not.toBe(status.OK);
      expect({ code: overHttp.code, details: overHttp.details }).toEqual({ code: overGrpc.code, details: overGrpc.details });
    }
  });

  it('refused unary calls and undecodable bytes answer as over gRPC; a refusal before any reply has the HTTP status of its code', async () => {
    const client = coordinator.client();
    const cases: { path: string; bytes: Uint8Array; grpc: () => Promise<{ code: number; details: string }> }[] = [
      { path: MatchmakerService.cancelFind.path, bytes: CancelFindRequest.encode({ ticketId: '' }).finish(), grpc: () => grpcUnary(client.cancelFind.bind(client), { ticketId: '' }) },
      { path: MatchmakerService.queryStats.path, bytes: QueryStatsRequest.encode(QueryStatsRequest.fromPartial({ factory: 'nope/x=1' })).finish(), grpc: () => grpcUnary(client.queryStats.bind(client), QueryStatsRequest.fromPartial({ factory: 'nope/x=1' })) },
      { path: MatchmakerService.cancelFind.path, bytes: new Uint8Array([0x0a, 0xff]), grpc: () => grpcUnary(client.cancelFind.bind(client), new Uint8Array([0x0a, 0xff]) as never) },
    ];
    // The raw case over gRPC: the same bytes, sent as they are.
    const raw = new (await import('@grpc/grpc-js')).Client(coordinator.address, (await import('@grpc/grpc-js')).credentials.createInsecure());
    cases[2]!.grpc = () =>
      new Promise((resolve) =>
        raw.makeUnaryRequest(MatchmakerService.cancelFind.path, (b: Buffer) => b, (b: Buffer) => b, Buffer.from([0x0a, 0xff]), (e) => resolve(e ? { code: e.code, details: e.details } : { code: 0, details: '' })),
      );
    for (const c of cases) {
      const overGrpc = await c.grpc();
      expect(overGrpc.code).not.toBe(status.OK);
      for (const protocol of ['connect', 'grpc-web'] as const) {
        const overHttp = await httpCall(base, c.path, c.bytes, { protocol, streaming: false });
        expect({ code: overHttp.code, details: overHttp.details }).toEqual(overGrpc);
        if (protocol === 'connect') expect(overHttp.httpStatus).toBe(overGrpc.code === status.INVALID_ARGUMENT ? 400 : overGrpc.code === status.NOT_FOUND ? 404 : 0);
      }
    }
    raw.close();
  });

  it('JSON follows the proto3 mapping both ways, and names what it cannot read', async () => {
    const server = await coordinator.server({ serverId: 's3', maxGames: 5, attributes: { region: 'eu' } });
    expect((await grpcFind(coordinator.client(), findGameRequest({ ticketId: 'json-1', template: 'solo', party: ['json-1'], partition: { region: 'eu' } }))).code).toBe(status.OK);
    const stats = await httpCall(base, MatchmakerService.queryStats.path, '{"template":"solo","partitionAttributes":{"region":{"stringValue":"eu"}},"mode":"PREDICATE_MODE_MATCH_ALL"}', { protocol: 'json', streaming: false });
    expect(stats.code).toBe(status.OK);
    const answer = JSON.parse(new TextDecoder().decode(stats.messages[0]!)) as Record<string, unknown>;
    expect(answer).toMatchObject({ factories: 1, games: '1', players: '1' });
    // 64-bit counts are strings, 32-bit ones numbers; zero values are left out.
    expect(answer.waitingTickets).toBeUndefined();
    const bad = await httpCall(base, MatchmakerService.cancelFind.path, '{"ticketId": 5}', { protocol: 'json', streaming: false });
    expect(bad).toMatchObject({ code: status.INVALID_ARGUMENT, httpStatus: 400 });
    expect(bad.details).toBe('request: not a valid CancelFind request in JSON (cannot decode field gamefactory.v1.CancelFindRequest.ticket_id from JSON: expected string, got 5)');
    const notJson = await httpCall(base, MatchmakerService.cancelFind.path, '{', { protocol: 'json', streaming: false });
    expect(notJson.code).toBe(status.INVALID_ARGUMENT);
    server.close();
  });

  it('passes the metadata and the HTTP client as the peer to the same gates: a bad token is refused as over gRPC', async () => {
    seen.length = 0;
    const refused = await httpCall(base, MatchmakerService.cancelFind.path, CancelFindRequest.encode({ ticketId: 'x' }).finish(), { protocol: 'connect', streaming: false, headers: { authorization: 'Bearer bad' } });
    expect(refused).toMatchObject({ code: status.UNAUTHENTICATED, details: 'authorization: the token is not valid', httpStatus: 401 });
    const ok = await httpCall(base, MatchmakerService.cancelFind.path, CancelFindRequest.encode({ ticketId: 'x' }).finish(), { protocol: 'connect', streaming: false, headers: { authorization: 'Bearer good', 'x-studio': 'acme' } });
    expect(ok.code).toBe(status.OK);
    expect(CancelFindRequest.decode(ok.messages[0]!)).toBeDefined();
    const last = seen[seen.length - 1]!;
    expect(last.method).toBe(MatchmakerService.cancelFind.path);
    expect(last.metadata.get('x-studio')).toEqual(['acme']);
    expect(last.peer).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(last.peer).not.toBe('unknown');
  });

  it('a deadline (connect-timeout-ms, grpc-timeout) ends a waiting FindGame DEADLINE_EXCEEDED, and a client that hangs up cancels its ticket', { timeout: 20_000 }, async () => {
    const server = await coordinator.server({ serverId: 's2', maxGames: 0, attributes: { region: 'us' } });
    for (const protocol of ['connect', 'grpc-web'] as const) {
      const request = FindGameRequest.encode(findGameRequest({ ticketId: `late-${protocol}`, template: 'solo', party: [`late-${protocol}`], partition: { region: 'us' } })).finish();
      const outcome = await httpCall(base, MatchmakerService.findGame.path, request, { protocol, streaming: true, timeoutMs: 300 });
      expect(outcome.code).toBe(status.DEADLINE_EXCEEDED);
      expect(FindGameUpdate.decode(outcome.messages[0]!).update?.$case).toBe('queued');
    }
    const abort = new AbortController();
    const request = FindGameRequest.encode(findGameRequest({ ticketId: 'leaver', template: 'solo', party: ['leaver'], partition: { region: 'us' } })).finish();
    const leaving = httpCall(base, MatchmakerService.findGame.path, request, { protocol: 'connect', streaming: true, signal: abort.signal }).catch(() => undefined);
    await expect.poll(() => coordinator.running.coordinator.view.ticket('leaver') !== undefined).toBe(true);
    abort.abort();
    await leaving;
    await expect.poll(() => coordinator.running.coordinator.view.ticket('leaver')).toBeUndefined();
    server.close();
  });

  it('CORS is closed by default: a page from another origin is refused, preflight and call alike', async () => {
    const preflight = await fetch(`${base}${MatchmakerService.findGame.path}`, { method: 'OPTIONS', headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' } });
    expect(preflight.status).toBe(403);
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    const call = await fetch(`${base}${MatchmakerService.cancelFind.path}`, { method: 'POST', headers: { origin: 'https://evil.example', 'content-type': 'application/json' }, body: '{"ticketId":"x"}' });
    expect(call.status).toBe(403);
    expect(await call.json()).toEqual({ code: 'permission_denied', message: 'origin https://evil.example: not allowed to call this coordinator (http.corsOrigins)' });
  });

  it('names what it does not serve: another service, an unknown content type', async () => {
    const link = await httpCall(base, '/gamefactory.v1.GameServerLink/Connect', new Uint8Array(), { protocol: 'connect', streaming: false });
    expect(link.code).toBe(status.UNIMPLEMENTED);
    expect(link.details).toMatch(/^\/gamefactory.v1.GameServerLink\/Connect: not served over HTTP/);
    const text = await fetch(`${base}${MatchmakerService.cancelFind.path}`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' });
    expect(text.status).toBe(415);
  });
});

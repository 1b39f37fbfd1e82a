import { credentials, Metadata, Server, status, type ClientDuplexStream, type ServiceError } from '@grpc/grpc-js';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findGameRequest } from '../support/find-game.js';
import { parseConfig } from '../../src/config/load.js';
import { buildCore, coreEnvironment } from '../../src/app/build-core.js';
import { realTimers, silentLog } from '../../src/coordinator/ports.js';
import { GameServerLinkClient, GameServerLinkService, type CoordinatorMessage, type ServerMessage } from '../../src/generated/gamefactory/v1/game_server_link.js';
import { MatchmakerClient, MatchmakerService, type FindGameUpdate } from '../../src/generated/gamefactory/v1/matchmaker.js';
import { tlsServerCredentials } from '../../src/security/credentials/tls-credentials.js';
import { securityInterceptor } from '../../src/security/interceptor/security-interceptor.js';
import type { LimitEvent } from '../../src/security/limits/limit-events.js';
import { DEFAULT_LIMITS, type Limits } from '../../src/security/limits/limits-config.js';
import { PeerLimits } from '../../src/security/limits/peer-limits.js';
import { JwtTokenVerifier } from '../../src/security/tokens/jwt-verifier.js';
import { connectHandler } from '../../src/transport/grpc/game-server-link.js';
import { matchmakerHandlers } from '../../src/transport/grpc/matchmaker.js';
import { InputPacer } from '../../src/transport/grpc/input-pacer.js';
import { MemoryStore } from '../coordinator/fixture.js';
import { issue, makeCa, type KeyPairFiles } from './certs.js';
import { AUDIENCE, ISSUER, SECRET } from './tokens.js';
import { SignJWT } from 'jose';

/**
 * The real coordinator's handlers behind TLS and the security interceptor, on loopback: what the
 * wiring phase will assemble in src/transport (issue 14). Not yet ticket ownership (core-side).
 */
const YAML = `
placement: { policy: fill, createTimeoutMs: 5000, maxQueuedPerFactory: 100, ticketTtlSeconds: 60 }
factories:
  - name: coop
    partitioning: { region: [eu] }
    cooperative: { maxPlayers: 4 }
`;
const limits: Limits = { ...DEFAULT_LIMITS, rate: { ...DEFAULT_LIMITS.rate, queryStats: { perSecond: 0.001, burst: 2 } } };

let dir: string;
let ca: KeyPairFiles;
let eu1: KeyPairFiles;
let eu2: KeyPairFiles;
let server: Server;
let port: number;
const limitEvents: LimitEvent[] = [];

const token = (claims: Record<string, unknown>) =>
  new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setIssuer(ISSUER).setAudience(AUDIENCE).setExpirationTime('5m').sign(new TextEncoder().encode(SECRET));
const bearer = async (claims: Record<string, unknown>) => {
  const m = new Metadata();
  m.set('authorization', `Bearer ${await token(claims)}`);
  return m;
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gamefactory-interceptor-'));
  ca = makeCa(dir, 'ca');
  const coordinatorCert = issue(dir, ca, 'coordinator', { commonName: 'coordinator', dnsNames: ['localhost'] });
  eu1 = issue(dir, ca, 'eu-1', { commonName: 'eu-1' });
  eu2 = issue(dir, ca, 'eu-2', { commonName: 'eu-2' });
  const config = parseConfig(YAML);
  const now = () => Date.now();
  const coordinator = buildCore(config, coreEnvironment(config, { now, timers: realTimers, log: silentLog, newId: randomUUID }), { store: new MemoryStore() });
  server = new Server({
    interceptors: [
      securityInterceptor({
        insecure: false,
        tokens: new JwtTokenVerifier({ issuer: ISSUER, audience: AUDIENCE, hmacSecret: SECRET }),
        serverIdentity: { from: 'commonName', uriPrefix: '' },
        limits,
        peerLimits: new PeerLimits(limits, (e) => limitEvents.push(e)),
        onLimit: (e) => limitEvents.push(e),
        now,
      }),
    ],
  });
  const pacer = new InputPacer(() => undefined);
  server.addService(GameServerLinkService, { connect: connectHandler(coordinator, { keepaliveIntervalMs: 5000, now, log: silentLog, pacer }) });
  server.addService(MatchmakerService, matchmakerHandlers(coordinator, coordinator.view, { now, log: silentLog, pacer }));
  const creds = await tlsServerCredentials({
    certFile: coordinatorCert.certFile,
    keyFile: coordinatorCert.keyFile,
    caFile: ca.certFile,
    clientCertificates: 'request',
    reloadIntervalMs: 60_000,
    serverIdentity: { from: 'commonName', uriPrefix: '' },
  });
  port = await new Promise((resolve, reject) => server.bindAsync('127.0.0.1:0', creds, (e, p) => (e ? reject(e) : resolve(p))));
});

afterAll(async () => {
  server.forceShutdown();
  rmSync(dir, { recursive: true, force: true });
});

const tls = (client?: KeyPairFiles) =>
  credentials.createSsl(readFileSync(ca.certFile), client ? readFileSync(client.keyFile) : null, client ? readFileSync(client.certFile) : null);

/** A game server over mTLS that confirms every CreateGame; resolves on welcome or rejects on the stream's error. */
function gameServer(cert: KeyPairFiles | undefined, serverId: string) {
  const stream: ClientDuplexStream<ServerMessage, CoordinatorMessage> = new GameServerLinkClient(`localhost:${port}`, tls(cert)).connect();
  let games = 0;
  let ended: ServiceError | undefined;
  stream.on('error', (e: ServiceError) => (ended = e));
  const welcomed = new Promise<void>((resolve, reject) => {
    stream.on('data', (m: CoordinatorMessage) => {
      if (m.order?.$case === 'welcome') resolve();
      if (m.order?.$case === 'createGame') stream.write({ event: { $case: 'gameCreated', value: { requestId: m.order.value.requestId, gameId: `${serverId}-g${++games}` } } });
    });
    stream.on('error', reject);
  });
  stream.write({ event: { $case: 'hello', value: { serverId, endpoint: `${serverId}:7777`, attributes: {}, templates: [], capacity: { maxGames: 10, maxStartsPerSecond: 0 }, runningGames: [], pendingCreations: [] } } });
  return { welcomed, stream, ended: () => ended };
}

const matchmaker = () => new MatchmakerClient(`localhost:${port}`, tls());

function find(metadata: Metadata, ticketId: string, players: string[]): Promise<{ code: number; details: string; assigned: boolean }> {
  return new Promise((resolve) => {
    let assigned = false;
    const call = matchmaker().findGame(findGameRequest({ ticketId, template: 'coop', party: players, partition: { region: 'eu' } }), metadata);
    call.on('data', (u: FindGameUpdate) => (assigned ||= u.update?.$case === 'assignment'));
    call.on('error', (e: ServiceError) => resolve({ code: e.code, details: e.details, assigned }));
    call.on('end', () => resolve({ code: status.OK, details: '', assigned }));
  });
}

function queryStats(metadata: Metadata): Promise<{ code: number; details: string; retryAfter?: string }> {
  return new Promise((resolve) =>
    matchmaker().queryStats({ factory: '', template: 'coop', partitionAttributes: {}, predicates: [], mode: 0 }, metadata, (e) =>
      resolve(e ? { code: e.code, details: e.details, retryAfter: e.metadata?.get('retry-after-ms')[0] as string | undefined } : { code: status.OK, details: '' }),
    ),
  );
}

describe('the security interceptor in front of the real handlers, over TLS', () => {
  let real: ReturnType<typeof gameServer>;
  beforeAll(async () => {
    real = gameServer(eu1, 'eu-1');
    await real.welcomed;
  });

  it('refuses a forged hello with PERMISSION_DENIED while the real server keeps its stream', async () => {
    const forged = gameServer(eu2, 'eu-1');
    const error = (await forged.welcomed.catch((e: ServiceError) => e)) as ServiceError;
    expect(error.code).toBe(status.PERMISSION_DENIED);
    expect(error.details).toBe(`hello.server_id: "eu-1" is not the certificate's identity "eu-2"`);
    // The real eu-1 still serves: a player is placed on it.
    const alice = await find(await bearer({ sub: 'alice', role: 'player' }), 'alice-1', ['alice']);
    expect(alice).toEqual({ code: status.OK, details: '', assigned: true });
    expect(real.ended()).toBeUndefined();
  });

  it('refuses a hello without a client certificate with UNAUTHENTICATED', async () => {
    const anonymous = gameServer(undefined, 'eu-3');
    const error = (await anonymous.welcomed.catch((e: ServiceError) => e)) as ServiceError;
    expect(error.code).toBe(status.UNAUTHENTICATED);
    expect(error.details).toBe('Connect: a verified client certificate is required');
  });

  it("a token for player A cannot find for player B; a gateway can", async () => {
    const forB = await find(await bearer({ sub: 'alice', role: 'player' }), 'alice-for-bob', ['bob']);
    expect(forB).toMatchObject({ code: status.PERMISSION_DENIED, details: expect.stringContaining('does not cover player "bob"') });
    const party = await find(await bearer({ sub: 'alice', role: 'player' }), 'alice-party', ['alice', 'carol']);
    expect(party.code).toBe(status.PERMISSION_DENIED);
    expect(await find(await bearer({ sub: 'gw', role: 'gateway' }), 'gw-bob', ['bob'])).toMatchObject({ code: status.OK, assigned: true });
  });

  it('a batched FindGames message is checked find by find: the one for another player fails alone', async () => {
    const call = matchmaker().findGames(await bearer({ sub: 'dora', role: 'player' }));
    call.on('error', () => {}); // ends CANCELLED when the test hangs up
    const updates: FindGameUpdate[] = [];
    const settled = new Set<string>();
    const done = new Promise<void>((resolve) => {
      call.on('data', (u: FindGameUpdate) => {
        const inner = u.update?.$case === 'batch' ? u.update.value.updates : [u];
        for (const x of inner) {
          updates.push(x);
          if (x.update?.$case !== 'queued') settled.add(x.ticketId);
        }
        if (settled.has('dora-own') && settled.has('dora-for-erin')) resolve();
      });
    });
    const wire = (ticketId: string, player: string) => findGameRequest({ ticketId, template: 'coop', party: [player], partition: { region: 'eu' } });
    call.write({ request: { $case: 'batch', value: { finds: [wire('dora-own', 'dora'), wire('dora-for-erin', 'erin')], cancels: [] } } });
    await done;
    call.cancel();
    expect(updates.find((u) => u.ticketId === 'dora-for-erin')?.update).toMatchObject({
      $case: 'error',
      value: { code: status.PERMISSION_DENIED, message: expect.stringContaining('does not cover player "erin"') },
    });
    expect(updates.find((u) => u.ticketId === 'dora-own')?.update?.$case).toBe('assignment');
  });

  it('no token: UNAUTHENTICATED; a bad token: UNAUTHENTICATED naming why', async () => {
    expect(await find(new Metadata(), 'anon', ['dave'])).toMatchObject({ code: status.UNAUTHENTICATED, details: expect.stringContaining('bearer token is required') });
    const bad = new Metadata();
    bad.set('authorization', 'Bearer not.a.token');
    expect((await find(bad, 'bad', ['dave'])).code).toBe(status.UNAUTHENTICATED);
  });

  it('roles: a player may not query stats, an admin may, and an admin may not find', async () => {
    expect((await queryStats(await bearer({ sub: 'alice', role: 'player' }))).code).toBe(status.PERMISSION_DENIED);
    expect((await queryStats(await bearer({ sub: 'ops', role: 'admin' }))).code).toBe(status.OK);
    expect((await find(await bearer({ sub: 'ops', role: 'admin' }), 'ops-find', ['ops'])).code).toBe(status.PERMISSION_DENIED);
  });

  it('trips the QueryStats rate with RESOURCE_EXHAUSTED naming the limit and a retry hint, and counts it', async () => {
    const admin = await bearer({ sub: 'ops-2', role: 'admin' });
    expect((await queryStats(admin)).code).toBe(status.OK);
    expect((await queryStats(admin)).code).toBe(status.OK);
    const third = await queryStats(admin);
    expect(third.code).toBe(status.RESOURCE_EXHAUSTED);
    expect(third.details).toMatch(/^limit rate.queryStats: /);
    expect(Number(third.retryAfter)).toBeGreaterThan(0);
    expect(limitEvents).toContainEqual({ limit: 'rate.queryStats', peer: 'admin:ops-2' });
  });
});

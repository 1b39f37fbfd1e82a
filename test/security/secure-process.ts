import { credentials, Metadata, status, type ClientDuplexStream, type ServiceError } from '@grpc/grpc-js';
import { SignJWT } from 'jose';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { get as httpsGet } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findGameRequest } from '../support/find-game.js';
import { startCoordinatorProcess, type ProcessOptions, type RunningCoordinator } from '../../src/app/coordinator-process.js';
import { parseConfig } from '../../src/config/load.js';
import { silentLog } from '../../src/coordinator/ports.js';
import { AdminClient } from '../../src/generated/gamefactory/v1/admin.js';
import { GameServerLinkClient, type CoordinatorMessage, type ServerMessage } from '../../src/generated/gamefactory/v1/game_server_link.js';
import { MatchmakerClient, type FindGameUpdate, type FindGamesRequest } from '../../src/generated/gamefactory/v1/matchmaker.js';
import { issue, makeCa, type KeyPairFiles } from './certs.js';
import { AUDIENCE, ISSUER, SECRET } from './tokens.js';

const SECRET_ENV = 'GAMEFACTORY_TEST_JWT_SECRET';

/**
 * The real coordinator process (startCoordinatorProcess, as the CLI starts it) with TLS, mTLS,
 * tokens and the given `limits:` YAML, on loopback, and clients to talk to it (issue 14).
 */
export class SecureProcess {
  private readonly closers: (() => void)[] = [];

  private constructor(
    readonly running: RunningCoordinator,
    private readonly dir: string,
    readonly ca: KeyPairFiles,
    readonly certs: Record<string, KeyPairFiles>,
    /** The file the process was started from: SIGHUP and Admin.ReloadConfig read it again. */
    readonly configPath: string,
  ) {}

  static async start(limitsYaml = '', extra: Partial<ProcessOptions> = {}): Promise<SecureProcess> {
    const dir = mkdtempSync(join(tmpdir(), 'gamefactory-secure-'));
    const ca = makeCa(dir, 'ca');
    const coordinator = issue(dir, ca, 'coordinator', { commonName: 'coordinator', dnsNames: ['localhost'] });
    const certs = { 'eu-1': issue(dir, ca, 'eu-1', { commonName: 'eu-1' }), 'eu-2': issue(dir, ca, 'eu-2', { commonName: 'eu-2' }) };
    process.env[SECRET_ENV] = SECRET;
    const yaml = `
security:
  tls: { certFile: ${JSON.stringify(coordinator.certFile)}, keyFile: ${JSON.stringify(coordinator.keyFile)}, caFile: ${JSON.stringify(ca.certFile)} }
  tokens: { issuer: ${ISSUER}, audience: ${AUDIENCE}, hmacSecretEnv: ${SECRET_ENV} }
${limitsYaml}
placement: { policy: fill, createTimeoutMs: 60000, maxQueuedPerFactory: 100, ticketTtlSeconds: 120 }
factories:
  - name: coop
    partitioning: { region: [eu] }
    cooperative: { maxPlayers: 4 }
`;
    const configPath = join(dir, 'secure.yaml');
    writeFileSync(configPath, yaml);
    const running = await startCoordinatorProcess({
      config: parseConfig(yaml, configPath),
      configPath,
      listen: '127.0.0.1:0',
      metricsListen: '127.0.0.1:0',
      dataDir: join(dir, 'data'),
      log: silentLog,
      security: { insecure: false },
      drainGraceMs: 1000,
      ...extra,
    });
    return new SecureProcess(running, dir, ca, certs, configPath);
  }

  async stop(): Promise<void> {
    for (const close of this.closers.splice(0)) close();
    await this.running.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }

  get address(): string {
    return `localhost:${this.running.grpcPort}`;
  }

  tls(client?: KeyPairFiles) {
    return credentials.createSsl(readFileSync(this.ca.certFile), client ? readFileSync(client.keyFile) : null, client ? readFileSync(client.certFile) : null);
  }

  matchmaker(): MatchmakerClient {
    const client = new MatchmakerClient(this.address, this.tls(), { 'grpc.max_send_message_length': -1 });
    this.closers.push(() => client.close());
    return client;
  }

  admin(): AdminClient {
    const client = new AdminClient(this.address, this.tls());
    this.closers.push(() => client.close());
    return client;
  }

  /** A game server over mTLS that never answers CreateGame, so tickets wait (placing) as long as we like. */
  gameServer(cert: KeyPairFiles | undefined, serverId: string) {
    const client = new GameServerLinkClient(this.address, this.tls(cert));
    this.closers.push(() => client.close());
    const stream: ClientDuplexStream<ServerMessage, CoordinatorMessage> = client.connect();
    let ended: ServiceError | undefined;
    const endedPromise = new Promise<ServiceError>((resolve) =>
      stream.on('error', (e: ServiceError) => {
        ended = e;
        resolve(e);
      }),
    );
    const welcomed = new Promise<void>((resolve, reject) => {
      stream.on('data', (m: CoordinatorMessage) => {
        if (m.order?.$case === 'welcome') resolve();
        if (m.order?.$case === 'keepalive') stream.write({ event: { $case: 'keepaliveAck', value: { sequence: m.order.value.sequence } } });
      });
      stream.on('error', reject);
    });
    stream.write({ event: { $case: 'hello', value: { serverId, endpoint: `${serverId}:7777`, attributes: {}, templates: [], capacity: { maxGames: 10, maxStartsPerSecond: 0 }, runningGames: [], pendingCreations: [] } } });
    return { welcomed, stream, ended: () => ended, endedPromise };
  }

  /** A FindGame that waits; `waiting` settles once the core holds the ticket (or the call ended), `result` when the call ends. */
  find(metadata: Metadata, ticketId: string, players: string[], extra: { template?: string; vetoedBytes?: number } = {}) {
    let over = false;
    const request = findGameRequest({ ticketId, template: extra.template ?? 'coop', party: players, partition: { region: 'eu' } });
    if (extra.vetoedBytes) request.vetoedMaps = Array.from({ length: Math.ceil(extra.vetoedBytes / 100) }, (_, i) => `${i}`.padEnd(100, 'm'));
    const call = this.matchmaker().findGame(request, metadata);
    const result = new Promise<{ code: number; details: string; retryAfter?: string }>((resolve) => {
      call.on('error', (e: ServiceError) => {
        over = true;
        resolve({ code: e.code, details: e.details, retryAfter: e.metadata?.get('retry-after-ms')[0] as string | undefined });
      });
      call.on('end', () => {
        over = true;
        resolve({ code: status.OK, details: '' });
      });
    });
    const waiting = until(() => over || this.running.coordinator.view.ticket(ticketId) !== undefined);
    return { call, waiting, result };
  }

  findGames(metadata: Metadata) {
    const updates: FindGameUpdate[] = [];
    const call: ClientDuplexStream<FindGamesRequest, FindGameUpdate> = this.matchmaker().findGames(metadata);
    call.on('data', (u: FindGameUpdate) => updates.push(u));
    const ended = new Promise<ServiceError | undefined>((resolve) => {
      call.on('error', (e: ServiceError) => resolve(e));
      call.on('end', () => resolve(undefined));
    });
    const send = (ticketId: string, players: string[]) =>
      call.write({ request: { $case: 'find', value: findGameRequest({ ticketId, template: 'coop', party: players, partition: { region: 'eu' } }) } });
    const cancel = (ticketId: string) => call.write({ request: { $case: 'cancel', value: { ticketId } } });
    return { call, updates, ended, send, cancel };
  }

  cancel(metadata: Metadata, ticketId: string): Promise<{ code: number; details: string; cancelled?: boolean }> {
    return new Promise((resolve) =>
      this.matchmaker().cancelFind({ ticketId }, metadata, (e, r) => resolve(e ? { code: e.code, details: e.details } : { code: status.OK, details: '', cancelled: r?.cancelled })),
    );
  }

  /** GET on the metrics port, which serves HTTPS with the coordinator's certificate when TLS is on. */
  metricsGet(path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
    return new Promise((resolve, reject) => {
      const request = httpsGet({ host: 'localhost', port: this.running.metricsPort, path, headers, ca: readFileSync(this.ca.certFile) }, (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      });
      request.on('error', reject);
    });
  }

  async metricsText(): Promise<string> {
    return (await this.metricsGet('/metrics')).body;
  }

  /** gamefactory_limit_refusals_total for `limit`, 0 when not yet counted. */
  async limitCount(limit: string): Promise<number> {
    const line = (await this.metricsText()).split('\n').find((l) => l.startsWith(`gamefactory_limit_refusals_total{limit="${limit}"}`));
    return line ? Number(line.split(' ').pop()) : 0;
  }
}

export const token = (claims: Record<string, unknown>) =>
  new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setIssuer(ISSUER).setAudience(AUDIENCE).setExpirationTime('5m').sign(new TextEncoder().encode(SECRET));

export async function bearer(claims: Record<string, unknown>): Promise<Metadata> {
  const m = new Metadata();
  m.set('authorization', `Bearer ${await token(claims)}`);
  return m;
}

/** Resolves when `check` holds, polling (no timed assertion: the test's own timeout bounds it). */
export async function until(check: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((r) => setTimeout(r, 20));
}

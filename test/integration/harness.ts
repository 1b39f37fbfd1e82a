import { credentials } from '@grpc/grpc-js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCoordinatorProcess, type ProcessOptions, type RunningCoordinator } from '../../src/app/coordinator-process.js';
import { GameServerConnection, type GameServerIdentity } from '../support/game-server-connection.js';
import { parseConfig } from '../../src/config/load.js';
import { silentLog, type Log } from '../../src/coordinator/ports.js';
import { MatchmakerClient } from '../../src/generated/gamefactory/v1/matchmaker.js';

/** A real coordinator on loopback (gRPC, metrics, LMDB in a temp dir), and helpers to talk to it. */
export class TestCoordinator {
  private readonly servers: GameServerConnection[] = [];
  private readonly clients: MatchmakerClient[] = [];

  private constructor(
    public running: RunningCoordinator,
    private readonly dataDir: string,
    private readonly yaml: string,
    private readonly log: Log,
  ) {}

  /** `seed` may fill the data directory before the coordinator opens it. */
  static async start(yaml: string, seed?: (dataDir: string) => Promise<void>, extra: Partial<ProcessOptions> = {}): Promise<TestCoordinator> {
    const dataDir = mkdtempSync(join(tmpdir(), 'gamefactory-test-'));
    await seed?.(dataDir);
    const log = extra.log ?? silentLog;
    return new TestCoordinator(await TestCoordinator.launch(yaml, dataDir, 0, { ...extra, log }), dataDir, yaml, log);
  }

  private static launch(yaml: string, dataDir: string, port: number, extra: Partial<ProcessOptions> = {}): Promise<RunningCoordinator> {
    return startCoordinatorProcess({
      config: parseConfig(yaml, 'test.yaml'),
      listen: `127.0.0.1:${port}`,
      metricsListen: '127.0.0.1:0',
      dataDir,
      log: silentLog,
      ...extra,
    });
  }

  /**
   * Stops the coordinator and starts a new one on the same port and data directory. `drain` stops
   * it as SIGTERM does (open streams end with UNAVAILABLE and a retry hint), `stop` at once.
   */
  async restart(how: 'stop' | 'drain' = 'stop'): Promise<void> {
    for (const s of this.servers.splice(0)) s.close();
    const port = this.running.grpcPort;
    await (how === 'drain' ? this.running.drain('restart') : this.running.stop());
    this.running = await TestCoordinator.launch(this.yaml, this.dataDir, port, { log: this.log });
  }

  get address(): string {
    return `127.0.0.1:${this.running.grpcPort}`;
  }

  async server(identity: Partial<GameServerIdentity> & { serverId: string }, behaviour: ConstructorParameters<typeof GameServerConnection>[2] = { autoJoin: true }) {
    const connection = new GameServerConnection(
      this.address,
      { endpoint: `${identity.serverId}.example:7777`, maxGames: 100, ...identity },
      behaviour,
    );
    this.servers.push(connection);
    await connection.connect();
    return connection;
  }

  client(): MatchmakerClient {
    const client = new MatchmakerClient(this.address, credentials.createInsecure());
    this.clients.push(client);
    return client;
  }

  async stop(): Promise<void> {
    for (const s of this.servers) s.close();
    for (const c of this.clients) c.close();
    await this.running.stop();
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}

/** Polls until `check` holds (for effects that cross the loopback), failing after `ms`. */
export async function eventually(check: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

export const DIABLO_YAML = `
placement: { policy: fill, createTimeoutMs: 5000, maxQueuedPerFactory: 1000, ticketTtlSeconds: 30 }
servers: { keepaliveIntervalMs: 1000 }
factories:
  - name: diablo
    partitioning:
      difficulty: [normal, hard]
      hardcore: [false, true]
      version: [v201, v202]
    matchable: [act, quest]
    cooperative: { maxPlayers: 4, order: fill, reservationMs: 2000 }
  - name: duel
    partitioning:
      version: [v201, v202]
    competitive:
      teams: 2
      teamSize: 1
      batch: { maxTickets: 1000, intervalMs: 50 }
      expansion:
        - { afterSeconds: 0, maxScoreGap: 100 }
        - { afterSeconds: 1, maxScoreGap: 400 }
      hillClimbBudgetMs: 5
`;

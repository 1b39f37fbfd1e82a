/**
 * Real Redis for tests: a `redis-server` on a free loopback port in a temp directory, or a
 * 3-master Redis Cluster of three such processes. Never the shared 127.0.0.1:6379.
 * Under CI=true a missing binary throws (the suite fails); elsewhere `redisBinaryPresent()` is
 * false and callers skip at run time with a message.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const SERVER = process.env.REDIS_SERVER_BIN ?? 'redis-server';
const CLI = process.env.REDIS_CLI_BIN ?? 'redis-cli';

/** Whether redis-server runs here; under CI=true a missing binary is an error, not a skip. */
export function redisBinaryPresent(): boolean {
  const ok = spawnSync(SERVER, ['--version']).status === 0 && spawnSync(CLI, ['--version']).status === 0;
  if (!ok && process.env.CI === 'true') {
    throw new Error(`${SERVER} or ${CLI} not found on PATH: install redis-server (apt-get install redis-server)`);
  }
  return ok;
}

/**
 * A free loopback port below the kernel's ephemeral range (32768 up), whose cluster bus port
 * (+10000) is free too. Below that range no listener on port 0 is handed it, so a test that kills
 * its Redis and starts it again on the same port cannot find another test's Redis there.
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const free = (p: number) => listenAndClose(p).then(() => true, () => false);
    if ((await free(port)) && (await free(port + 10_000))) return port;
  }
}

function listenAndClose(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(port, '127.0.0.1', () => {
      const address = s.address();
      s.close(() => resolve(typeof address === 'object' && address !== null ? address.port : port));
    });
  });
}

export interface RedisServerOptions {
  /** appendonly yes with this fsync policy; default off (and no RDB snapshots either). */
  readonly appendfsync?: 'always' | 'everysec' | 'no';
  readonly cluster?: boolean;
  /** Reuse a directory (e.g. to restart on the same AOF); default a new temp dir. */
  readonly dir?: string;
  readonly port?: number;
}

export class RedisServer {
  private constructor(
    readonly port: number,
    readonly dir: string,
    private readonly process: ChildProcess,
    private readonly ownsDir: boolean,
  ) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  static async start(options: RedisServerOptions = {}): Promise<RedisServer> {
    const port = options.port ?? (await freePort());
    const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'gf-redis-'));
    const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--daemonize', 'no'];
    args.push('--appendonly', options.appendfsync ? 'yes' : 'no');
    if (options.appendfsync) args.push('--appendfsync', options.appendfsync);
    if (options.cluster) args.push('--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-node-timeout', '2000');
    const child = spawn(SERVER, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
    const server = new RedisServer(port, dir, child, options.dir === undefined);
    try {
      await waitFor(async () => child.exitCode === null && (await ping(port)), 10_000);
    } catch {
      child.kill('SIGKILL');
      throw new Error(`redis-server on port ${port} did not start:\n${output.slice(-2000)}`);
    }
    return server;
  }

  /** Stops the process (SIGKILL: a crash, e.g. to test what AOF keeps) and keeps the dir. */
  async kill(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    if (this.process.exitCode !== null || this.process.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => this.process.once('exit', () => resolve()));
    this.process.kill(signal);
    await exited;
  }

  /** Sends a signal and returns: SIGSTOP freezes the server (connections stay open, nothing is answered) until SIGCONT. */
  signal(signal: NodeJS.Signals): void {
    if (this.process.exitCode === null && this.process.signalCode === null) this.process.kill(signal);
  }

  async stop(): Promise<void> {
    this.signal('SIGCONT'); // a frozen server would not act on SIGTERM
    await this.kill('SIGTERM');
    if (this.ownsDir) rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Three masters, no replicas, all 16384 slots assigned; `nodes` for ioredis' Cluster. */
export class RedisCluster {
  private constructor(readonly servers: readonly RedisServer[]) {}

  get nodes(): { host: string; port: number }[] {
    return this.servers.map((s) => ({ host: '127.0.0.1', port: s.port }));
  }

  static async start(masters = 3): Promise<RedisCluster> {
    const servers: RedisServer[] = [];
    try {
      for (let i = 0; i < masters; i++) servers.push(await RedisServer.start({ cluster: true }));
      const addresses = servers.map((s) => `127.0.0.1:${s.port}`);
      const created = spawnSync(CLI, ['--cluster', 'create', ...addresses, '--cluster-replicas', '0', '--cluster-yes'], {
        encoding: 'utf8',
        timeout: 20_000,
      });
      if (created.status !== 0) throw new Error(`redis-cli --cluster create failed:\n${created.stdout}\n${created.stderr}`);
      await waitFor(async () => servers.every((s) => clusterOk(s.port)), 15_000);
      return new RedisCluster(servers);
    } catch (error) {
      await Promise.all(servers.map((s) => s.stop()));
      throw error;
    }
  }

  async stop(): Promise<void> {
    await Promise.all(this.servers.map((s) => s.stop()));
  }
}

function clusterOk(port: number): boolean {
  const info = spawnSync(CLI, ['-p', String(port), 'cluster', 'info'], { encoding: 'utf8' });
  return info.stdout.includes('cluster_state:ok');
}

/** PING over a raw socket, so the harness depends on no client library. */
function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let reply = '';
    socket.setTimeout(500, () => socket.destroy());
    socket.once('error', () => resolve(false));
    socket.once('close', () => resolve(reply.startsWith('+PONG')));
    socket.on('data', (d) => {
      reply += d.toString();
      socket.end();
    });
    socket.once('connect', () => socket.write('PING\r\n'));
  });
}

async function waitFor(check: () => Promise<boolean> | boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Real coordinator processes for multi-node tests: `gamefactory start --redis ...` spawned with
 * tsx, ports read from the "listening" log line, killed with any signal (kill -9, SIGSTOP).
 */
import { credentials } from '@grpc/grpc-js';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MatchmakerClient } from '../../src/generated/gamefactory/v1/matchmaker.js';

/** How a node runs: from the TypeScript sources through tsx, or as the compiled `gamefactory` bin (dist/, after `npm run build`). */
export const FROM_SOURCES: readonly string[] = ['--import', 'tsx', 'src/cli/main.ts'];

export class NodeProcess {
  private output = '';
  private readonly exited: Promise<void>;

  private constructor(
    private readonly child: ChildProcess,
    private readonly dataDir: string,
    public grpcPort = 0,
  ) {
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    const collect = (chunk: Buffer) => (this.output += chunk.toString());
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
  }

  get address(): string {
    return `127.0.0.1:${this.grpcPort}`;
  }

  get pid(): number {
    return this.child.pid!;
  }

  get log(): string {
    return this.output;
  }

  /** False once the process has exited (or was killed). */
  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  matchmaker(): MatchmakerClient {
    return new MatchmakerClient(this.address, credentials.createInsecure());
  }

  /**
   * A node in the relay mode unless `extraEnv` names another (GAMEFACTORY_CLUSTER_MODE): the tests
   * of that mode name none. A variable given as undefined is left out (the command's default).
   */
  static async start(redisUrl: string, extraEnv: Record<string, string | undefined> = {}, program: readonly string[] = FROM_SOURCES): Promise<NodeProcess> {
    const dataDir = mkdtempSync(join(tmpdir(), 'gf-node-'));
    const child = spawn(
      process.execPath,
      [...program, 'start', '--redis', redisUrl, '--data', dataDir, '--listen', '127.0.0.1:0', '--metrics-listen', '127.0.0.1:0'],
      { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'pipe'], env: definedOnly({ ...process.env, GAMEFACTORY_LOG_FORMAT: 'json', GAMEFACTORY_LOG_LEVEL: 'info', GAMEFACTORY_CLUSTER_MODE: 'relay', ...extraEnv }) },
    );
    const node = new NodeProcess(child, dataDir);
    node.grpcPort = await node.waitFor(/"grpc":"127\.0\.0\.1:(\d+)"/, 30_000).then((m) => Number(m[1]));
    return node;
  }

  /** Resolves with the first match of `pattern` in the node's log (already there or to come). */
  waitFor(pattern: RegExp, timeoutMs: number, from = 0): Promise<RegExpExecArray> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const m = pattern.exec(this.output.slice(from));
        if (m) {
          clearInterval(timer);
          clearTimeout(deadline);
          resolve(m);
        }
      };
      const timer = setInterval(check, 20);
      const deadline = setTimeout(() => {
        clearInterval(timer);
        reject(new Error(`no ${pattern} in node log after ${timeoutMs} ms:\n${this.output.slice(-3000)}`));
      }, timeoutMs);
      check();
    });
  }

  signal(signal: NodeJS.Signals): void {
    this.child.kill(signal);
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.kill('SIGCONT');
      this.child.kill('SIGKILL');
    }
    await this.exited;
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}

function definedOnly(env: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
}

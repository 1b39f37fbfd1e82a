/**
 * A coordinator node of a chaos run: `gamefactory start --redis ...` (sharded, the default) as a
 * child process, with what its JSON log says about shard leases (each "now owns a shard" is a
 * fence observation) kept, and the rest of its log reduced to a tail for diagnostics.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FenceObserved } from '../../src/cluster/contract/index.js';
import { DEFAULT_SHARD_COUNT } from '../../src/sharding/index.js';

export class ChaosNode {
  readonly fences: FenceObserved[] = [];
  nodeId = '';
  leaseMs = 2000;
  port = 0;
  private partial = '';
  private tail: string[] = [];
  private readonly exited: Promise<void>;

  private constructor(
    private readonly child: ChildProcess,
    private readonly dir: string,
  ) {
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    child.stdout!.on('data', (chunk: Buffer) => this.read(chunk));
    child.stderr!.on('data', (chunk: Buffer) => this.read(chunk));
  }

  static async start(entry: readonly string[], redisUrl: string, configPath: string): Promise<ChaosNode> {
    const dir = mkdtempSync(join(tmpdir(), 'gf-chaos-node-'));
    const args = [...entry, 'start', '--redis', redisUrl, '--config', configPath, '--data', join(dir, 'data'), '--listen', '127.0.0.1:0', '--metrics-listen', '127.0.0.1:0'];
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, GAMEFACTORY_LOG_FORMAT: 'json', GAMEFACTORY_LOG_LEVEL: 'info' } });
    const node = new ChaosNode(child, dir);
    const deadline = Date.now() + 60_000;
    while (node.port === 0 || node.nodeId === '') {
      if (child.exitCode !== null) throw new Error(`a chaos node exited before listening:\n${node.log}`);
      if (Date.now() > deadline) throw new Error(`a chaos node did not listen within 60 s:\n${node.log}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    return node;
  }

  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  get log(): string {
    return this.tail.join('\n');
  }

  /** The shards this node owns now, by its log. */
  readonly owned = new Set<number>();

  signal(signal: NodeJS.Signals): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(signal);
  }

  async stop(): Promise<void> {
    this.signal('SIGCONT');
    this.signal('SIGKILL');
    await this.exited;
    rmSync(this.dir, { recursive: true, force: true });
  }

  private read(chunk: Buffer): void {
    const lines = (this.partial + chunk.toString()).split('\n');
    this.partial = lines.pop()!;
    for (const line of lines) {
      this.tail.push(line);
      if (this.tail.length > 40) this.tail.shift();
      if (!line.includes('"grpc"') && !line.includes('owns a shard') && !line.includes('joined the sharded cluster')) continue;
      let entry: Record<string, unknown>;
      try {
        entry = JSON.parse(line) as Record<string, unknown>;
      } catch {
        continue;
      }
      const at = typeof entry.time === 'string' ? Date.parse(entry.time) : Number(entry.time);
      const grpc = typeof entry.grpc === 'string' ? /:(\d+)$/.exec(entry.grpc) : null;
      if (grpc && this.port === 0) this.port = Number(grpc[1]);
      if (entry.msg === 'joined the sharded cluster') {
        this.nodeId = String(entry.node);
        if (typeof entry.leaseMs === 'number') this.leaseMs = entry.leaseMs;
      } else if (entry.msg === 'this node now owns a shard' && typeof entry.shard === 'number') {
        this.fences.push({ kind: 'fence', at, shard: entry.shard, token: Number(entry.token), node: String(entry.node) });
        this.owned.add(entry.shard);
      } else if (entry.msg === 'this node no longer owns a shard' && typeof entry.shard === 'number') this.owned.delete(entry.shard);
    }
  }
}

/**
 * Waits until the nodes' logs show every shard owned, by some of `nodes` only, each of them owning
 * some, and no shard taken for 1.5 s (the joins' rebalancing over), so the run's shard moves are the fault's (bounded).
 */
export async function settledShards(nodes: readonly ChaosNode[], timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const owned = new Set(nodes.flatMap((n) => [...n.owned]));
    const lastTaken = Math.max(0, ...nodes.flatMap((n) => n.fences.map((f) => f.at)));
    if (owned.size === DEFAULT_SHARD_COUNT && nodes.every((n) => n.owned.size > 0) && Date.now() - lastTaken > 1500) return;
    if (Date.now() > deadline) throw new Error(`the shards did not settle over the nodes within ${timeoutMs} ms (${nodes.map((n) => n.owned.size).join('/')} owned)`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

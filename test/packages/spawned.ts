import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';

/**
 * A child process whose output is kept, to wait for a line in it. It leads a process group of its
 * own, so stopping it kills what it started too (`npx` runs the bin in a grandchild).
 */
export class Spawned {
  private output = '';
  private readonly child: ChildProcess;
  readonly exited: Promise<number | null>;

  constructor(command: string, args: readonly string[], options: SpawnOptions) {
    this.child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const collect = (chunk: Buffer) => (this.output += chunk.toString());
    this.child.stdout?.on('data', collect);
    this.child.stderr?.on('data', collect);
    this.exited = new Promise((resolve) => this.child.once('exit', (code) => resolve(code)));
  }

  get log(): string {
    return this.output;
  }

  /** The first match of `pattern` in the output, now or to come; fails with the output so far. */
  waitFor(pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const match = pattern.exec(this.output);
        if (match) {
          clearInterval(timer);
          clearTimeout(deadline);
          resolve(match);
        } else if (this.child.exitCode !== null) {
          clearInterval(timer);
          clearTimeout(deadline);
          reject(new Error(`exited with ${this.child.exitCode} before ${pattern}:\n${this.output.slice(-3000)}`));
        }
      };
      const timer = setInterval(check, 20);
      const deadline = setTimeout(() => {
        clearInterval(timer);
        reject(new Error(`no ${pattern} after ${timeoutMs} ms:\n${this.output.slice(-3000)}`));
      }, timeoutMs);
      check();
    });
  }

  /** Signals the whole group: the child and whatever it started. */
  signal(signal: NodeJS.Signals): void {
    try {
      process.kill(-this.child.pid!, signal);
    } catch {
      // the group is gone already
    }
  }

  async stop(): Promise<void> {
    this.signal('SIGKILL');
    await this.exited;
  }
}

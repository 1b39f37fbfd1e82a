import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';

/** A child process whose output is kept, to wait for a line in it; killed for real at the end. */
export class Spawned {
  private output = '';
  private readonly child: ChildProcess;
  readonly exited: Promise<number | null>;

  constructor(command: string, args: readonly string[], options: SpawnOptions) {
    this.child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
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

  signal(signal: NodeJS.Signals): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(signal);
  }

  async stop(): Promise<void> {
    this.signal('SIGKILL');
    await this.exited;
  }
}

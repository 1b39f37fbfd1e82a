/**
 * Observations as JSON lines, one file per process: each process appends what it saw with the
 * machine's wall clock (all processes are local, so one clock), and the run merges the files by
 * time before feeding the contract.
 */
import { createWriteStream, readFileSync, type WriteStream } from 'node:fs';
import type { Observation } from '../../src/cluster/contract/index.js';

export class ObservationLog {
  private readonly out: WriteStream;
  private buffer: string[] = [];
  private readonly flusher: NodeJS.Timeout;

  constructor(path: string) {
    this.out = createWriteStream(path, { flags: 'a' });
    // Batched writes: at a few thousand observations a second, a write per line would cost more than the load.
    this.flusher = setInterval(() => this.flush(), 200);
    this.flusher.unref();
  }

  /** Records an observation stamped now (wall clock) unless it carries its own time. */
  add(o: DistributiveOmit<Observation, 'at'> & { at?: number }): void {
    this.buffer.push(JSON.stringify({ ...o, at: o.at ?? Date.now() }));
    if (this.buffer.length >= 2000) this.flush();
  }

  flush(): void {
    if (this.buffer.length === 0) return;
    this.out.write(`${this.buffer.join('\n')}\n`);
    this.buffer = [];
  }

  close(): Promise<void> {
    clearInterval(this.flusher);
    this.flush();
    return new Promise((resolve) => this.out.end(resolve));
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** Every observation of these files, merged by time (stable: a file's own order is kept among equal times). */
export function mergedObservations(paths: readonly string[]): Observation[] {
  const all: Observation[] = [];
  for (const path of paths) {
    let text = '';
    try {
      text = readFileSync(path, 'utf8');
    } catch {
      continue; // a process that recorded nothing
    }
    for (const line of text.split('\n')) if (line.startsWith('{')) all.push(JSON.parse(line) as Observation);
  }
  return all.sort((a, b) => a.at - b.at);
}

import { SingleBar, Presets } from 'cli-progress';
import { randomUUID } from 'node:crypto';
import { parsePairs } from '../examples/plain-pairs.js';
import { runLoad } from './load-generator.js';

/** `gamefactory loadgen`: runs the load with a progress bar, then prints what it measured. */
export async function runLoadCommand(opts: Record<string, string | string[] | boolean>): Promise<void> {
  const number = (name: string) => {
    const value = Number(opts[name]);
    if (!Number.isFinite(value) || value < 0) throw new Error(`--${name}: "${String(opts[name])}" is not a number >= 0`);
    return value;
  };
  const mode = opts.mode === 'unary' ? 'unary' : opts.mode === 'stream' ? 'stream' : undefined;
  if (!mode) throw new Error(`--mode: "${String(opts.mode)}" is not unary or stream`);
  const tickets = number('tickets');
  const bar = new SingleBar({ format: 'FindGame {bar} {value}/{total} tickets | {eta_formatted} left' }, Presets.shades_classic);
  bar.start(tickets, 0);
  const report = await runLoad({
    address: String(opts.coordinator),
    followOwner: opts.followOwner === true,
    servers: number('servers'),
    maxGamesPerServer: number('maxGames'),
    playersPerGame: number('playersPerGame'),
    tickets,
    rate: number('rate'),
    concurrency: Math.max(1, number('concurrency')),
    mode,
    batch: opts.batch !== false,
    template: String(opts.template),
    partition: parsePairs(opts.partition as string[]),
    matchable: parsePairs(opts.match as string[]),
    runId: `load-${randomUUID().slice(0, 8)}`,
    onProgress: (done) => bar.update(done),
  });
  bar.stop();
  console.log(`sent ${report.sent}, assigned ${report.assigned} in ${(report.elapsedMs / 1000).toFixed(1)} s`);
  console.log(`matches/s: ${report.matchesPerSecond.toFixed(0)}`);
  console.log(`time to assignment: p50 ${report.p50Ms.toFixed(1)} ms, p99 ${report.p99Ms.toFixed(1)} ms`);
  console.log(`games filled and ended by the fake servers: ${report.gamesEnded}`);
  const errors = Object.entries(report.errorsByCode);
  console.log(errors.length === 0 ? 'errors: none' : `errors by code: ${errors.map(([c, n]) => `${c}: ${n}`).join(', ')}`);
  for (const [code, message] of Object.entries(report.errorExamples)) console.log(`  e.g. ${code}: ${message}`);
  if (report.assigned < report.sent) process.exitCode = 1;
}

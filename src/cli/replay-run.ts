import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { ConfigError, loadConfigFile } from '../config/load.js';
import { ArrivalLogError, parseArrivalLog } from '../replay/arrival-log.js';
import { recordedRun, replayArrivals, type ReplayResult } from '../replay/replay.js';
import { replayCharts, replayTable } from '../replay/replay-report.js';

/** `gamefactory replay`'s work, in its own module: the matchers and charts load only for it. */
export async function runReplayCommand(file: string, opts: { config: string[]; out: string; seed: string }): Promise<void> {
  let log;
  let configs;
  try {
    log = parseArrivalLog(readFileSync(file, 'utf8'), file);
    configs = opts.config.map((path) => ({ path, config: loadConfigFile(path) }));
  } catch (error) {
    if (error instanceof ArrivalLogError || error instanceof ConfigError || (error as NodeJS.ErrnoException).code === 'ENOENT') {
      console.error((error as Error).message);
      process.exitCode = 2;
      return;
    }
    throw error;
  }
  const seed = Number(opts.seed);
  const results: ReplayResult[] = [];
  const recorded = recordedRun(log);
  if (recorded !== undefined) results.push(recorded);
  // Two files of the same name in different folders stay apart in the table.
  const names = configs.map((c) => basename(c.path));
  for (const [i, { path, config }] of configs.entries()) {
    const label = names.filter((n) => n === names[i]).length > 1 ? path : (names[i] as string);
    results.push(replayArrivals(log, config, label, seed));
  }
  console.log(replayTable(results));
  for (const r of results) {
    for (const refused of r.refused) console.log(`${r.label}: ${refused.tickets} tickets refused: ${refused.reason}`);
  }
  mkdirSync(opts.out, { recursive: true });
  writeFileSync(join(opts.out, 'report.json'), `${JSON.stringify({ source: log.header.source, results }, null, 2)}\n`);
  for (const chart of await replayCharts(results)) writeFileSync(join(opts.out, chart.file), chart.svg);
  console.error(`wrote ${opts.out}/report.json and charts`);
}

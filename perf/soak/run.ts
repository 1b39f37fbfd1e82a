import { Command } from 'commander';
import { mkdirSync, writeFileSync } from 'node:fs';
import { renderSvg } from '../../src/charts/vega-svg.js';
import { runSoak, type SoakReport } from './soak-run.js';

/** `npm run soak -- --minutes 10`: memory over time (SVG), slopes and p99 per minute (JSON). */
const opts = new Command()
  .option('--minutes <n>', 'how long to drive the load', '10')
  .option('--load <fraction>', 'fraction of the measured maximum rate (half: sustained, not a burst)', '0.5')
  .option('--servers <n>', 'fake game servers per segment', '8')
  .option('--segment-seconds <n>', 'servers join and leave every this many seconds', '30')
  .option('--out <dir>', 'where the chart and report go', 'perf/results/soak')
  .parse()
  .opts<{ minutes: string; load: string; servers: string; segmentSeconds: string; out: string }>();

const report = await runSoak({
  minutes: Number(opts.minutes),
  load: Number(opts.load),
  probeTickets: 20_000,
  servers: Number(opts.servers),
  segmentSeconds: Number(opts.segmentSeconds),
  warmupMinutes: 2,
  onProgress: (line) => console.error(line),
});
mkdirSync(opts.out, { recursive: true });
writeFileSync(`${opts.out}/memory.svg`, await memoryChart(report));
const { samples, ...summary } = report;
writeFileSync(`${opts.out}/report.json`, JSON.stringify({ ...summary, samples }, null, 2));
console.log(JSON.stringify({ ...summary, samples: samples.length }, null, 2));
process.exit(0);

function memoryChart(r: SoakReport): Promise<string> {
  const values = r.samples.flatMap((s) => [
    { minute: s.minute, mb: s.rssMb, series: 'RSS' },
    { minute: s.minute, mb: s.heapMb, series: 'heap used' },
  ]);
  return renderSvg({
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: `soak at ${r.drivenRatePerSecond}/s (${Math.round((100 * r.drivenRatePerSecond) / r.maxRatePerSecond)}% of ${r.maxRatePerSecond.toFixed(0)}): RSS ${r.slopes.rssMbPerMin.toFixed(2)} MB/min, heap ${r.slopes.heapMbPerMin.toFixed(2)} MB/min after warm-up`,
    background: 'white',
    width: 560,
    height: 280,
    data: { values },
    mark: { type: 'line', point: false },
    encoding: {
      x: { field: 'minute', type: 'quantitative', title: 'minutes' },
      y: { field: 'mb', type: 'quantitative', title: 'MB' },
      color: { field: 'series', type: 'nominal', title: null },
    },
  });
}

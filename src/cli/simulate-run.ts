import { createWriteStream, mkdirSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { ConfigError, loadConfigFile } from '../config/load.js';
import { serializeArrivalLog } from '../replay/arrival-log.js';
import { exportArrivals } from '../simulation/arrival-export.js';
import { renderCharts } from '../simulation/charts.js';
import { renderPaperCharts } from '../simulation/paper/paper-charts.js';
import { runPaperExperiment } from '../simulation/paper/paper-experiment.js';
import { loadPaperScenarioFile, type PaperScenario } from '../simulation/paper/paper-scenario.js';
import { loadScenarioFile, ScenarioError } from '../simulation/scenario.js';
import { runSimulation } from '../simulation/simulation.js'
;

export interface SimulateOptions {
  readonly config: string;
  readonly scenario: string;
  readonly out?: string;
  readonly exportArrivals?: string;
  readonly exportHours: string;
}

/** `gamefactory simulate`'s work, in its own module: the simulator and its charts load only for it. */
export async function runSimulateCommand(opts: SimulateOptions): Promise<void> {
  let config;
  let scenario;
  try {
    const paper = loadPaperScenarioFile(opts.scenario);
    if (paper !== undefined) {
      await runPaper(paper, opts.out ?? 'perf/results/parallel-matchmaking');
      return;
    }
    config = loadConfigFile(opts.config);
    scenario = loadScenarioFile(opts.scenario);
  } catch (error) {
    if (error instanceof ConfigError || error instanceof ScenarioError) {
      console.error(error.message);
      process.exitCode = 2;
      return;
    }
    throw error;
  }
  if (opts.exportArrivals !== undefined) {
    const hours = Number(opts.exportHours);
    if (!(hours > 0 && hours <= scenario.durationHours)) {
      console.error(`--export-hours: must be a number of hours within the scenario's ${scenario.durationHours}`);
      process.exitCode = 2;
      return;
    }
    const log = exportArrivals(scenario, config, hours);
    const out = createWriteStream(opts.exportArrivals);
    for (const line of serializeArrivalLog(log)) {
      if (!out.write(`${line}\n`)) await once(out, 'drain');
    }
    out.end();
    await once(out, 'finish');
    console.error(`wrote ${log.events.length} events to ${opts.exportArrivals}`);
    return;
  }
  const started = performance.now();
  const report = runSimulation({
    scenario,
    config,
    progress: (what) => console.error(`[${((performance.now() - started) / 1000).toFixed(1)} s] ${what}`),
  });
  const out = opts.out ?? 'perf/results/simulation';
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'report.json'), `${JSON.stringify(report, null, 2)}\n`);
  const charts = await renderCharts(report);
  for (const chart of charts) writeFileSync(join(out, chart.file), chart.svg);
  console.error(`[${((performance.now() - started) / 1000).toFixed(1)} s] wrote ${out}/report.json and ${charts.length} charts`);
  for (const goal of report.goals) {
    const ours = goal.ours ? `${goal.ours.matcher} ${goal.ours.setting}: ${goal.ours.meanGapSigma} sd` : 'no setting of ours waits as little';
    console.log(
      `${goal.rate}/s vs ${goal.baseline} (${goal.baselineSetting}): ${goal.baselineGap} sd; ours ${ours}; ` +
        `${Number.isNaN(goal.gapReduction) ? '-' : `${(goal.gapReduction * 100).toFixed(0)}% lower`} ${goal.met ? 'MET' : 'not met'}`,
    );
  }
  const g = report.goalSummary;
  console.log(`gap lower at ${g.lower} of ${g.points} baseline points, by 20% or more at ${g.met}: ${g.achieved ? 'goal met' : 'goal not met'}`);
  for (const s of report.shipped) {
    const best = s.best ? `${s.best.matcher} ${s.best.setting}: ${s.best.meanGapSigma} sd` : 'none waits as little';
    console.log(
      `${s.rate}/s ${report.scenario.factory} as shipped: ${s.shipped.meanGapSigma} sd at ${s.shipped.meanWaitS} s mean, ${s.shipped.p99WaitS} s p99; ` +
        `best of ours waiting no longer ${best}; ${(s.excess * 100).toFixed(1)}% above: ${s.onFrontier ? 'on the frontier' : 'NOT on the frontier'}`,
    );
  }
  for (const r of report.ratings) {
    console.log(`${r.system}: ${(r.within2_5PercentAfter10Games * 100).toFixed(1)}% of ${r.playersWith10Games} players with 10+ games within 2.5% of the rating range of their true rank`);
  }
  for (const r of report.readyCheck) {
    const what = r.acceptance === undefined ? 'no ready check' : `ready check, ${(r.acceptance * 100).toFixed(0)}% acceptance`;
    console.log(`${report.scenario.perSecond}/s ${report.scenario.factory}, ${what}: wait ${r.meanWaitS} s mean, ${r.p99WaitS} s p99 (${r.games} games, ${r.brokenMatches} broken)`);
  }
  for (const c of [report.cooperative, ...report.cooperativeByRate]) {
    if (c) console.log(`cooperative ${c.factory} at ${c.perSecond}/s (${c.playersPerCombination} players per act): ${(c.fullShare * 100).toFixed(1)}% of games full`);
  }
}

/** The parallel-matchmaking paper's experiment: four runs, a report and the convergence charts. */
async function runPaper(scenario: PaperScenario, out: string): Promise<void> {
  const started = performance.now();
  let last = started;
  const report = runPaperExperiment(scenario, (what) => {
    const now = performance.now();
    console.error(`[${((now - started) / 1000).toFixed(1)} s, last run ${((now - last) / 1000).toFixed(1)} s] ${what}`);
    last = now;
  });
  console.error(`[${((performance.now() - started) / 1000).toFixed(1)} s, last run ${((performance.now() - last) / 1000).toFixed(1)} s] done`);
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'report.json'), `${JSON.stringify(report, null, 2)}\n`);
  const charts = await renderPaperCharts(report);
  for (const chart of charts) writeFileSync(join(out, chart.file), chart.svg);
  for (const run of report.runs) {
    const last = run.samples[run.samples.length - 1];
    const spread = last === undefined ? '' : last.groups.map((g) => `${g.group}: ${g.players} players, true ${g.meanTrueMmr.toFixed(0)}, wins ${(g.winRate * 100).toFixed(1)}%`).join('; ');
    console.log(
      `${run.system}, ${run.matcher}: ${run.games} games, wait mean ${run.waitTicks.mean.toFixed(2)} ticks (p99 ${run.waitTicks.p99}), ` +
        `true-MMR gap mean ${run.gapSd.mean.toFixed(3)} sd; at the end ${spread}`,
    );
  }
  console.error(`wrote ${out}/report.json and ${charts.length} charts`);
}

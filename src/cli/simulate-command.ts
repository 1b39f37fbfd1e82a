import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { ConfigError, loadConfigFile } from '../config/load.js';

/**
 * `gamefactory simulate`: a population through the real matchers in simulated time;
 * writes report.json and the SVG charts to --out. Elo, Glicko-2 and TrueSkill rate every game.
 */
export function registerSimulateCommand(program: Command): void {
  program
    .command('simulate')
    .description('simulate a population through the real matchers and write a JSON report and SVG charts')
    .option('--config <path>', 'factory templates', 'factories.yaml')
    .option('--scenario <path>', 'scenario YAML', 'scenarios/default.yaml')
    .option('--out <dir>', 'where report.json and the charts go', 'perf/results/simulation')
    .action(async (opts: { config: string; scenario: string; out: string }) => {
      // Loaded here, not at start: the charts' libraries alone would add tens of MB to every coordinator.
      const { renderCharts } = await import('../simulation/charts.js');
      const { loadScenarioFile, ScenarioError } = await import('../simulation/scenario.js');
      const { runSimulation } = await import('../simulation/simulation.js');
      let config;
      let scenario;
      try {
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
      const started = performance.now();
      const report = runSimulation({
        scenario,
        config,
        progress: (what) => console.error(`[${((performance.now() - started) / 1000).toFixed(1)} s] ${what}`),
      });
      mkdirSync(opts.out, { recursive: true });
      writeFileSync(join(opts.out, 'report.json'), `${JSON.stringify(report, null, 2)}\n`);
      const charts = await renderCharts(report);
      for (const chart of charts) writeFileSync(join(opts.out, chart.file), chart.svg);
      console.error(`[${((performance.now() - started) / 1000).toFixed(1)} s] wrote ${opts.out}/report.json and ${charts.length} charts`);
      for (const goal of report.goals) {
        const ours = goal.ours ? `${goal.ours.setting}: ${goal.ours.meanGapSigma} sd` : 'no setting of ours waits as little';
        console.log(
          `${goal.rate}/s vs ${goal.baseline} (${goal.baselineSetting}): ${goal.baselineGap} sd; ours ${ours}; ` +
            `${Number.isNaN(goal.gapReduction) ? '-' : `${(goal.gapReduction * 100).toFixed(0)}% lower`} ${goal.met ? 'MET' : 'not met'}`,
        );
      }
      for (const r of report.ratings) {
        console.log(`${r.system}: ${(r.within2_5PercentAfter10Games * 100).toFixed(1)}% of ${r.playersWith10Games} players with 10+ games within 2.5% of the rating range of their true rank`);
      }
      for (const c of [report.cooperative, ...report.cooperativeByRate]) {
        if (c) console.log(`cooperative ${c.factory} at ${c.perSecond}/s (${c.playersPerCombination} players per act): ${(c.fullShare * 100).toFixed(1)}% of games full`);
      }
    });
}

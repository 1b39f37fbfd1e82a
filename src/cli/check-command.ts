import type { Command } from 'commander';
import { ConfigError, loadConfigFile } from '../config/load.js';
import type { PreviewOptions } from './check/competitive-preview.js';
import { factoriesPerTemplate, hostableFactories, serverAttributes } from './check/hostable-factories.js';

interface CheckFlags {
  serverAttr: string[];
  serverTemplate: string[];
  preview: boolean;
  rates: string;
  tickets: string;
  scoreMean: string;
  scoreSd: string;
  seed: string;
}

/**
 * `gamefactory check factories.yaml`: the config as the coordinator would read it, before it goes
 * live. Invalid: every error with its path in the file, exit 1. Valid: the factories of each
 * template (or those a server with --server-attr would serve), then the waits and skill gaps each
 * competitive template would give at a few arrival rates, simulated with the real matcher.
 */
export function registerCheckCommand(program: Command): void {
  program
    .command('check')
    .description('validate factories.yaml, list the factories a server would serve, preview competitive waits and gaps')
    .argument('[config]', 'factory templates', 'factories.yaml')
    .option('--server-attr <key=value...>', 'list the factories a game server with these attributes would serve', [])
    .option('--server-template <name...>', 'with --server-attr: the templates the server offers (default: all)', [])
    .option('--no-preview', 'skip the simulated preview of competitive templates')
    .option('--rates <list>', 'preview: arrivals per second, comma-separated', '1,10,100')
    .option('--tickets <n>', 'preview: tickets simulated per rate', '2000')
    .option('--score-mean <n>', "preview: mean of the game's player scores", '1500')
    .option('--score-sd <n>', "preview: standard deviation of the game's player scores", '200')
    .option('--seed <n>', 'preview: random seed (the same seed gives the same figures)', '1')
    .action(async (file: string, flags: CheckFlags) => {
      let config;
      try {
        config = loadConfigFile(file);
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        console.error(error.message);
        process.exitCode = 1;
        return;
      }
      let preview: PreviewOptions;
      let attributes;
      try {
        preview = previewOptions(flags);
        attributes = serverAttributes(flags.serverAttr);
      } catch (error) {
        console.error(`error: ${(error as Error).message}`);
        process.exitCode = 2;
        return;
      }
      console.log(`${file}: valid`);
      for (const t of factoriesPerTemplate(config)) console.log(`  ${t.template} (${t.strategy}): ${t.factories} ${t.factories === 1 ? 'factory' : 'factories'}`);

      if (flags.serverAttr.length > 0 || flags.serverTemplate.length > 0) {
        const { factories, unknownTemplates } = hostableFactories(config, attributes, flags.serverTemplate);
        const who = [...flags.serverAttr, ...flags.serverTemplate.map((t) => `template ${t}`)].join(', ');
        console.log(`\na server with ${who} would serve ${factories.length} ${factories.length === 1 ? 'factory' : 'factories'}:`);
        for (const name of factories) console.log(`  ${name}`);
        for (const name of unknownTemplates) console.log(`  (template "${name}" is not in ${file}: the coordinator refuses such a hello)`);
      }

      if (!flags.preview) return;
      // The simulator is loaded only for the preview, not by every command.
      const { previewCompetitive } = await import('./check/competitive-preview.js');
      const rows = previewCompetitive(config, preview);
      if (rows.length === 0) return;
      console.log(
        `\npreview of competitive templates: the real matcher in simulated time, ${preview.tickets} tickets per rate, ` +
          `scores ~ N(${preview.scoreMean}, ${preview.scoreSd}) (gap: best minus worst score in a game)`,
      );
      console.log(`  ${'template'.padEnd(16)} ${'rate/s'.padStart(7)} ${'games'.padStart(6)} ${'wait mean'.padStart(10)} ${'wait p99'.padStart(9)} ${'gap mean'.padStart(16)} ${'gap p99'.padStart(16)}`);
      for (const r of rows) {
        const gap = (sigma: number) => `${(sigma * preview.scoreSd).toFixed(0)} (${sigma.toFixed(2)} sd)`;
        console.log(
          `  ${r.template.padEnd(16)} ${String(r.rate).padStart(7)} ${String(r.games).padStart(6)} ${`${r.meanWaitS.toFixed(1)} s`.padStart(10)} ` +
            `${`${r.p99WaitS.toFixed(1)} s`.padStart(9)} ${gap(r.meanGapSigma).padStart(16)} ${gap(r.p99GapSigma).padStart(16)}`,
        );
      }
    });
}

function previewOptions(flags: CheckFlags): PreviewOptions {
  const positive = (flag: string, raw: string) => {
    const value = Number(raw);
    if (!Number.isFinite(value) || value <= 0) throw new Error(`${flag}: "${raw}" must be a number > 0`);
    return value;
  };
  const rates = flags.rates.split(',').map((r) => positive('--rates', r.trim()));
  const tickets = positive('--tickets', flags.tickets);
  if (!Number.isInteger(tickets) || tickets > 1_000_000) throw new Error(`--tickets: "${flags.tickets}" must be a whole number up to 1000000`);
  const seed = Number(flags.seed);
  if (!Number.isInteger(seed) || seed < 0) throw new Error(`--seed: "${flags.seed}" must be a whole number >= 0`);
  const scoreMean = Number(flags.scoreMean);
  if (!Number.isFinite(scoreMean)) throw new Error(`--score-mean: "${flags.scoreMean}" is not a number`);
  return { rates, tickets, scoreMean, scoreSd: positive('--score-sd', flags.scoreSd), seed };
}

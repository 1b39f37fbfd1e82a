import type { Command } from 'commander';

/**
 * `gamefactory simulate`: a population through the real matchers in simulated time;
 * writes report.json and the SVG charts to --out. Elo, Glicko-2 and TrueSkill rate every game.
 * With the parallel-matchmaking scenario, that paper's experiment; with --export-arrivals, the
 * scenario's day as a recording for `gamefactory replay`.
 */
export function registerSimulateCommand(program: Command): void {
  program
    .command('simulate')
    .description('simulate a population through the real matchers and write a JSON report and SVG charts')
    .option('--config <path>', 'factory templates', 'factories.yaml')
    .option('--scenario <path>', 'scenario YAML', 'scenarios/default.yaml')
    .option('--out <dir>', 'where report.json and the charts go (default perf/results/simulation, or perf/results/parallel-matchmaking for that experiment)')
    .option('--export-arrivals <file>', "instead of the report: write the day's first hours as a recording for `gamefactory replay`")
    .option('--export-hours <hours>', 'how many hours of the day --export-arrivals writes', '1')
    .action(async (opts: { config: string; scenario: string; out?: string; exportArrivals?: string; exportHours: string }) => {
      // Loaded here, not at start: the charts' libraries alone would add tens of MB to every coordinator.
      const { runSimulateCommand } = await import('./simulate-run.js');
      await runSimulateCommand(opts);
    });
}

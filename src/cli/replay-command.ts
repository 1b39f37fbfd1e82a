import type { Command } from 'commander';

/**
 * `gamefactory replay FILE --config A.yaml --config B.yaml`: recorded arrivals (a coordinator's
 * --record, or `gamefactory simulate --export-arrivals`) through the real matchers of each
 * configuration in simulated time; prints waits, gaps and quality side by side and writes
 * report.json and charts to --out.
 */
export function registerReplayCommand(program: Command): void {
  program
    .command('replay')
    .description('run recorded arrivals through the matchers of one or more configurations and compare waits, gaps and quality')
    .argument('<file>', 'a recording (JSON lines, gamefactory-arrivals format)')
    .option('--config <path...>', 'configurations to compare (factories.yaml files)', ['factories.yaml'])
    .option('--out <dir>', 'where report.json and the charts go', 'replay-report')
    .option('--seed <n>', "seed of the matchers' random choices", '1')
    .action(async (file: string, opts: { config: string[]; out: string; seed: string }) => {
      // Loaded here, not at start: the charts' libraries alone would add tens of MB to every coordinator.
      const { runReplayCommand } = await import('./replay-run.js');
      await runReplayCommand(file, opts);
    });
}

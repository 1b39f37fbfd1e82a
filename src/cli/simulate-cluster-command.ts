import type { Command } from 'commander';

/**
 * `gamefactory simulate-cluster`: the whole cluster in the deterministic simulator, schedule after
 * schedule (one seed each), the contract checked after every step. A failing seed is printed with
 * its faults and what broke, and replays exactly with `--seed N --schedules 1`.
 */
export function registerSimulateClusterCommand(program: Command): void {
  program
    .command('simulate-cluster')
    .description('run seeded schedules of a whole cluster (nodes, Redis, game servers, clients, faults) and check the contract after every step')
    .option('--schedules <n>', 'how many schedules to run', '100')
    .option('--seed <n>', 'the first seed', '1')
    .option('--tickets <n>', 'finds per schedule', '40')
    .option('--faults <n>', 'faults per schedule (kill -9, SIGSTOP, Redis restarts); default 1 to 3 by seed')
    .action(async (opts: { schedules: string; seed: string; tickets: string; faults?: string }) => {
      const { simulateCluster } = await import('../cluster/simulation/simulate-cluster.js');
      const schedules = positive('--schedules', opts.schedules);
      const first = positive('--seed', opts.seed);
      const tickets = positive('--tickets', opts.tickets);
      const started = Date.now();
      let failed = 0;
      for (let seed = first; seed < first + schedules; seed++) {
        const faults = opts.faults === undefined ? 1 + (seed % 3) : Number(opts.faults);
        const result = await simulateCluster({ seed, tickets, faults, durationMs: 8_000 });
        if (result.violations.length > 0) {
          failed++;
          console.log(`seed ${seed} FAILED (${result.faults.join('; ')})`);
          for (const v of result.violations.slice(0, 10)) console.log(`  ${v.rule} at ${v.at} ms: ${v.detail}`);
          for (const [ticketId, story] of Object.entries(result.stories)) console.log(`  ${ticketId} heard: ${story.join('; ')}`);
        }
        if ((seed - first + 1) % 100 === 0) console.error(`${seed - first + 1} schedules, ${failed} failed, ${Math.round((Date.now() - started) / 1000)} s`);
      }
      console.log(`${schedules} schedules from seed ${first}: ${failed} failed, in ${Math.round((Date.now() - started) / 1000)} s`);
      if (failed > 0) process.exitCode = 1;
    });
}

function positive(flag: string, value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${flag}: "${value}" is not a positive whole number`);
  return n;
}

import type { Command } from 'commander';

/**
 * The commands that play the other side of the coordinator (example game server, example player
 * client, load generator). They live in clients/ and are built on the SDK and client packages; the
 * coordinator never loads them, so they are imported only when one of these commands runs.
 */
export function registerClientCommands(program: Command): void {
  program
    .command('example-server')
    .description('run an example game server that hosts every factory it can and seats its players at once')
    .option('--coordinator <host:port,...>', 'coordinator address (several, comma-separated: the next is tried after a failure)', '127.0.0.1:50051')
    .option('--id <serverId>', 'server id', `example-${process.pid}`)
    .option('--endpoint <host:port>', 'address players would connect to', '127.0.0.1:7777')
    .option('--max-games <n>', 'slots: max concurrent games', '100')
    .option('--attr <key=value...>', 'server attributes, e.g. version=v201', [])
    .option('--game-seconds <n>', 'each game ends this long after it starts, freeing its slot (0: never)', '60')
    .action(
      userErrors(async (opts: { coordinator: string; id: string; endpoint: string; maxGames: string; attr: string[]; gameSeconds: string }) => {
        const { runExampleServer } = await import('../../clients/examples/game-server.js');
        await runExampleServer(opts);
      }),
    );

  program
    .command('find')
    .description('an example player client: find a game for a party and print each update (queued at position N, then the assignment)')
    .option('--coordinator <host:port,...>', 'coordinator address (several, comma-separated: the ticket resumes on the next after a failure)', '127.0.0.1:50051')
    .option('--template <name>', 'factory template', 'diablo')
    .option('--player <id...>', 'the party; for competitive factories, id:score gives a member its score', [`player-${process.pid}`])
    .option('--score <n>', 'competitive: the score of every member given without one')
    .option('--latency <region=ms...>', 'competitive: measured round trip to each region, e.g. eu-west=35', [])
    .option('--partition <key=value...>', 'partitioning attributes', ['difficulty=hard', 'hardcore=false', 'version=v201'])
    .option('--match <key=value...>', 'matchable attributes', [])
    .option('--timeout <ms>', 'give up (and cancel the ticket) after this long')
    .option('--json', 'print each update as one line of JSON, for scripts')
    .action(
      userErrors(async (opts: { coordinator: string; template: string; player: string[]; score?: string; latency: string[]; partition: string[]; match: string[]; timeout?: string; json?: boolean }) => {
        const { runExampleClient } = await import('../../clients/examples/player-client.js');
        await runExampleClient(opts);
      }),
    );

  program
    .command('loadgen')
    .description('load generator: fake game servers and a FindGame arrival rate against any coordinator')
    .option('--coordinator <host:port[,host:port...]>', 'coordinator address, or several nodes of a cluster', '127.0.0.1:50051')
    .option('--follow-owner', 'with several --coordinator nodes: send each find to the node a route hint named as its factory\'s owner (sharded cluster), not by turn or over one stream', false)
    .option('--servers <n>', 'fake game servers to connect', '10')
    .option('--max-games <n>', 'slots per fake server', '1000')
    .option('--players-per-game <n>', 'a fake server ends a game when this many players are in it', '4')
    .option('--tickets <n>', 'FindGame tickets to send', '20000')
    .option('--rate <n>', 'arrivals per second (0: as fast as --concurrency allows)', '0')
    .option('--concurrency <n>', 'most tickets in flight', '512')
    .option('--mode <mode>', 'unary (a FindGame call per ticket) or stream (one FindGames stream)', 'stream')
    .option('--template <name>', 'factory template', 'diablo')
    .option('--partition <key=value...>', 'partitioning attributes', ['difficulty=hard', 'hardcore=false', 'version=v201'])
    .option('--match <key=value...>', 'matchable attributes', [])
    .option('--no-batch', 'one find per FindGames message and one report per server message (no batching)')
    .action(
      userErrors(async (opts: Record<string, string & string[]>) => {
        const { runLoadCommand } = await import('../../clients/loadgen/load-command.js');
        await runLoadCommand(opts);
      }),
    );
}

/** A flag the command cannot read is the user's to fix: its message and exit code 2, no stack. */
function userErrors<T>(action: (opts: T) => Promise<void>): (opts: T) => Promise<void> {
  return async (opts) => {
    try {
      await action(opts);
    } catch (error) {
      if (!(error instanceof Error) || error.name !== 'Error') throw error;
      console.error(`error: ${error.message}`);
      process.exitCode = 2;
    }
  };
}

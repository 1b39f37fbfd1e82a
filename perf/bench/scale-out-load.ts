/**
 * The scale-out bench's load generator, a process of its own per node so the load's CPU is not
 * the nodes': `tsx perf/bench/scale-out-load.ts '<json LoadPlan>'`. Fake game servers (every
 * factory, players join at once, a game ends when full) and one batched FindGames stream; tickets
 * go round-robin over the factories, so each gets the same demand. Prints one JSON line: what it
 * sent, what was assigned, tickets answered twice, and every player its servers were told to seat
 * (the bench counts a player seated twice across all load processes as doubled).
 */
import { credentials, type ServiceError } from '@grpc/grpc-js';
import { TickBatch, type PlainValue } from '@gamefactory/protocol';
import { findGameRequest } from '../../test/support/find-game.js';
import { GameServerConnection } from '../../test/support/game-server-connection.js';
import { MatchmakerClient, type FindGameRequest, type FindGameUpdate } from '../../src/generated/gamefactory/v1/matchmaker.js';

export interface LoadPlan {
  readonly address: string;
  readonly runId: string;
  readonly tickets: number;
  readonly servers: number;
  readonly playersPerGame: number;
  readonly concurrency: number;
  readonly template: string;
  readonly partitions: readonly Record<string, PlainValue>[];
  /** Give up on tickets still unanswered this long after the last was sent. */
  readonly timeoutMs: number;
}

export interface LoadOutcome {
  readonly sent: number;
  readonly assigned: number;
  /** Tickets that received a second assignment. */
  readonly answeredTwice: number;
  readonly errors: Record<string, number>;
  readonly elapsedMs: number;
  /** Players the servers of this process were told to seat, with repeats. */
  readonly seated: string[];
}

async function run(plan: LoadPlan): Promise<LoadOutcome> {
  const servers = Array.from(
    { length: plan.servers },
    (_, i) =>
      new GameServerConnection(
        plan.address,
        { serverId: `${plan.runId}-server${i}`, endpoint: `127.0.0.1:${7000 + i}`, maxGames: 1000 },
        { autoJoin: true, endWhenFull: plan.playersPerGame, batch: true, reconnect: true },
      ),
  );
  await Promise.all(servers.map((s) => s.connect()));
  const client = new MatchmakerClient(plan.address, credentials.createInsecure(), { 'grpc.max_concurrent_streams': 10_000 } as object);
  const stream = client.findGames();
  const finds = new TickBatch<FindGameRequest>((batched) => stream.write({ request: { $case: 'batch', value: { finds: batched, cancels: [] } } }));
  const answers = new Map<string, number>();
  const errors: Record<string, number> = {};
  let settled = 0;
  let assigned = 0;
  let next = 0;
  const startedAt = performance.now();

  await new Promise<void>((resolve) => {
    const pump = () => {
      while (next < plan.tickets && next - settled < plan.concurrency) {
        const i = next++;
        finds.push(
          findGameRequest({ ticketId: `${plan.runId}-t${i}`, template: plan.template, party: [`${plan.runId}-p${i}`], partition: plan.partitions[i % plan.partitions.length] }),
        );
      }
      if (settled >= plan.tickets) resolve();
    };
    const onUpdate = (u: FindGameUpdate): void => {
      if (u.update?.$case === 'batch') {
        for (const inner of u.update.value.updates) onUpdate(inner);
        return;
      }
      if (u.update?.$case === 'queued' || u.update === undefined) return;
      const seen = answers.get(u.ticketId) ?? 0;
      answers.set(u.ticketId, seen + 1);
      if (seen > 0) return;
      if (u.update.$case === 'assignment') assigned++;
      else if (u.update.$case === 'error') errors[String(u.update.value.code)] = (errors[String(u.update.value.code)] ?? 0) + 1;
      settled++;
      pump();
    };
    stream.on('data', onUpdate);
    stream.on('error', (e: ServiceError) => {
      errors[`stream ${e.code}`] = (errors[`stream ${e.code}`] ?? 0) + 1;
      resolve();
    });
    pump();
    const deadline = setInterval(() => {
      if (next >= plan.tickets && performance.now() - startedAt > plan.timeoutMs) resolve();
    }, 500);
    deadline.unref();
  });
  const elapsedMs = performance.now() - startedAt;
  await new Promise((r) => setTimeout(r, 300)); // late duplicates and seat orders still on their way
  finds.flush();
  stream.end();
  client.close();
  const seated: string[] = [];
  for (const server of servers) {
    for (const message of server.orders) {
      const order = message.order;
      if (order?.$case === 'createGame' || order?.$case === 'reserveSeats') for (const seat of order.value.seats) seated.push(seat.playerId);
    }
    server.close();
  }
  return { sent: plan.tickets, assigned, answeredTwice: [...answers.values()].filter((n) => n > 1).length, errors, elapsedMs, seated };
}

const plan = JSON.parse(process.argv[2]!) as LoadPlan;
// Exit once the report is flushed: stdout to a pipe is written asynchronously, and an exit
// before then cut a large report (32,000 tickets' seats) short of its end.
process.stdout.write(`${JSON.stringify(await run(plan))}\n`, () => process.exit(0));

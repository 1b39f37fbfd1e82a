/**
 * The scale-out bench's load generator, a process of its own per node so the load's CPU is not
 * the nodes': `tsx perf/bench/scale-out-load.ts '<json LoadPlan>'`. Fake game servers (every
 * factory, players join at once, a game ends when full) and one batched FindGames stream; tickets
 * go round-robin over the factories, so each gets the same demand. Prints one JSON line: what it
 * sent, what was assigned, tickets answered twice, and every player its servers were told to seat
 * (the bench counts a player seated twice across all load processes as doubled). With `nodes`
 * (SCALE_OUT_ROUTE=owner) it opens a stream to every node and sends each factory's finds to the
 * node its route hints named the owner (FindGameUpdate.owner_address), its first ones to its own.
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
  /** Every node of the cluster: follow route hints to them. Absent: every find on one stream to `address`. */
  readonly nodes?: readonly string[];
  /** With `nodes`: each factory's owner as an earlier load process learned it (a client already warm). */
  readonly routes?: readonly string[];
  /** How many finds of each partition in a round of them (default one each; 0: none): the bench's phases weigh the driven node's factories. */
  readonly weights?: readonly number[];
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
  /** Tickets whose first update named another node as the owner: each crossed the relay. */
  readonly relayed: number;
  /** Each factory's node as this process last sent to it (its own node, or the owner a hint named). */
  readonly routes: string[];
  /** The slowest tickets: partition index and ms from sent to answered (a stalled phase's cause). */
  readonly slowest: { partition: number; waitedMs: number }[];
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
  // Its own node first: where every factory's finds go until a hint names another owner.
  const addresses = [plan.address, ...(plan.nodes ?? []).filter((a) => a !== plan.address)];
  const clients = addresses.map((a) => new MatchmakerClient(a, credentials.createInsecure(), { 'grpc.max_concurrent_streams': 10_000 } as object));
  const streams = clients.map((c) => c.findGames());
  const finds = streams.map((stream) => new TickBatch<FindGameRequest>((batched) => stream.write({ request: { $case: 'batch', value: { finds: batched, cancels: [] } } })));
  /** Per factory (partition index), the stream its finds go to. */
  const routeOf = plan.partitions.map((_, p) => Math.max(0, addresses.indexOf(plan.routes?.[p] ?? plan.address)));
  // Ticket i's partition: one round lists each partition as many times as its weight, interleaved.
  const left = plan.partitions.map((_, p) => plan.weights?.[p] ?? 1);
  const round: number[] = [];
  while (left.some((n) => n > 0)) {
    for (let p = 0; p < left.length; p++) if (left[p]! > 0) (left[p]!--, round.push(p));
  }
  const partitionOf = (ticket: number) => round[ticket % round.length]!;
  const ticketPrefix = `${plan.runId}-t`;
  const answers = new Map<string, number>();
  const errors: Record<string, number> = {};
  let settled = 0;
  let assigned = 0;
  let relayed = 0;
  let next = 0;
  const startedAt = performance.now();
  const sentAt = new Float64Array(plan.tickets);
  const waited = new Float64Array(plan.tickets);

  await new Promise<void>((resolve) => {
    const pump = () => {
      while (next < plan.tickets && next - settled < plan.concurrency) {
        const i = next++;
        const p = partitionOf(i);
        sentAt[i] = performance.now();
        finds[routeOf[p]!]!.push(
          findGameRequest({ ticketId: `${ticketPrefix}${i}`, template: plan.template, party: [`${plan.runId}-p${i}`], partition: plan.partitions[p] }),
        );
      }
      if (settled >= plan.tickets) resolve();
    };
    const onUpdate = (u: FindGameUpdate): void => {
      if (u.update?.$case === 'batch') {
        for (const inner of u.update.value.updates) onUpdate(inner);
        return;
      }
      if (u.ownerAddress) {
        relayed++;
        const owner = plan.nodes ? addresses.indexOf(u.ownerAddress) : -1;
        if (owner >= 0) routeOf[partitionOf(Number(u.ticketId.slice(ticketPrefix.length)))] = owner;
      }
      if (u.update?.$case === 'queued' || u.update === undefined) return;
      const seen = answers.get(u.ticketId) ?? 0;
      answers.set(u.ticketId, seen + 1);
      if (seen > 0) return;
      const index = Number(u.ticketId.slice(ticketPrefix.length));
      if (index >= 0 && index < plan.tickets) waited[index] = performance.now() - sentAt[index]!;
      if (u.update.$case === 'assignment') assigned++;
      else if (u.update.$case === 'error') errors[String(u.update.value.code)] = (errors[String(u.update.value.code)] ?? 0) + 1;
      settled++;
      pump();
    };
    for (const stream of streams) {
      stream.on('data', onUpdate);
      stream.on('error', (e: ServiceError) => {
        errors[`stream ${e.code}`] = (errors[`stream ${e.code}`] ?? 0) + 1;
        resolve();
      });
    }
    pump();
    const deadline = setInterval(() => {
      if (next >= plan.tickets && performance.now() - startedAt > plan.timeoutMs) resolve();
    }, 500);
    deadline.unref();
  });
  const elapsedMs = performance.now() - startedAt;
  await new Promise((r) => setTimeout(r, 300)); // late duplicates and seat orders still on their way
  for (const batch of finds) batch.flush();
  for (const stream of streams) stream.end();
  for (const client of clients) client.close();
  const seated: string[] = [];
  for (const server of servers) {
    for (const message of server.orders) {
      const order = message.order;
      if (order?.$case === 'createGame' || order?.$case === 'reserveSeats') for (const seat of order.value.seats) seated.push(seat.playerId);
    }
    server.close();
  }
  const slowest = [...waited.keys()].sort((x, y) => waited[y]! - waited[x]!).slice(0, 5).map((i) => ({ partition: partitionOf(i), waitedMs: Math.round(waited[i]!) }));
  return { sent: plan.tickets, assigned, slowest, answeredTwice: [...answers.values()].filter((n) => n > 1).length, errors, elapsedMs, seated, relayed, routes: routeOf.map((i) => addresses[i]!) };
}

const plan = JSON.parse(process.argv[2]!) as LoadPlan;
// Exit once the report is flushed: stdout to a pipe is written asynchronously, and an exit
// before then cut a large report (32,000 tickets' seats) short of its end.
process.stdout.write(`${JSON.stringify(await run(plan))}\n`, () => process.exit(0));

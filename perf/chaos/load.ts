/**
 * A chaos load generator, a process of its own: `tsx perf/chaos/load.ts '<json LoadPlan>'`. Finds
 * at a steady rate over many factories through @gamefactory/matchmaking-client (a FindGame call
 * per ticket; the client resumes a ticket with the same id on another node when a call fails
 * UNAVAILABLE), recording what each client is told as contract observations. Stops by itself:
 * after the plan's duration and settle time it prints one JSON line (sent, settled) and exits.
 */
import { Matchmaker, status, type FindError, type Ticket } from '@gamefactory/matchmaking-client';
import type { EndReason } from '../../src/cluster/contract/index.js';
import type { LoadPlan } from './load-plan.js';
import { ObservationLog } from './observation-log.js';

const plan = JSON.parse(process.argv[2]!) as LoadPlan;
const log = new ObservationLog(plan.out);
const shared = plan.firstNodeOnly ? undefined : new Matchmaker({ addresses: [...plan.addresses], resume: { giveUpAfterMs: 120_000 } });
let random = plan.seed >>> 0 || 1;
/** xorshift32: the same seed, the same factories in the same order. */
const next = () => ((random ^= random << 13), (random ^= random >>> 17), (random ^= random << 5), (random >>> 0) / 2 ** 32);

let sent = 0;
let settled = 0;

function endReason(code: number): EndReason {
  if (code === status.CANCELLED) return 'cancelled';
  if (code === status.DEADLINE_EXCEEDED) return 'expired';
  if (code === status.ABORTED) return 'declined';
  if ([status.INVALID_ARGUMENT, status.ALREADY_EXISTS, status.FAILED_PRECONDITION, status.RESOURCE_EXHAUSTED, status.PERMISSION_DENIED, status.NOT_FOUND].includes(code)) return 'refused';
  return 'other';
}

function findOne(i: number): void {
  const ticketId = `${plan.prefix}-t${i}`;
  const player = `${plan.prefix}-p${i}`;
  const factory = plan.factories[Math.floor(next() * plan.factories.length)]!;
  const client = shared ?? new Matchmaker({ addresses: [...plan.addresses], resume: { giveUpAfterMs: 120_000 } });
  let call = 0;
  let open = false;
  const start = () => {
    const callId = `${ticketId}#${++call}`;
    const at = Date.now();
    log.add({ kind: 'find', at, ticketId, playerIds: [player], factory: factory.name, callId });
    log.add({ kind: 'call-started', at, callId, deadlineAt: at + plan.callDeadlineMs });
    open = true;
  };
  const answer = () => {
    if (!open) return;
    open = false;
    log.add({ kind: 'call-answered', callId: `${ticketId}#${call}` });
  };
  start();
  sent++;
  const ticket: Ticket = client.find({ ticketId, template: plan.template, party: [player], partition: factory.partition });
  let done = false;
  const settle = () => {
    if (done) return;
    done = true;
    settled++;
    if (client !== shared) client.close();
  };
  ticket.on('queued', (q) => {
    answer();
    log.add({ kind: 'queued', ticketId, position: q.position });
  });
  ticket.on('resuming', (r) => {
    answer(); // an UNAVAILABLE is an answer; the resume is a new call of the same ticket
    setTimeout(() => !ticket.settled && start(), r.delayMs);
  });
  ticket.on('assignment', (a) => {
    answer();
    log.add({ kind: 'assigned', ticketId, serverId: a.serverId, gameId: a.gameId, token: a.reservationToken });
    settle();
  });
  ticket.on('failed', (e: FindError) => {
    answer();
    log.add({ kind: 'ended', ticketId, reason: endReason(e.code), detail: `${status[e.code]}: ${e.details}` });
    settle();
  });
}

const startedAt = Date.now();
const total = Math.round((plan.ratePerSecond * plan.durationMs) / 1000);
await new Promise<void>((resolve) => {
  // Sends what the rate owes every 10 ms (bounded by maxInFlight), so a busy event loop catches up in bursts.
  const pump = setInterval(() => {
    const owed = Math.min(total, Math.floor(((Date.now() - startedAt) * plan.ratePerSecond) / 1000));
    while (sent < owed && sent - settled < plan.maxInFlight) findOne(sent);
    // Bounded: a cluster too slow to take the plan's tickets within twice its duration gets no more.
    if (sent >= total || Date.now() - startedAt > 2 * plan.durationMs + 5000) {
      clearInterval(pump);
      resolve();
    }
  }, 10);
});
const lastSentAt = Date.now();
await new Promise<void>((resolve) => {
  const wait = setInterval(() => {
    if (settled >= sent || Date.now() - lastSentAt > plan.settleMs) {
      clearInterval(wait);
      resolve();
    }
  }, 50);
});
await log.close();
shared?.close();
process.stdout.write(`${JSON.stringify({ sent, settled })}\n`, () => process.exit(0));

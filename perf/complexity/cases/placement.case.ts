import { defineCase } from '../case.js';
import { CreationQueue, SlotLedger, type ServerPolicy } from '../../../src/placement/index.js';

/**
 * Placement budgets (DESIGN.md, "Complexity budgets"): slot claim / release and queue push /
 * pop / position / remove are O(1) or O(log n) in servers or queued requests. Every run leaves
 * the structure at size n: a claim is released, a pop is matched by a push, a removal re-queued.
 */

const OTHER_FACTORIES = 8;
const QUEUE_FACTORIES = 16;
const always = (): boolean => true;

/** A deterministic scatter over 0..n-1 (multiplicative hashing), so runs touch all of the structure. */
const pick = (i: number, n: number): number => (Math.imul(i + 1, 2654435761) >>> 0) % n;

/** n servers all hosting "f" plus one other factory, with varied free slots. */
function ledgerOf(n: number, policy: ServerPolicy, maxStartsPerSecond: number): { ledger: SlotLedger; ids: string[] } {
  const ledger = new SlotLedger(policy);
  const ids: string[] = [];
  for (let k = 0; k < n; k++) {
    const id = `server-${k}`;
    ids.push(id);
    const maxGames = maxStartsPerSecond === 0 ? 16 : 1 << 20;
    ledger.addServer(id, ['f', `other-${k % OTHER_FACTORIES}`], { maxGames, maxStartsPerSecond }, pick(k, 12), 0);
  }
  return { ledger, ids };
}

function claimRelease(policy: ServerPolicy) {
  return defineCase({
    name: `placement: claim + release a slot among n servers (${policy})`,
    budget: 'O(log n)',
    minLog2: 10,
    maxLog2: 16,
    setup: (n) => ledgerOf(n, policy, 0),
    run({ ledger }) {
      const serverId = ledger.claim('f', 0)!;
      ledger.release(serverId);
      return serverId;
    },
  });
}

function queueOf(n: number): { queue: CreationQueue<null>; ids: string[]; priorities: number[] } {
  const queue = new CreationQueue<null>();
  const ids: string[] = [];
  const priorities: number[] = [];
  for (let k = 0; k < n; k++) {
    const id = `ticket-${k}`;
    ids.push(id);
    priorities.push(queue.push(`factory-${k % QUEUE_FACTORIES}`, id, null));
  }
  return { queue, ids, priorities };
}

export default [
  claimRelease('fill'),
  claimRelease('spread'),
  defineCase({
    name: 'placement: a game starts and ends on a random one of n servers (re-key)',
    budget: 'O(log n)',
    minLog2: 10,
    maxLog2: 16,
    setup: (n) => ledgerOf(n, 'spread', 0),
    run({ ledger, ids }, i) {
      const serverId = ids[pick(i, ids.length)]!;
      ledger.gameStarted(serverId);
      ledger.gameEnded(serverId);
      return ledger.freeSlots('f');
    },
  }),
  defineCase({
    name: 'placement: claim + release among n rate-limited servers (token waits re-admitted lazily)',
    budget: 'O(log n)',
    minLog2: 10,
    maxLog2: 16,
    setup(n) {
      // 1 start/s each and one claim every 1000/n ms: each claim sends one server to wait for
      // its token and, in steady state, re-admits the one that has waited a second.
      return { ...ledgerOf(n, 'fill', 1), now: 0, stepMs: 1000 / n };
    },
    run(state) {
      state.now += state.stepMs;
      const serverId = state.ledger.claim('f', state.now);
      if (serverId !== undefined) state.ledger.release(serverId);
      return serverId;
    },
  }),
  defineCase({
    name: 'placement: queue push + pop with n queued requests',
    budget: 'O(log n)',
    minLog2: 10,
    maxLog2: 16,
    setup: (n) => ({ ...queueOf(n), pushed: 0 }),
    run(state) {
      const k = state.pushed++;
      state.queue.push(`factory-${k % QUEUE_FACTORIES}`, `new-${k}`, null);
      return state.queue.pop(always, k)?.priority;
    },
  }),
  defineCase({
    name: 'placement: queue position + remove + re-queue with n queued requests',
    budget: 'O(log n)',
    minLog2: 10,
    maxLog2: 16,
    setup: (n) => queueOf(n),
    run({ queue, ids, priorities }, i) {
      const k = pick(i, ids.length);
      const id = ids[k]!;
      const position = queue.position(id)!;
      queue.remove(id);
      queue.push(`factory-${k % QUEUE_FACTORIES}`, id, null, priorities[k]);
      return position;
    },
  }),
  defineCase({
    name: 'placement: queue pop + push across n factories with queued work',
    budget: 'O(log n)',
    minLog2: 8,
    maxLog2: 14,
    setup(n) {
      const queue = new CreationQueue<null>();
      for (let k = 0; k < 2 * n; k++) queue.push(`factory-${k % n}`, `ticket-${k}`, null);
      return { queue, pushed: 0 };
    },
    run(state) {
      const next = state.queue.pop(always, 0)!;
      state.queue.push(next.factory, `again-${state.pushed++}`, null);
      return next.priority;
    },
  }),
];

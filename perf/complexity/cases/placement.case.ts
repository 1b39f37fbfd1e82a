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

/**
 * The two re-key cases below touch a fixed set of HOT items spread over the structure, round
 * robin, rather than a random one of all n per call.
 *
 * With a random item per call they measured the memory hierarchy, not the structure: a server or
 * queue entry costs ~350 bytes with its objects, so 2^10 of them sit in L2 and 2^16 don't fit in
 * L3, and a random item's heap or treap path then misses the cache at every level below the
 * cached top. A real O(log n) structure cannot avoid those misses; time per call grew 3-6x over
 * 2^10..2^16 where log n predicts 1.6x, with per-doubling slopes of 0.3-0.8, and a full run once
 * failed "re-key" as O(n). (Spreading each size over 2^16 / n structures, so that every size had
 * the same footprint, flattened those curves but also flattened a deliberate linear scan: the
 * scanned prefix of one big structure stays cached, that of many small ones doesn't.)
 *
 * With HOT items the working set is their HOT paths of log n levels, which fits L2 at every size,
 * so what grows with n is the number of levels walked. Linear work per call is still caught: a
 * scan touches all n items whatever is hot, and 2^16 of them no longer fit any cache, so it grows
 * by 64x or more over the range. Checked when this was written by patching a linear scan into
 * SlotLedger.gameStarted (a find over its servers) and CreationQueue.position (a walk of the
 * queue): both fit O(n) and fail. Which item is hot is spread by `pick`, so the calls still visit
 * different parts of the structure, and every call still re-keys (the item leaves and re-enters).
 * Re-keying the same few items is also the pattern that exposed V8's Map delete + re-add cost in
 * CreationQueue (see its `tickets`): 0.6 -> 3.4 us per call over the range before that fix.
 */
const HOT = 64;

/** HOT distinct indices in 0..n-1 (pick is a bijection modulo a power of two). */
const hotIndices = (n: number): number[] => Array.from({ length: Math.min(HOT, n) }, (_, j) => pick(j, n));

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
    name: 'placement: a game starts and ends on one of 64 servers spread over n (re-key)',
    budget: 'O(log n)',
    minLog2: 10,
    maxLog2: 16,
    setup: (n) => ({ ...ledgerOf(n, 'spread', 0), hot: hotIndices(n) }),
    run({ ledger, ids, hot }, i) {
      // A fixed set of hot servers, not a random one of n: see HOT.
      const serverId = ids[hot[i % hot.length]!]!;
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
    setup: (n) => ({ ...queueOf(n), hot: hotIndices(n) }),
    run({ queue, ids, priorities, hot }, i) {
      // A fixed set of hot requests, not a random one of n: see HOT.
      const k = hot[i % hot.length]!;
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

import type { StatsAnswer, StatsQuery } from '../../coordinator/stats-query.js';
import type { StatsPart } from '../../cluster/stats/cluster-stats.js';
import type { WireError } from '../relay/relay-codec.js';

/** A node's question to another (JSON on the owner's ask channel). */
export interface StatsAsk {
  readonly id: string;
  /** The asking node: the answer goes to its answer channel. */
  readonly from: string;
  readonly query: {
    readonly factory: string;
    readonly template: string;
    readonly partition: readonly (readonly [string, string])[];
    readonly predicates: readonly (readonly [string, string])[];
    readonly mode: StatsQuery['mode'];
  };
}

/** The answer (JSON on the asker's answer channel): the owner's part, or its refusal. */
export type StatsReply = { readonly id: string; readonly part: StatsPart } | { readonly id: string; readonly error: WireError };

export function encodeAsk(id: string, from: string, query: StatsQuery): string {
  const ask: StatsAsk = {
    id,
    from,
    query: { factory: query.factory, template: query.template, partition: [...query.partition], predicates: query.predicates, mode: query.mode },
  };
  return JSON.stringify(ask);
}

const MODES: readonly string[] = ['all', 'any', 'none'];
const pairs = (v: unknown): v is [string, string][] => Array.isArray(v) && v.every((p) => Array.isArray(p) && p.length === 2 && typeof p[0] === 'string' && typeof p[1] === 'string');

/** A question read off the channel; throws (naming the field) on anything else. */
export function decodeAsk(text: string): { id: string; from: string; query: StatsQuery } {
  const ask = JSON.parse(text) as Partial<StatsAsk>;
  const q = ask.query;
  if (typeof ask.id !== 'string' || typeof ask.from !== 'string') throw new Error('stats ask: id and from must be strings');
  if (!q || typeof q.factory !== 'string' || typeof q.template !== 'string') throw new Error('stats ask: query.factory and query.template must be strings');
  if (!pairs(q.partition) || !pairs(q.predicates)) throw new Error('stats ask: query.partition and query.predicates must be [key, value] pairs');
  if (!MODES.includes(q.mode as string)) throw new Error(`stats ask: query.mode "${String(q.mode)}" is not one of ${MODES.join(', ')}`);
  return {
    id: ask.id,
    from: ask.from,
    query: { factory: q.factory, template: q.template, partition: new Map(q.partition), predicates: q.predicates, mode: q.mode! },
  };
}

export function decodeReply(text: string): StatsReply {
  const reply = JSON.parse(text) as StatsReply;
  if (typeof reply?.id !== 'string') throw new Error('stats reply: id must be a string');
  if ('part' in reply && !isAnswer(reply.part?.answer)) throw new Error('stats reply: part.answer is not a stats answer');
  return reply;
}

function isAnswer(a: unknown): a is StatsAnswer {
  const x = a as StatsAnswer | undefined;
  return typeof x === 'object' && x !== null && typeof x.factories === 'number' && typeof x.games === 'number' && Array.isArray(x.openGamesByOpenSlots);
}

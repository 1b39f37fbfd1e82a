import type { CallObserved } from './observation.js';
import { DeadlineQueue } from './deadline-queue.js';
import { violation, type Violation } from './violation.js';

interface OpenCall {
  readonly startedAt: number;
  readonly deadlineAt?: number;
  /** Reported unanswered at its deadline: a late answer is not reported again. */
  late: boolean;
}

/** Every call gets its first answer (or an error, a retry hint included) by its deadline. */
export class CallRules {
  private readonly open = new Map<string, OpenCall>();
  private readonly due = new DeadlineQueue<string>();

  started(o: CallObserved): Violation[] {
    if (this.open.has(o.callId)) return [];
    this.open.set(o.callId, { startedAt: o.at, deadlineAt: o.deadlineAt, late: false });
    if (o.deadlineAt !== undefined) this.due.push(o.deadlineAt, o.callId);
    return [];
  }

  answered(o: CallObserved): Violation[] {
    const call = this.open.get(o.callId);
    if (!call) return [];
    this.open.delete(o.callId);
    if (call.late || call.deadlineAt === undefined || o.at <= call.deadlineAt) return [];
    return [this.unanswered(o.callId, call, o.at, `answered ${o.at - call.startedAt} ms after it started, past its deadline`)];
  }

  /** Calls whose deadline passed before `now` without an answer. */
  advance(now: number): Violation[] {
    const out: Violation[] = [];
    for (let due = this.due.popDueBefore(now); due; due = this.due.popDueBefore(now)) {
      const call = this.open.get(due.key);
      if (!call || call.late) continue;
      call.late = true;
      out.push(this.unanswered(due.key, call, due.at, `no answer within ${call.deadlineAt! - call.startedAt} ms`));
    }
    return out;
  }

  private unanswered(callId: string, call: OpenCall, at: number, detail: string): Violation {
    return violation('answered-in-time', 'unanswered call', at, { call: callId }, `call ${callId} (started at ${call.startedAt}): ${detail}`);
  }
}

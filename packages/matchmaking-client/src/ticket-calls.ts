import { status, type ServiceError } from '@grpc/grpc-js';
import { Backoff, retryAfterMs } from '@gamefactory/protocol';
import type { FindGameRequest } from '@gamefactory/protocol/v1/matchmaker';
import type { CoordinatorNodes } from './coordinator-nodes.js';
import { FindError, resumable } from './find-error.js';
import { findGameCall } from './find-game-call.js';
import type { TicketSink } from './ticket.js';
import type { ResumeOptions, TicketHandle, TicketTransport } from './transport.js';

/**
 * A FindGame call per ticket, as a player's client does: the call streams the ticket's progress
 * and ends with its assignment. When the node fails (UNAVAILABLE), the same request goes to the
 * next node after a backoff; the ticket id makes it a resume of the same ticket.
 */
export class TicketCalls implements TicketTransport {
  constructor(
    private readonly nodes: CoordinatorNodes,
    private readonly resume: ResumeOptions,
  ) {}

  find(sink: TicketSink, request: FindGameRequest): TicketHandle {
    const backoff = new Backoff(this.resume);
    const giveUpAfterMs = this.resume.giveUpAfterMs ?? 60_000;
    let node = this.nodes.nextNode();
    let call: { cancel(): void } | undefined;
    /** Attempts made so far: a call's reports count only while it is the latest. */
    let attempts = 0;
    let retry: NodeJS.Timeout | undefined;
    let failingSince: number | undefined;
    let withdrawn = false;
    /** While a cancel is in flight, the call's own end (CANCELLED, as the node drops the ticket) waits for its answer. */
    let cancelling = false;
    let endedWhileCancelling: ServiceError | undefined;

    const attempt = () => {
      retry = undefined;
      if (sink.settled || withdrawn) return;
      const current = ++attempts;
      call = findGameCall(this.nodes.client(node), request, this.nodes.metadata(), {
        update: (update) => {
          failingSince = undefined;
          backoff.reset();
          const u = update.update;
          if (u?.$case === 'queued') sink.queued({ kind: 'queued', ...u.value });
          else if (u?.$case === 'assignment') sink.assigned(u.value);
          else if (u?.$case === 'error') sink.failed(new FindError(request.ticketId, u.value.code, u.value.message));
        },
        end: (error) => {
          if (error === null) {
            // A call that ends OK always carried the assignment first; anything else is a broken node.
            if (!sink.settled && !withdrawn && !cancelling && attempts === current) {
              sink.failed(new FindError(request.ticketId, status.INTERNAL, 'the call ended without an assignment'));
            }
            return;
          }
          if (sink.settled || withdrawn || attempts !== current) return;
          if (cancelling) {
            endedWhileCancelling = error;
            return;
          }
          failingSince ??= Date.now();
          if (!resumable(error.code) || Date.now() - failingSince > giveUpAfterMs) {
            sink.failed(FindError.fromStatus(request.ticketId, error));
            return;
          }
          const sameNode = this.nodes.addresses.length === 1;
          node++;
          const delayMs = Math.max(backoff.next(), sameNode ? (retryAfterMs(error.metadata) ?? 0) : 0);
          sink.resuming({ kind: 'resuming', address: this.nodes.address(node), delayMs, reason: error.details });
          retry = setTimeout(attempt, delayMs);
        },
      });
    };
    attempt();

    return {
      cancel: async (reason) => {
        if (sink.settled || cancelling) return false;
        cancelling = true;
        const cancelled = await this.cancelFind(node, request.ticketId);
        cancelling = false;
        if (sink.settled) return false; // the assignment crossed the cancel, and stands
        if (cancelled === false && endedWhileCancelling === undefined) return false; // not there yet: nothing to cancel
        withdrawn = true;
        clearTimeout(retry);
        call?.cancel();
        sink.failed(reason);
        return true;
      },
    };
  }

  /** CancelFind on the ticket's node: true or false as it answers, undefined when it cannot. */
  private cancelFind(node: number, ticketId: string): Promise<boolean | undefined> {
    return new Promise((resolve) => {
      this.nodes.client(node).cancelFind({ ticketId }, this.nodes.metadata(), (error, response) => resolve(error ? undefined : response.cancelled));
    });
  }

  close(): void {}
}

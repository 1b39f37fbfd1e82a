import { Backoff, retryAfterMs } from '@gamefactory/protocol/web';
import type { FindGameRequest } from '@gamefactory/protocol/v1/matchmaker';
import { FindError, resumable } from './find-error.js';
import type { CallError, FindGameCalls } from './find-game-calls.js';
import { Code } from './status-code.js';
import { RouteTable } from './route-table.js';
import type { TicketSink } from './ticket.js';
import type { ResumeOptions, TicketHandle, TicketTransport } from './transport.js';

/**
 * A FindGame call per ticket, as a player's client does (over gRPC, or over Connect in a browser): the call streams the ticket's progress
 * and ends with its assignment. When the node fails (UNAVAILABLE), the same request goes to the
 * next node after a backoff; the ticket id makes it a resume of the same ticket. With `routes`, a
 * ticket goes first to the owner a route hint named for its template and partition; when that
 * node fails, the route is forgotten and the ticket resumes as any other does.
 */
export class TicketCalls implements TicketTransport {
  constructor(
    private readonly nodes: FindGameCalls,
    private readonly resume: ResumeOptions,
    private readonly routes?: RouteTable,
  ) {}

  find(sink: TicketSink, request: FindGameRequest): TicketHandle {
    const backoff = new Backoff(this.resume);
    const giveUpAfterMs = this.resume.giveUpAfterMs ?? 60_000;
    const routes = this.routes;
    const key = routes && RouteTable.keyOf(request);
    let node = this.nodes.nextNode();
    /** The owner a hint named for this ticket's key, while the ticket is sent there. */
    let routed = key === undefined ? undefined : routes!.get(key);
    const address = () => routed ?? this.nodes.address(node);
    let call: { cancel(): void } | undefined;
    /** Attempts made so far: a call's reports count only while it is the latest. */
    let attempts = 0;
    let retry: NodeJS.Timeout | undefined;
    let failingSince: number | undefined;
    let withdrawn = false;
    /** While a cancel is in flight, the call's own end (CANCELLED, as the node drops the ticket) waits for its answer. */
    let cancelling = false;
    let endedWhileCancelling: CallError | undefined;

    const attempt = () => {
      retry = undefined;
      if (sink.settled || withdrawn) return;
      const current = ++attempts;
      call = this.nodes.findGame(address(), request, {
        update: (update) => {
          failingSince = undefined;
          backoff.reset();
          if (update.ownerAddress && key !== undefined) routes!.learn(key, update.ownerAddress);
          const u = update.update;
          if (u?.$case === 'queued') sink.queued({ kind: 'queued', ...u.value });
          else if (u?.$case === 'proposed') sink.proposed({ kind: 'proposed', ...u.value });
          else if (u?.$case === 'assignment') sink.assigned(u.value);
          else if (u?.$case === 'error') sink.failed(new FindError(request.ticketId, u.value.code, u.value.message));
        },
        end: (error) => {
          if (error === null) {
            // A call that ends OK always carried the assignment first; anything else is a broken node.
            if (!sink.settled && !withdrawn && !cancelling && attempts === current) {
              sink.failed(new FindError(request.ticketId, Code.INTERNAL, 'the call ended without an assignment'));
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
          // The retry goes back to the node that failed: it said when it can take the ticket again.
          const sameNode = routed === undefined && this.nodes.addresses.length === 1;
          if (routed !== undefined) {
            // The owner failed: forgotten, and the ticket takes the turn from the node after it.
            routes!.forget(routed);
            const listed = this.nodes.indexOf(routed);
            if (listed >= 0) node = listed + 1;
            routed = undefined;
          } else node++;
          const delayMs = Math.max(backoff.next(), sameNode ? (retryAfterMs(error.metadata) ?? 0) : 0);
          sink.resuming({ kind: 'resuming', address: address(), delayMs, reason: error.details });
          retry = setTimeout(attempt, delayMs);
        },
      });
    };
    attempt();

    return {
      cancel: async (reason) => {
        if (sink.settled || cancelling) return false;
        cancelling = true;
        const cancelled = await this.cancelFind(address(), request.ticketId);
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

  private cancelFind(address: string, ticketId: string): Promise<boolean | undefined> {
    return this.nodes.cancelFind(address, ticketId);
  }

  close(): void {}
}

import type { status } from '@grpc/grpc-js';
import type { StatusMetadata } from '@gamefactory/protocol/web';
import type { FindGameRequest, FindGameUpdate } from '@gamefactory/protocol/v1/matchmaker';

/** A call's failure as either protocol reports it: the gRPC code, its message and its metadata (retry-after-ms). */
export interface CallError {
  readonly code: status;
  readonly details: string;
  readonly metadata?: StatusMetadata;
}

/** What one FindGame call reports: each update as it arrives, then its end (null: OK). */
export interface FindGameHandlers {
  update(update: FindGameUpdate): void;
  end(error: CallError | null): void;
}

/**
 * The coordinator nodes as a ticket's calls reach them: FindGame and CancelFind on a node by its
 * address, and the turn through the configured nodes. Over gRPC (CoordinatorNodes, Node) or over
 * Connect (ConnectNodes, browsers); TicketCalls resumes, backs off and cancels the same way over both.
 */
export interface FindGameCalls {
  readonly addresses: readonly string[];
  /** The node for a new ticket: each in turn. */
  nextNode(): number;
  address(node: number): string;
  /** The place of `address` among the configured ones, -1 if it is not one. */
  indexOf(address: string): number;
  findGame(address: string, request: FindGameRequest, handlers: FindGameHandlers): { cancel(): void };
  /** CancelFind on the node: true or false as it answers, undefined when it cannot. */
  cancelFind(address: string, ticketId: string): Promise<boolean | undefined>;
}

import type { ServerDuplexStream } from '@grpc/grpc-js';
import type { CoordinatorCommands } from '../../coordinator/edges/index.js';
import type { ServerChannel } from '../../coordinator/messages.js';
import type { Log } from '../../coordinator/ports.js';
import { MatchmakingError } from '../../errors/index.js';
import { CoordinatorMessage, type ServerMessage } from '../../generated/gamefactory/v1/game_server_link.js';
import { decodeHello, decodeServerEvent, encodeOrder } from './codec.js';
import type { InputPacer } from './input-pacer.js';
import { asMatchmakingError } from './status.js';
import { StreamLifecycle, type UnreadLimit } from './stream-lifecycle.js';
import { MAX_BATCH, TickOutbox } from './tick-outbox.js';

export interface GameServerLinkOptions {
  readonly keepaliveIntervalMs: number;
  readonly now: () => number;
  readonly log: Log;
  readonly onRejected?: (reason: string) => void;
  /** Replies a server may leave unread before its stream is ended. */
  readonly unread?: Omit<UnreadLimit, 'sizeOf'>;
  /** Where reports wait their turn with the clients' finds, in arrival order. */
  readonly pacer: InputPacer;
}

const orderSize = (message: CoordinatorMessage) => CoordinatorMessage.encode(message).finish().length;

/**
 * A server's reports waiting their turn (InputPacer) past which its link is not read until none
 * waits: a server that floods reports cannot grow the queue without bound, and one that sends a
 * batch a tick never comes near it.
 */
const LINK_BACKLOG = 2 * MAX_BATCH;

/** A server silent for this many keepalive intervals is gone. */
const MISSED_KEEPALIVES = 3;

/**
 * GameServerLink.Connect: one bidirectional stream per game server. The first message must be a
 * hello; after it, reports go to the coordinator and orders come back. The stream's whole
 * lifecycle (hello deadline, keepalive, end, cancel, errors) is handled here, in one place.
 */
export function connectHandler(coordinator: CoordinatorCommands, options: GameServerLinkOptions) {
  return (call: ServerDuplexStream<ServerMessage, CoordinatorMessage>): void => {
    let serverId: string | undefined;
    let lastHeard = options.now();
    let sequence = 0n;
    const stream = new StreamLifecycle(call, false, options.unread && { ...options.unread, sizeOf: orderSize });
    // A server whose hello accepts batches gets the orders of one tick in one message (one write instead of one per order).
    let outbox: TickOutbox<CoordinatorMessage> | undefined;
    const write = (message: CoordinatorMessage) => (outbox ? outbox.push(message) : stream.write(message));

    const channel: ServerChannel = {
      send: (order) => write(encodeOrder(order)),
      close: (error) => finish(error),
    };

    /** Ends the stream (with an error status unless `error` is undefined) and forgets the server. */
    const finish = (error: MatchmakingError | undefined): void => {
      if (!stream.open) return;
      outbox?.flush();
      stream.end(error);
      if (serverId !== undefined) coordinator.disconnectServer(serverId, channel);
    };
    stream.onGone(() => {
      outbox?.discard();
      if (serverId !== undefined) coordinator.disconnectServer(serverId, channel);
    });

    const interval = options.keepaliveIntervalMs;
    let lastCheck = lastHeard;
    stream.every(interval, () => {
      const at = options.now();
      // A check far later than its interval means this process did not run (SIGSTOP, a paused VM, a
      // long stall): the server's answers wait unread in the socket, and timers run before I/O
      // when it wakes. The silence counts only from when we could listen again.
      const asleep = at - lastCheck - interval;
      lastCheck = at;
      if (asleep > interval) lastHeard = Math.min(at, lastHeard + asleep);
      if (at - lastHeard > interval * MISSED_KEEPALIVES) {
        options.log.warn({ serverId }, 'game server missed its keepalives');
        finish(new MatchmakingError('UNAVAILABLE', `no message from the server for ${MISSED_KEEPALIVES} keepalive intervals`));
        return;
      }
      if (serverId !== undefined) write({ order: { $case: 'keepalive', value: { sequence: ++sequence } } });
    });

    // Heard at once (a server whose reports wait their turn is not silent); handled in turn, each
    // report of a batch on its own, after what arrived before it.
    const pacer = options.pacer;
    /** This link's inputs still waiting their turn; past LINK_BACKLOG its reads are held until none waits. */
    let backlog = 0;
    let held = false;
    const enqueue = <T>(handle: (input: T) => void, input: T): void => {
      backlog++;
      pacer.push(handle, input);
      if (!held && backlog > LINK_BACKLOG) {
        held = true;
        stream.holdReads();
      }
    };
    /** Every handler's first step. */
    const dequeued = (): void => {
      if (--backlog === 0 && held) {
        held = false;
        stream.releaseReads();
      }
    };
    let first = true;
    call.on('data', (message: ServerMessage) => {
      if (!stream.open) return;
      lastHeard = options.now();
      if (first) {
        first = false;
        return enqueue(hello, message);
      }
      if (message.event?.$case !== 'batch') return enqueue(report, message);
      const events = message.event.value.events;
      if (events.length > MAX_BATCH) return enqueue(refuseBatch, `batch.events: ${events.length} reports in one message; at most ${MAX_BATCH}`);
      for (const event of events) {
        if (event.event?.$case === 'batch') enqueue(refuseBatch, 'batch.events: a batch inside a batch');
        else enqueue(report, event);
      }
    });

    /** A batch too large, or one inside a batch: refused in its turn, the stream goes on. */
    const refuseBatch = (reason: string): void => {
      dequeued();
      if (!stream.open) return;
      options.onRejected?.('batch');
      channel.send({ kind: 'rejected', reason });
    };

    /** One report after hello, alone or from a batch; none once the stream is over (or its hello failed). */
    const report = (message: ServerMessage): void => {
      dequeued();
      if (!stream.open || serverId === undefined) return;
      try {
        const event = decodeServerEvent(message, serverId);
        if (event === 'keepalive' || event === undefined) return;
        if (event === 'hello') throw new MatchmakingError('INVALID_ARGUMENT', 'hello: sent twice on one stream');
        coordinator.onServerEvent(serverId, event);
      } catch (error) {
        // A bad report is the server's problem, not a reason to drop its games: reject and go on.
        const reason = error instanceof MatchmakingError ? error.message : 'internal error';
        if (!(error instanceof MatchmakingError)) options.log.warn({ serverId, err: error }, 'server message failed');
        options.onRejected?.(message.event?.$case ?? 'empty');
        channel.send({ kind: 'rejected', reason });
      }
    };

    const ended = (): void => {
      dequeued();
      finish(undefined);
    };

    const hello = (message: ServerMessage): void => {
      dequeued();
      if (!stream.open) return;
      try {
        if (message.event?.$case !== 'hello') {
          throw new MatchmakingError('FAILED_PRECONDITION', 'the first message on the stream must be hello');
        }
        const decoded = decodeHello(message.event.value, options.now());
        const factories = coordinator.connectServer(decoded, channel);
        serverId = decoded.serverId;
        if (message.event.value.acceptsBatches === true) outbox = new TickOutbox((orders) => stream.write({ order: { $case: 'batch', value: { orders } } }));
        write({ order: { $case: 'welcome', value: { factories, keepaliveIntervalMs: interval } } });
      } catch (error) {
        if (!(error instanceof MatchmakingError)) options.log.warn({ err: error }, 'hello failed');
        finish(asMatchmakingError(error));
      }
    };

    // After the reports that came before it have had their turn.
    call.on('end', () => enqueue(ended, undefined));
  };
}

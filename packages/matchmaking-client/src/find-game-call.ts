import { Metadata, status, type Client, type ServiceError, type StatusObject } from '@grpc/grpc-js';
import { BufferReader, reusedWriterSerializer } from '@gamefactory/protocol';
import { FindGameRequest, FindGameUpdate, MatchmakerService } from '@gamefactory/protocol/v1/matchmaker';
import type { FindGameHandlers } from './find-game-calls.js';

const serialize = reusedWriterSerializer(FindGameRequest.encode);

/**
 * One FindGame call made on the client's channel directly (grpc-js' `Channel.createCall`, the
 * layer its `Client` builds calls on), reporting through two functions. `Client.findGame` wraps
 * the same call in an intercepting call, a Readable stream (its buffering, events and ticks for
 * every message and for the end) and, for every call, an Error whose stack trace it keeps for a
 * failure's stack: a player's client makes one such call per ticket, and that wrapping cost more
 * than the call itself (perf/PROFILE.md, FindGame). The messages, metadata, status and
 * cancellation are the same; a ServiceError carries the code, details and metadata as grpc-js'.
 */
export function findGameCall(client: Client, request: FindGameRequest, metadata: Metadata, handlers: FindGameHandlers): { cancel(): void } {
  const call = client.getChannel().createCall(MatchmakerService.findGame.path, Infinity, undefined, null, undefined);
  let ended = false;
  /** A message that could not be decoded ends the call with this instead of the status that follows. */
  let readError: StatusObject | undefined;
  call.start(metadata, {
    onReceiveMetadata() {},
    onReceiveMessage(message: Buffer) {
      let update: FindGameUpdate;
      try {
        update = FindGameUpdate.decode(new BufferReader(message));
      } catch (error) {
        readError = { code: status.INTERNAL, details: `Response message parsing error: ${(error as Error).message}`, metadata: new Metadata() };
        call.cancelWithStatus(readError.code, readError.details);
        return;
      }
      handlers.update(update);
      if (!ended) call.startRead();
    },
    onReceiveStatus(received: StatusObject) {
      if (ended) return;
      ended = true;
      const final = readError ?? received;
      handlers.end(final.code === status.OK ? null : serviceError(final));
    },
  });
  let bytes: Buffer;
  try {
    bytes = serialize(request);
  } catch (error) {
    call.cancelWithStatus(status.INTERNAL, `Request message serialization failure: ${(error as Error).message}`);
    return { cancel() {} };
  }
  call.sendMessageWithContext({}, bytes);
  call.halfClose();
  call.startRead();
  return {
    cancel() {
      if (!ended) call.cancelWithStatus(status.CANCELLED, 'Cancelled on client');
    },
  };
}

/** The error grpc-js' client streams emit for a status that is not OK. */
function serviceError(s: StatusObject): ServiceError {
  return Object.assign(new Error(`${s.code} ${status[s.code]}: ${s.details}`), { code: s.code, details: s.details, metadata: s.metadata });
}

import { makeGenericClientConstructor, type ChannelCredentials, type ClientOptions } from '@grpc/grpc-js';
import { BinaryReader, BinaryWriter } from '@bufbuild/protobuf/wire';
import { CoordinatorMessage, GameServerLinkService, ServerMessage, type GameServerLinkClient } from './generated/gamefactory/v1/game_server_link.js';
import { FindGameRequest, FindGamesRequest, FindGameUpdate, MatchmakerService, type MatchmakerClient } from './generated/gamefactory/v1/matchmaker.js';

/*
 * The generated (ts-proto) serializers as grpc-js calls them, with the buffers of the hot streams
 * handled once instead of per message and per string; the coordinator has the same two pieces
 * (src/transport/grpc/wire-buffers.ts) for its side of the same streams.
 */

/** A message larger than this leaves its grown buffer behind instead of keeping it for the next. */
const KEEP_BUFFER_BYTES = 1 << 20;

/**
 * A serializer that encodes every message into one BinaryWriter kept from call to call. The
 * generated one makes a writer per message, whose buffer grows from 128 bytes by doubling (a
 * batch of 1,024 finds allocated up to ~4x its size on the way), then copies the bytes twice (`finish`,
 * `Buffer.from`); this one grows once, copies once, and hands grpc-js a view of the copy.
 * Encoding is synchronous, so one writer per serializer is never shared by two messages.
 */
export function reusedWriterSerializer<T>(encode: (message: T, writer: BinaryWriter) => BinaryWriter): (message: T) => Buffer {
  let writer = new BinaryWriter();
  return (message) => {
    let bytes: Uint8Array;
    try {
      bytes = encode(message, writer).finish();
    } catch (error) {
      writer = new BinaryWriter(); // half a message may be in it
      throw error;
    }
    if (bytes.byteLength > KEEP_BUFFER_BYTES) writer = new BinaryWriter();
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  };
}

/**
 * A reader whose strings come straight from the Node Buffer grpc-js hands the deserializer. The
 * library's reader turns every ASCII string into an array of char codes first (8 bytes a
 * character: ~1 KB of garbage per assignment of six ids), and others through a subarray and a
 * TextDecoder; Buffer's UTF-8 decoding makes the string alone, replacing invalid sequences with
 * U+FFFD as TextDecoder does (WHATWG), and keeping a leading U+FEFF as the library asks of it.
 */
export class BufferReader extends BinaryReader {
  constructor(private readonly source: Buffer) {
    super(source);
  }

  override string(): string {
    const length = this.uint32();
    const start = this.pos;
    const end = start + length;
    if (end > this.len) throw new RangeError('premature EOF');
    this.pos = end;
    return this.source.toString('utf8', start, end);
  }
}

/** A deserializer reading through a BufferReader. */
export function bufferReaderDeserializer<T>(decode: (reader: BinaryReader) => T): (bytes: Buffer) => T {
  return (bytes) => decode(new BufferReader(bytes));
}

type ClientConstructor<C> = new (address: string, credentials: ChannelCredentials, options?: Partial<ClientOptions>) => C;

/** The Matchmaker's find calls through the buffers above (many a second from a gateway). */
const LeanMatchmakerClient = makeGenericClientConstructor(
  {
    ...MatchmakerService,
    findGame: {
      ...MatchmakerService.findGame,
      requestSerialize: reusedWriterSerializer(FindGameRequest.encode),
      responseDeserialize: bufferReaderDeserializer(FindGameUpdate.decode),
    },
    findGames: {
      ...MatchmakerService.findGames,
      requestSerialize: reusedWriterSerializer(FindGamesRequest.encode),
      responseDeserialize: bufferReaderDeserializer(FindGameUpdate.decode),
    },
  },
  'gamefactory.v1.Matchmaker',
) as unknown as ClientConstructor<MatchmakerClient>;

/** A game server's link through the buffers above. */
const LeanGameServerLinkClient = makeGenericClientConstructor(
  {
    ...GameServerLinkService,
    connect: {
      ...GameServerLinkService.connect,
      requestSerialize: reusedWriterSerializer(ServerMessage.encode),
      responseDeserialize: bufferReaderDeserializer(CoordinatorMessage.decode),
    },
  },
  'gamefactory.v1.GameServerLink',
) as unknown as ClientConstructor<GameServerLinkClient>;

/** A Matchmaker client: the generated `MatchmakerClient`, its finds read and written as above. */
export function matchmakerClient(address: string, credentials: ChannelCredentials, options: Partial<ClientOptions> = {}): MatchmakerClient {
  return new LeanMatchmakerClient(address, credentials, options);
}

/** A GameServerLink client: the generated one, its stream read and written as above. */
export function gameServerLinkClient(address: string, credentials: ChannelCredentials, options: Partial<ClientOptions> = {}): GameServerLinkClient {
  return new LeanGameServerLinkClient(address, credentials, options);
}

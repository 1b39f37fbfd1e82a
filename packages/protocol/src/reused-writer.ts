import { makeGenericClientConstructor, type ChannelCredentials, type ClientOptions } from '@grpc/grpc-js';
import { BinaryWriter } from '@bufbuild/protobuf/wire';
import { GameServerLinkService, type GameServerLinkClient, ServerMessage } from './generated/gamefactory/v1/game_server_link.js';
import { FindGameRequest, FindGamesRequest, MatchmakerService, type MatchmakerClient } from './generated/gamefactory/v1/matchmaker.js';

/** A message larger than this leaves its grown buffer behind instead of keeping it for the next. */
const KEEP_BUFFER_BYTES = 1 << 20;

/**
 * A serializer that encodes every message into one BinaryWriter kept from call to call. The
 * generated one makes a writer per message, whose buffer grows from 128 bytes by doubling (a
 * batch of 1,024 finds allocated ~4x its size on the way), then copies the bytes twice (`finish`,
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

/** The Matchmaker's finds serialized through reused writers (many a second from a gateway). */
const LeanMatchmakerClient = makeGenericClientConstructor(
  {
    ...MatchmakerService,
    findGame: { ...MatchmakerService.findGame, requestSerialize: reusedWriterSerializer(FindGameRequest.encode) },
    findGames: { ...MatchmakerService.findGames, requestSerialize: reusedWriterSerializer(FindGamesRequest.encode) },
  },
  'gamefactory.v1.Matchmaker',
) as unknown as new (address: string, credentials: ChannelCredentials, options?: Partial<ClientOptions>) => MatchmakerClient;

/** A game server's reports serialized through a reused writer. */
const LeanGameServerLinkClient = makeGenericClientConstructor(
  { ...GameServerLinkService, connect: { ...GameServerLinkService.connect, requestSerialize: reusedWriterSerializer(ServerMessage.encode) } },
  'gamefactory.v1.GameServerLink',
) as unknown as new (address: string, credentials: ChannelCredentials, options?: Partial<ClientOptions>) => GameServerLinkClient;

/** A Matchmaker client, as the generated `MatchmakerClient` but with the finds' serializers above. */
export function matchmakerClient(address: string, credentials: ChannelCredentials, options: Partial<ClientOptions> = {}): MatchmakerClient {
  return new LeanMatchmakerClient(address, credentials, options);
}

/** A GameServerLink client, as the generated one but with the reports' serializer above. */
export function gameServerLinkClient(address: string, credentials: ChannelCredentials, options: Partial<ClientOptions> = {}): GameServerLinkClient {
  return new LeanGameServerLinkClient(address, credentials, options);
}

import { BinaryReader, BinaryWriter } from '@bufbuild/protobuf/wire';

/*
 * The generated (ts-proto) serializers as grpc-js calls them, with the buffers of the hot streams
 * handled once instead of per message and per string. packages/protocol has the same two pieces
 * for the clients' side of the same streams.
 */

/** A message larger than this leaves its grown buffer behind instead of keeping it for the next. */
const KEEP_BUFFER_BYTES = 1 << 20;

/**
 * A serializer that encodes every message into one BinaryWriter kept from call to call. The
 * generated one makes a writer per message, whose buffer grows from 128 bytes by doubling (an
 * update batch of 1,024 assignments allocated up to ~4x its size on the way), then copies the bytes
 * twice (`finish`, `Buffer.from`); this one grows once, copies once, and hands grpc-js a view of
 * the copy. Encoding is synchronous, so one writer per serializer is never shared by two messages.
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
  constructor(readonly source: Buffer) {
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

export { Backoff, type BackoffOptions } from './backoff.js';
export { PROTOCOL } from './protocol-version.js';
export { retryAfterMs } from './retry-after.js';
export { TickBatch } from './tick-batch.js';
export { plainAttributes, plainValue, wireAttributes, wireValue, type PlainValue } from './wire-attributes.js';
export { BufferReader, bufferReaderDeserializer, gameServerLinkClient, matchmakerClient, reusedWriterSerializer } from './wire-buffers.js';
export { RatingsReader } from './ratings-reader.js';

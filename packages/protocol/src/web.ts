// The helpers a browser may load: nothing here imports @grpc/grpc-js or Node's modules at run time.
export { Backoff, type BackoffOptions } from './backoff.js';
export { PROTOCOL } from './protocol-version.js';
export { retryAfterMs, type StatusMetadata } from './retry-after.js';
export { plainAttributes, plainValue, wireAttributes, wireValue, type PlainValue } from './wire-attributes.js';

/**
 * The gRPC status codes, the same numbers as grpc-js' `status` (which the Node entry exports), for
 * the code both entries share: the browser's must not load grpc-js to name a code.
 */
export const Code = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  DATA_LOSS: 15,
  UNAUTHENTICATED: 16,
} as const;

const NAMES = Object.fromEntries(Object.entries(Code).map(([name, code]) => [code, name])) as Record<number, string>;

/** "INVALID_ARGUMENT" for 3; the number itself for a code gRPC does not define. */
export const codeName = (code: number): string => NAMES[code] ?? String(code);

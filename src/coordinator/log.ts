/** Where the core's parts and the edges write log lines (pino in the process). */
export interface Log {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  debug(fields: object, message: string): void;
}

export const silentLog: Log = { info() {}, warn() {}, debug() {} };

/** Logs a promise's failure: for background work nobody waits for (a write, a delivery). */
export function logFailure(log: Log, message: string, fields: object = {}) {
  return (error: unknown): void => log.warn({ ...fields, err: error }, message);
}

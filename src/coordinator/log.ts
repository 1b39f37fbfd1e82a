/** Where the core's parts and the edges write log lines (pino in the process). */
export interface Log {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  debug(fields: object, message: string): void;
}

export const silentLog: Log = { info() {}, warn() {}, debug() {} };

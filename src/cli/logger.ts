import { pino, type Logger } from 'pino';
import type { Log } from '../coordinator/ports.js';

export type AppLogger = Log & { error(fields: object, message: string): void };

/** Structured logs: JSON lines by default (for collectors), pino-pretty when asked (for people). */
export function createLogger(format: 'json' | 'pretty', level: string): AppLogger {
  const logger: Logger =
    format === 'pretty'
      ? pino({ level, transport: { target: 'pino-pretty', options: { colorize: true } } })
      : pino({ level });
  return {
    info: (fields, message) => logger.info(fields, message),
    warn: (fields, message) => logger.warn(fields, message),
    debug: (fields, message) => logger.debug(fields, message),
    error: (fields, message) => logger.error(fields, message),
  };
}

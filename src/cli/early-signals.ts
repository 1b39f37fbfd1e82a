/**
 * SIGTERM and SIGINT from the process's first line until a command takes them over. Loading the
 * commands takes a few hundred milliseconds (commander, the config schema, the logger), and a
 * supervisor's SIGTERM in that window ended the process by the signal (exit 143) where a stop
 * before anything started is a clean exit 0.
 */
const early = (signal: NodeJS.Signals): void => {
  // The logger is not loaded yet: one line in its shape (pino's JSON, level info).
  process.stdout.write(`${JSON.stringify({ level: 30, time: Date.now(), pid: process.pid, signal, msg: 'signal before starting: exiting' })}\n`);
  process.exit(0);
};

/** Called first by the `gamefactory` entry (bin.ts), before the commands load. */
export function holdSignalsWhileLoading(): void {
  process.on('SIGTERM', early);
  process.on('SIGINT', early);
}

/** The commands are loaded: each handles the signals its own way (the default action for all but `start`). */
export function releaseEarlySignals(): void {
  process.off('SIGTERM', early);
  process.off('SIGINT', early);
}

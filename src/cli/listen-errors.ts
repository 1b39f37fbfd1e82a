/**
 * A start that could not listen, said as the flag to change: grpc-js reports a taken port as
 * "No address added out of total 1 resolved errors: [listen EADDRINUSE: ...]" and Node's HTTP
 * server as an EADDRINUSE error with its address, both raw stack traces otherwise.
 */
export function listenProblem(error: unknown, listen: string, metricsListen: string): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const code = (error as NodeJS.ErrnoException).code;
  const denied = (text: string) => /EACCES/.test(text);
  if (/^No address added out of total/.test(error.message)) {
    const why = denied(error.message) ? 'permission denied (a port below 1024 needs privileges)' : /EADDRINUSE/.test(error.message) ? 'the address is in use (another process listens there)' : 'it cannot be bound';
    return `--listen ${listen}: ${why}; give another with --listen HOST:PORT (port 0: any free port)`;
  }
  if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL') {
    const why = code === 'EADDRINUSE' ? 'the address is in use (another process listens there)' : code === 'EACCES' ? 'permission denied (a port below 1024 needs privileges)' : 'no such address on this machine';
    return `--metrics-listen ${metricsListen}: ${why}; give another with --metrics-listen HOST:PORT (port 0: any free port)`;
  }
  return undefined;
}

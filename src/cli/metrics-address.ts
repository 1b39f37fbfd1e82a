/** The metrics port when none is given. */
export const DEFAULT_METRICS_PORT = 9464;

/**
 * Where /metrics and the operator page listen: by default on the gRPC host (so `npm start`,
 * on 127.0.0.1, exposes nothing to the network), port 9464. `--metrics-listen` may be a full
 * host:port, or a port alone (`9464`, `:0`) on the gRPC host.
 */
export function metricsAddress(grpcListen: string, given: string | undefined): string {
  const host = /^(.*):\d+$/.exec(grpcListen)?.[1] ?? grpcListen;
  if (given === undefined || given === '') return `${host}:${DEFAULT_METRICS_PORT}`;
  const portOnly = /^:?(\d+)$/.exec(given);
  return portOnly ? `${host}:${portOnly[1]}` : given;
}

/**
 * Whether finds are traced, and where the spans go: `--otlp-endpoint`, or the standard OTEL_*
 * variables (https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/).
 * Off unless one of them asks for it: unlike an SDK's default, an unconfigured coordinator sends
 * nothing anywhere.
 */
export type TraceSettings =
  /** OTLP over HTTP; `endpoint` undefined: the exporter reads OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT (default http://localhost:4318). */
  | { readonly exporter: 'otlp'; readonly tracesUrl: string | undefined }
  /** Spans printed to stdout (OTEL_TRACES_EXPORTER=console), for a look without a collector. */
  | { readonly exporter: 'console' };

export class TraceSettingsError extends Error {
  override readonly name = 'TraceSettingsError';
}

/** OTLP/HTTP's path for traces under a base endpoint (as OTEL_EXPORTER_OTLP_ENDPOINT is read). */
const TRACES_PATH = 'v1/traces';

/** Parse, validate, normalise: undefined when tracing is off. Pure (the environment is an argument). */
export function traceSettings(otlpEndpoint: string | undefined, env: Readonly<Record<string, string | undefined>>): TraceSettings | undefined {
  if (otlpEndpoint !== undefined) return { exporter: 'otlp', tracesUrl: tracesUrl(otlpEndpoint) };
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  const named = (env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
  for (const name of named) {
    if (!['otlp', 'console', 'none'].includes(name)) {
      throw new TraceSettingsError(`OTEL_TRACES_EXPORTER: "${name}" is not an exporter the coordinator has (otlp, console, none)`);
    }
  }
  if (named.includes('none')) return undefined;
  if (named.includes('otlp')) return { exporter: 'otlp', tracesUrl: undefined };
  if (named.includes('console')) return { exporter: 'console' };
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? env.OTEL_EXPORTER_OTLP_ENDPOINT;
  return endpoint?.trim() ? { exporter: 'otlp', tracesUrl: undefined } : undefined;
}

/** `--otlp-endpoint`: a base URL like OTEL_EXPORTER_OTLP_ENDPOINT (traces go to its /v1/traces), or the traces URL itself. */
function tracesUrl(endpoint: string): string {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new TraceSettingsError(`--otlp-endpoint: "${endpoint}" is not a URL (e.g. http://otel-collector:4318)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TraceSettingsError(`--otlp-endpoint: "${endpoint}" must be http:// or https:// (OTLP over HTTP)`);
  }
  if (url.pathname.replace(/\/+$/, '').endsWith(`/${TRACES_PATH}`)) return url.toString();
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/${TRACES_PATH}`;
  return url.toString();
}

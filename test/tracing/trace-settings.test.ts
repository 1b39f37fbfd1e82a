import { describe, expect, it } from 'vitest';
import { traceSettings } from '../../src/tracing/trace-settings.js';

describe('whether finds are traced (--otlp-endpoint, OTEL_* variables)', () => {
  it('is off unless asked, whatever else the environment holds', () => {
    expect(traceSettings(undefined, {})).toBeUndefined();
    expect(traceSettings(undefined, { OTEL_SERVICE_NAME: 'mm', OTEL_TRACES_SAMPLER: 'always_on' })).toBeUndefined();
  });

  it('--otlp-endpoint is a base URL (traces go to /v1/traces) or the traces URL itself', () => {
    expect(traceSettings('http://collector:4318', {})).toEqual({ exporter: 'otlp', tracesUrl: 'http://collector:4318/v1/traces' });
    expect(traceSettings('http://collector:4318/', {})).toEqual({ exporter: 'otlp', tracesUrl: 'http://collector:4318/v1/traces' });
    expect(traceSettings('https://otel.example/v1/traces', {})).toEqual({ exporter: 'otlp', tracesUrl: 'https://otel.example/v1/traces' });
    // The flag wins over variables that would turn tracing off.
    expect(traceSettings('http://collector:4318', { OTEL_TRACES_EXPORTER: 'none', OTEL_SDK_DISABLED: 'true' })?.exporter).toBe('otlp');
  });

  it('refuses a flag that is not an http(s) URL, naming it', () => {
    expect(() => traceSettings('collector:4318', {})).toThrow(/--otlp-endpoint: "collector:4318" must be http/);
    expect(() => traceSettings('not a url', {})).toThrow(/--otlp-endpoint: "not a url" is not a URL/);
  });

  it('the standard variables: an OTLP endpoint or OTEL_TRACES_EXPORTER turn it on; none and OTEL_SDK_DISABLED off', () => {
    expect(traceSettings(undefined, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' })).toEqual({ exporter: 'otlp', tracesUrl: undefined });
    expect(traceSettings(undefined, { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces' })).toEqual({ exporter: 'otlp', tracesUrl: undefined });
    expect(traceSettings(undefined, { OTEL_TRACES_EXPORTER: 'otlp' })).toEqual({ exporter: 'otlp', tracesUrl: undefined });
    expect(traceSettings(undefined, { OTEL_TRACES_EXPORTER: 'console' })).toEqual({ exporter: 'console' });
    expect(traceSettings(undefined, { OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' })).toBeUndefined();
    expect(traceSettings(undefined, { OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' })).toBeUndefined();
  });

  it('refuses an exporter the coordinator does not have, naming the variable', () => {
    expect(() => traceSettings(undefined, { OTEL_TRACES_EXPORTER: 'zipkin' })).toThrow(/OTEL_TRACES_EXPORTER: "zipkin"/);
  });
});

import type { Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, ConsoleSpanExporter, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { TraceSettings } from './trace-settings.js';

/** The process's tracer and the way to flush what it holds when the process stops. */
export interface TraceExport {
  readonly tracer: Tracer;
  /** Sends what is buffered, then stops exporting. */
  shutdown(): Promise<void>;
}

/**
 * Spans leave in batches (the BatchSpanProcessor's OTEL_BSP_* settings) to the OTLP/HTTP endpoint,
 * the exporter reading OTEL_EXPORTER_OTLP_* (headers, timeout, endpoint unless `--otlp-endpoint`).
 * The sampler is the SDK's, from OTEL_TRACES_SAMPLER (default: parent-based, always on); the
 * resource names the service `gamefactory` unless OTEL_SERVICE_NAME or OTEL_RESOURCE_ATTRIBUTES
 * say otherwise. `processor`: another span processor instead (tests: an in-memory exporter).
 */
export function startTraceExport(settings: TraceSettings | undefined, processor?: SpanProcessor): TraceExport {
  const exporting =
    processor ??
    new BatchSpanProcessor(settings?.exporter === 'console' ? new ConsoleSpanExporter() : new OTLPTraceExporter(settings?.exporter === 'otlp' && settings.tracesUrl ? { url: settings.tracesUrl } : {}));
  // Later resources win: ours, then what the environment says.
  const resource = defaultResource().merge(resourceFromAttributes({ 'service.name': 'gamefactory' })).merge(detectResources({ detectors: [envDetector] }));
  const provider = new BasicTracerProvider({ resource, spanProcessors: [exporting] });
  return { tracer: provider.getTracer('gamefactory'), shutdown: () => provider.shutdown() };
}

import { ROOT_CONTEXT, type Context, type TextMapGetter } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import type { TraceHeader } from './find-tracing.js';

const propagator = new W3CTraceContextPropagator();

const getter: TextMapGetter<TraceHeader> = {
  get: (header, key) => header(key),
  keys: () => ['traceparent', 'tracestate'],
};

/**
 * The caller's trace, from its W3C Trace Context headers (https://www.w3.org/TR/trace-context/):
 * a context whose remote span is the parent of the find's root span. A missing or malformed
 * `traceparent` gives the root context: the find starts a trace of its own.
 */
export function parentContext(header: TraceHeader): Context {
  return propagator.extract(ROOT_CONTEXT, header, getter);
}

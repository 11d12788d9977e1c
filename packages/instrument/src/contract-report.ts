// The contract span (docs/contracts.md): an instrumented process tells the collector what each tool promises,
// once per tracer provider and (tool, schema hash), as a root span of its own through the same OTLP path as its
// calls. The collector keeps one catalog row per (tool, hash); calls carry only the hash.
import { ROOT_CONTEXT, SpanKind, type TracerProvider, trace } from '@opentelemetry/api';
import { type Deprecation, deprecationAttributes } from './deprecation.js';
import * as sc from './semconv.js';
import { startSafeSpan } from './telemetry.js';

/** A tool as `tools/list` shows it. */
export type ContractEntry = {
  name: string;
  description?: string | undefined;
  inputSchema: unknown;
  outputSchema?: unknown;
  annotations?: unknown;
};

export type ContractReport = {
  entry: ContractEntry;
  version: string;
  hash: string;
  deprecated: Deprecation | undefined;
  origin: 'defineTool' | 'tools/list';
};

const reported = new WeakMap<object, Set<string>>();

const entryJson = new WeakMap<ContractReport, string>();

/**
 * Sends the contract span unless this provider already carried it; never throws. True once the provider has
 * carried it, false while nothing records (no SDK yet): the caller asks again on a later call.
 */
export function reportContract(provider: TracerProvider | undefined, c: ContractReport): boolean {
  const target: object = provider ?? trace.getTracerProvider();
  let done = reported.get(target);
  const key = `${c.entry.name}\u0000${c.hash}`;
  if (done?.has(key)) return true;
  let json = entryJson.get(c);
  if (json === undefined) {
    try {
      json = JSON.stringify(c.entry);
    } catch {
      return true;
    }
    entryJson.set(c, json);
  }
  const span = startSafeSpan(provider, {
    name: `${sc.SPAN_NAME_TOOL_CONTRACT_PREFIX} ${c.entry.name}`,
    kind: SpanKind.INTERNAL,
    parent: ROOT_CONTEXT,
    attributes: {
      [sc.ATTR_TOOLSCOPE_CONTRACT_NAME]: c.entry.name,
      [sc.ATTR_TOOLSCOPE_CONTRACT_VERSION]: c.version,
      [sc.ATTR_TOOLSCOPE_CONTRACT_HASH]: c.hash,
      [sc.ATTR_TOOLSCOPE_CONTRACT_ENTRY]: json,
      [sc.ATTR_TOOLSCOPE_CONTRACT_BYTES]: Buffer.byteLength(json),
      [sc.ATTR_TOOLSCOPE_CONTRACT_ORIGIN]: c.origin,
      ...(c.deprecated ? deprecationAttributes(c.deprecated) : {}),
    },
  });
  // A provider that records nothing yet (the SDK starts after the first call) gets the contract next time.
  const recording = span.recording;
  span.end(undefined);
  if (!recording) return false;
  if (!done) {
    done = new Set();
    reported.set(target, done);
  }
  done.add(key);
  return true;
}

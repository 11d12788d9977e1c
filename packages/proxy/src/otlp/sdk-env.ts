// The OTel SDK variables the proxy's spans honour as the SDK's BasicTracerProvider did before it: the sampler
// (`OTEL_TRACES_SAMPLER`, `_ARG`) and the span limits (`OTEL_[SPAN_]ATTRIBUTE_*_LIMIT`, event and link counts).
import { diag } from '@opentelemetry/api';
import { z } from 'zod';

export type SamplerName =
  | 'always_on'
  | 'always_off'
  | 'traceidratio'
  | 'parentbased_always_on'
  | 'parentbased_always_off'
  | 'parentbased_traceidratio';

export type SpanLimits = {
  attributeValueLength: number;
  attributeCount: number;
  eventCount: number;
  linkCount: number;
};

export type SdkEnv = { sampler: SamplerName; ratio: number; limits: SpanLimits };

const samplerSchema = z.enum([
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
]);

const text = (env: NodeJS.ProcessEnv, name: string): string | undefined => {
  const v = env[name]?.trim();
  return v ? v : undefined;
};

function number(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const raw = text(env, name);
  if (raw === undefined) return undefined;
  const parsed = z.coerce.number().safeParse(raw);
  if (parsed.success) return parsed.data;
  diag.warn(`Unknown value ${raw} for ${name}, expected a number, using defaults`);
  return undefined;
}

/** The sampler and limits from the environment, with the SDK's defaults and its complaints about bad values. */
export function readSdkEnv(env: NodeJS.ProcessEnv = process.env): SdkEnv {
  const rawSampler = text(env, 'OTEL_TRACES_SAMPLER') ?? 'parentbased_always_on';
  const named = samplerSchema.safeParse(rawSampler);
  if (!named.success)
    diag.error(
      `OTEL_TRACES_SAMPLER value "${rawSampler}" invalid, defaulting to "parentbased_always_on".`,
    );
  const sampler = named.success ? named.data : 'parentbased_always_on';
  let ratio = 1;
  if (sampler.endsWith('traceidratio')) {
    const arg = number(env, 'OTEL_TRACES_SAMPLER_ARG');
    if (arg === undefined) diag.error('OTEL_TRACES_SAMPLER_ARG is blank, defaulting to 1.');
    else if (arg < 0 || arg > 1)
      diag.error(
        `OTEL_TRACES_SAMPLER_ARG=${arg} was given, but it is out of range ([0..1]), defaulting to 1.`,
      );
    else ratio = arg;
  }
  const limit = (specific: string, general: string | undefined, fallback: number) =>
    number(env, specific) ?? (general ? number(env, general) : undefined) ?? fallback;
  return {
    sampler,
    ratio,
    limits: {
      attributeValueLength: limit(
        'OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT',
        'OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT',
        Number.POSITIVE_INFINITY,
      ),
      attributeCount: limit('OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT', 'OTEL_ATTRIBUTE_COUNT_LIMIT', 128),
      eventCount: limit('OTEL_SPAN_EVENT_COUNT_LIMIT', undefined, 128),
      linkCount: limit('OTEL_SPAN_LINK_COUNT_LIMIT', undefined, 128),
    },
  };
}

/**
 * Whether a new span is sampled, as the SDK's samplers decide: parent-based ones follow the parent's sampled
 * flag; the ratio sampler compares the trace id's 32-bit XOR fold with ratio × 2^32−1.
 */
export function sampled(env: SdkEnv, traceId: string, parentFlags: number | undefined): boolean {
  const parentBased = env.sampler.startsWith('parentbased_');
  if (parentBased && parentFlags !== undefined) return (parentFlags & 1) === 1;
  if (env.sampler.endsWith('always_on')) return true;
  if (env.sampler.endsWith('always_off')) return false;
  let fold = 0;
  for (let i = 0; i < traceId.length; i += 8)
    fold = (fold ^ Number.parseInt(traceId.slice(i, i + 8), 16)) >>> 0;
  return fold < Math.floor(env.ratio * 0xffffffff);
}

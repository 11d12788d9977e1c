// Decoded spans written as the collector writes them: through the process stage (process/batch.ts) into a
// store's writer side, which takes processed batches. The tests that build spans in the collector's model use it.
import type { NormalizedSpan } from '../src/otlp/model.js';
import { processBatch } from '../src/process/batch.js';
import type { SpanWriter, WriteOutcome } from '../src/storage/contract.js';

export function writeSpans(store: SpanWriter, spans: NormalizedSpan[]): Promise<WriteOutcome> {
  return store.write(processBatch(spans));
}

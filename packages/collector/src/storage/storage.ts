// The narrow storage interface the collector talks to (DESIGN.md §5). SQLite is the embedded default; a
// PostgreSQL implementation for several stateless collectors would implement the same methods.
import type {
  Call,
  SearchResult,
  SpanOut,
  TimeseriesResponse,
  ToolDetailResponse,
  ToolStats,
} from '../api/schemas.js';
import type { Flag } from '../detectors/flag.js';
import type { NormalizedSpan } from '../otlp/model.js';
import type { WriteOutcome } from './block-writer.js';
import type { CallFilter } from './sqlite-reader.js';

export type { CallFilter, WriteOutcome };

export interface Storage {
  /** Commits a batch durably (as the backend defines it) before resolving; duplicates are ignored. */
  write(spans: NormalizedSpan[]): Promise<WriteOutcome>;
  tools(sinceNs: bigint, untilNs: bigint, tool?: string): ToolStats[];
  calls(filter: CallFilter): { calls: Call[]; nextCursor: string | null };
  trace(traceId: string): SpanOut[] | null;
  conversation(id: string): { traceIds: string[]; spans: SpanOut[] } | null;
  /** Retry-loop and drift flags of the window (DESIGN.md §4). */
  flags(
    sinceNs: bigint,
    untilNs: bigint,
    filter: { kind?: string | undefined; tool?: string | undefined },
  ): Flag[];
  /** The tool page: versions and hashes, failing paths, input shapes, latency; null for an unknown tool. */
  toolDetail(name: string, sinceNs: bigint, untilNs: bigint): ToolDetailResponse | null;
  /** Calls and errors per step (all tools, or one). */
  timeseries(
    sinceNs: bigint,
    untilNs: bigint,
    stepMs: number,
    tool?: string | undefined,
  ): TimeseriesResponse;
  /** What a search term can mean: trace, conversation, call id, tool, error code. */
  search(query: string, sinceNs: bigint): SearchResult[];
  /** Deletes at most `maxTraces` traces (and their calls) that started before the cutoff; returns how many. */
  deleteBefore(cutoffNs: bigint, maxTraces: number): Promise<number>;
  close(): Promise<void>;
}

// `toolscope serve --help`: every flag of serve, with its default and the environment variable that sets it.

export const SERVE_USAGE = `Usage: toolscope serve [options]

Receives OTLP/HTTP traces (POST /v1/traces), stores them in SQLite or PostgreSQL and answers the JSON API.

Options:
  --db PATH|URL      SQLite database file, or a postgres:// URL shared by several collectors
                     (default: TOOLSCOPE_DB, else ./toolscope.db)
  --pool-size N      PostgreSQL connections this collector opens: half write, one merges rollup rows,
                     the rest read (default 10, at least 3)
  --db-statement-timeout AGE   PostgreSQL: longest one statement may run or wait for a lock before its
                     request is answered 503, e.g. 10s, 500ms (default 10s)
  --exit-if-db-unreachable   PostgreSQL: exit 1 at start when the database cannot be reached (default:
                     start, answer 503 with /readyz not ready, and connect with backoff)
  --host HOST        address to bind (default 127.0.0.1)
  --port PORT        port to listen on (default 4318, the OTLP/HTTP port)
  --grpc-port PORT   OTLP/gRPC port on the same host; 0 turns it off (default 4317, or none when another
                     process holds 4317; a port given here that cannot be bound fails the start)
  --hash-key KEY     key of the input hashes the collector computes for other instrumentations' tool
                     spans; use the instrumented processes' TOOLSCOPE_HASH_KEY (default: that variable)
  --capture-content  keep other instrumentations' tool arguments and results, redacted (default: drop
                     them once hashed; or set TOOLSCOPE_CAPTURE_CONTENT=true)
  --retention AGE    delete data older than AGE, e.g. 7d, 24h (default: keep everything)
  --token TOKEN      require "Authorization: Bearer TOKEN" on every route (local users read command lines:
                     prefer --token-file PATH, TOOLSCOPE_TOKEN_FILE or TOOLSCOPE_TOKEN)
  --max-body-mb N    largest accepted body after decompression, in MiB (default 16)
  --max-inflight-mb N   request bodies held in memory at once, received plus inflated, in MiB;
                     beyond it ingest answers 429 (default 64, or a sixteenth of the memory limit)
  --max-pending-spans N   spans accepted but not yet committed; beyond it ingest answers 429
                     (default 200000, or 48 per MiB of the memory limit, 80 on PostgreSQL)
  --memory-limit-mib N   resident memory to stay within; past 9/10 ingest gets 429 (default 200; 0: none)
  --log-level LEVEL  JSON log lines on stdout from this level: fatal, error, warn, info (default), debug,
                     trace or silent
  --sync MODE        SQLite synchronous mode: normal (survives a process kill) or full (also power loss)
  --alert-webhook URL   POST each new flag once (JSON), retried with backoff
  --identical-retry-min N   calls with one input that make an identical_retry flag (default 3)
  --retry-cap N      attempts a read may make after RETRYABLE before a repeat is a loop (default 3)
  --cycle-min-rounds N   rounds a cycle of 2-5 calls repeats before it is a tool_cycle flag (default 3)
  --churn-min-calls N    failing calls of one tool with changing inputs that make an argument_churn (default 4)
  --poll-min-calls N     identical successful calls with one result that make a polling_no_progress, and the
                         polls of a task polled too fast that make a polling_faster_than_interval (default 5)
  --rollout-grace AGE   versions of a tool may overlap this long before version_skew (default 5m)
  --schema-token-budget N   tokens a tool's tools/list entry may take before heavy_schema (default 1000)
  --result-token-budget N   tokens a tool's p95 result may take before oversized_result (default 10000)
  -h, --help         show this help
`;

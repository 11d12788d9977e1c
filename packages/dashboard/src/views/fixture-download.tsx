// "Download as regression fixture": the file `toolscope fixtures` writes for the same trace or flag
// (GET /api/fixtures), saved by the browser under its own name. Fetched with the session's token, so it works
// behind the dashboard token too.
import { useState } from 'preact/hooks';
import { authHeaders, query } from '../api';

async function download(params: Record<string, string | undefined>): Promise<string | null> {
  let res: Response;
  try {
    res = await fetch(`/api/fixtures${query(params)}`, { headers: authHeaders() });
  } catch (error) {
    return `cannot reach the collector: ${error instanceof Error ? error.message : String(error)}`;
  }
  const text = await res.text();
  if (!res.ok) {
    try {
      const said = (JSON.parse(text) as { error?: { message?: string } }).error?.message;
      return said ?? `the collector answered ${res.status}`;
    } catch {
      return `the collector answered ${res.status}`;
    }
  }
  const name = /filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '')?.[1];
  const url = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name ?? 'fixtures.json';
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
  return null;
}

/** A button that saves the fixture file of `params` (trace and tool, or flag and its window). */
export function FixtureDownload({
  params,
  label = 'Download as regression fixture',
}: {
  params: Record<string, string | undefined>;
  label?: string;
}) {
  const [problem, setProblem] = useState('');
  return (
    <span class="fixture-download" data-trace={params.trace} data-flag={params.flag}>
      <button
        type="button"
        class="link"
        title="the fixture file `toolscope fixtures` writes: recorded calls to replay in a test"
        onClick={() => {
          setProblem('');
          void download(params).then((p) => setProblem(p ?? ''));
        }}
      >
        {label}
      </button>
      {problem && (
        <span class="bad" role="alert">
          {' '}
          {problem}
        </span>
      )}
    </span>
  );
}

/** One download per tool of a trace's calls (a fixture file holds one tool's calls). */
export function TraceFixtures({ traceId, tools }: { traceId: string; tools: string[] }) {
  if (tools.length === 0) return null;
  return (
    <p class="fixtures">
      {tools.map((tool) => (
        <FixtureDownload
          key={tool}
          params={{ trace: traceId, tool }}
          label={
            tools.length === 1
              ? 'Download as regression fixture'
              : `Download as regression fixture (${tool})`
          }
        />
      ))}
    </p>
  );
}

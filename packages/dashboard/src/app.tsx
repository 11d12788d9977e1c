// The shell: navigation, search, time range, live refresh, token prompt, and the current view.
import { useEffect, useState } from 'preact/hooks';
import { hasToken, setToken } from './api';
import { href, parseRoute, type Route } from './route';
import { DEFAULT_RANGE, isPreset, PRESETS, type TimeRange, toLocalInput } from './time';
import { CallsView, SearchView } from './views/calls';
import { Flags } from './views/flags';
import { Overview } from './views/overview';
import { ConversationView, TraceView } from './views/timeline';
import { ToolView } from './views/tool';

const LIVE_MS = 10_000;

function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const on = () => setRoute(parseRoute(location.hash));
    window.addEventListener('hashchange', on);
    return () => window.removeEventListener('hashchange', on);
  }, []);
  return route;
}

function RangePicker({ range, onChange }: { range: TimeRange; onChange: (r: TimeRange) => void }) {
  const [custom, setCustom] = useState(range.kind === 'custom');
  const now = new Date().toISOString();
  const dayAgo = new Date(Date.now() - 86_400_000).toISOString();
  const [from, setFrom] = useState(toLocalInput(range.kind === 'custom' ? range.since : dayAgo));
  const [to, setTo] = useState(toLocalInput(range.kind === 'custom' ? range.until : now));
  const [problem, setProblem] = useState('');
  const value = range.kind === 'preset' && !custom ? range.preset : 'custom';
  return (
    <div class="range">
      <label>
        <span class="sr-only">Time range</span>
        <select
          aria-label="time range"
          value={value}
          onChange={(e) => {
            const v = e.currentTarget.value;
            if (v === 'custom') setCustom(true);
            else {
              setCustom(false);
              if (isPreset(v)) onChange({ kind: 'preset', preset: v });
            }
          }}
        >
          {PRESETS.map((p) => (
            <option key={p} value={p}>
              last {p}
            </option>
          ))}
          <option value="custom">custom…</option>
        </select>
      </label>
      {custom && (
        <form
          class="custom-range"
          onSubmit={(e) => {
            e.preventDefault();
            const since = new Date(from);
            const until = new Date(to);
            if (Number.isNaN(since.getTime()) || Number.isNaN(until.getTime()) || since >= until) {
              setProblem('the start must be a valid time before the end');
              return;
            }
            setProblem('');
            onChange({ kind: 'custom', since: since.toISOString(), until: until.toISOString() });
          }}
        >
          <label>
            from{' '}
            <input
              type="datetime-local"
              value={from}
              onInput={(e) => setFrom(e.currentTarget.value)}
            />
          </label>
          <label>
            to{' '}
            <input type="datetime-local" value={to} onInput={(e) => setTo(e.currentTarget.value)} />
          </label>
          <button type="submit">Apply</button>
          {problem && (
            <span role="alert" class="bad">
              {problem}
            </span>
          )}
        </form>
      )}
    </div>
  );
}

function TokenPrompt({ onDone }: { onDone: () => void }) {
  const [value, setValue] = useState('');
  return (
    <form
      class="panel login"
      aria-label="token"
      onSubmit={(e) => {
        e.preventDefault();
        setToken(value.trim());
        onDone();
      }}
    >
      <h2>This collector requires a token</h2>
      <p>
        Enter the token the collector was started with (<code class="mono">--token</code> or{' '}
        <code class="mono">TOOLSCOPE_TOKEN</code>). It is kept for this browser session only. You
        can also open the dashboard as <code class="mono">{`${location.origin}/#token=…`}</code>.
      </p>
      <label>
        Token{' '}
        <input
          type="password"
          autoComplete="current-password"
          value={value}
          onInput={(e) => setValue(e.currentTarget.value)}
        />
      </label>{' '}
      <button type="submit">Continue</button>
      {hasToken() && (
        <p class="bad" role="alert">
          The stored token was refused.
        </p>
      )}
    </form>
  );
}

export function App() {
  const route = useRoute();
  const [range, setRange] = useState<TimeRange>(DEFAULT_RANGE);
  const [live, setLive] = useState(false);
  const [tick, setTick] = useState(0);
  const [needToken, setNeedToken] = useState(false);
  const [q, setQ] = useState(route.view === 'search' ? route.q : '');
  useEffect(() => {
    if (!live) return;
    const t = setInterval(() => setTick((n) => n + 1), LIVE_MS);
    return () => clearInterval(t);
  }, [live]);
  useEffect(() => {
    const on = () => setNeedToken(true);
    window.addEventListener('toolscope:unauthorized', on);
    return () => window.removeEventListener('toolscope:unauthorized', on);
  }, []);
  const view = (() => {
    switch (route.view) {
      case 'overview':
        return <Overview range={range} tick={tick} client={route.client} />;
      case 'flags':
        return <Flags range={range} tick={tick} />;
      case 'tool':
        return <ToolView name={route.name} range={range} tick={tick} />;
      case 'trace':
        return <TraceView traceId={route.traceId} spanId={route.spanId} tick={tick} />;
      case 'conversation':
        return <ConversationView id={route.id} tick={tick} />;
      case 'calls': {
        const { view: _v, ...filter } = route;
        return <CallsView filter={filter} range={range} tick={tick} />;
      }
      case 'search':
        return <SearchView q={route.q} tick={tick} />;
    }
  })();
  return (
    <>
      <header class="top">
        <a class="brand" href={href.overview()}>
          Toolscope
        </a>
        <nav aria-label="views">
          <a href={href.overview()} aria-current={route.view === 'overview' ? 'page' : undefined}>
            Overview
          </a>
          <a href={href.flags()} aria-current={route.view === 'flags' ? 'page' : undefined}>
            Flags
          </a>
        </nav>
        <form
          class="search"
          aria-label="search"
          onSubmit={(e) => {
            e.preventDefault();
            location.hash = href.search(q.trim());
          }}
        >
          <input
            type="search"
            aria-label="search by trace id, call id, conversation id, tool or code"
            placeholder="trace id, call id, conversation, tool, code"
            value={q}
            onInput={(e) => setQ(e.currentTarget.value)}
          />
          <button type="submit">Search</button>
        </form>
        <RangePicker range={range} onChange={setRange} />
        <label class="live">
          <input
            type="checkbox"
            checked={live}
            onChange={(e) => setLive(e.currentTarget.checked)}
          />{' '}
          live
        </label>
        <button type="button" onClick={() => setTick((n) => n + 1)} aria-label="refresh now">
          ↻
        </button>
      </header>
      <main>
        {needToken && (
          <TokenPrompt
            onDone={() => {
              setNeedToken(false);
              setTick((n) => n + 1);
            }}
          />
        )}
        {view}
      </main>
    </>
  );
}

// Small shared pieces. Everything from the data is rendered as text nodes: no innerHTML anywhere.
import { formatCount } from '@toolscope/collector/schemas';
import type { ComponentChildren } from 'preact';
import type { Loaded } from './hooks';
import { formatTime, utcTitle } from './time';

export function Time({ iso }: { iso: string }) {
  return (
    <time dateTime={iso} title={utcTitle(iso)}>
      {formatTime(iso)}
    </time>
  );
}

export function Code({ code }: { code: string | null }) {
  const ok = code === null || code === '' || code === 'OK';
  return <span class={`code ${ok ? 'code-ok' : 'code-err'}`}>{ok ? 'OK' : code}</span>;
}

export function Loading({ what }: { what: string }) {
  return (
    <p class="state" role="status" aria-live="polite">
      Loading {what}…
    </p>
  );
}

export function ErrorBox({ message }: { message: string }) {
  return (
    <p class="state state-error" role="alert">
      {message}
    </p>
  );
}

/** Renders the loading and error states of a request and the view once data is there. */
export function Load<T>({
  loaded,
  what,
  children,
}: {
  loaded: Loaded<T>;
  what: string;
  children: (data: T) => ComponentChildren;
}) {
  if (loaded.state === 'loading') return <Loading what={what} />;
  if (loaded.state === 'error') {
    return loaded.kind === 'unauthorized' ? (
      <ErrorBox message="This collector requires a token: enter it above." />
    ) : (
      <ErrorBox message={`Could not load ${what}: ${loaded.message}`} />
    );
  }
  return <>{children(loaded.data)}</>;
}

export function Section({ title, children }: { title: string; children: ComponentChildren }) {
  return (
    <section class="panel" aria-label={title}>
      <h2>{title}</h2>
      {children}
    </section>
  );
}

export function Mono({ children, title }: { children: string; title?: string }) {
  return (
    <code class="mono" title={title ?? children}>
      {children}
    </code>
  );
}

/** A noun in the number `n` asks for: `call` for 1, `calls` otherwise. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return n === 1 ? one : many;
}

/** A count with its noun in the right number: `1 call`, `2 calls`, `1,204 calls`. */
export function counted(n: number, one: string, many = `${one}s`): string {
  return `${formatCount(n)} ${plural(n, one, many)}`;
}

/**
 * A tool version as a reader expects it: `v2`; `(unversioned)` for the producers' name for none (the proxy and
 * the MCP adapter say `unversioned`, docs/span-contract.md); nothing when the call did not say.
 */
export function versionLabel(version: string | null): string {
  if (!version) return '';
  return version === 'unversioned' ? '(unversioned)' : `v${version}`;
}

/**
 * An MCP client as a reader names it: `cursor 1.2.3`; `unknown` for calls that named no client. The name comes
 * from the agent, so it is only ever rendered as text.
 */
export function clientLabel(name: string | null, version?: string | null): string {
  if (name === null) return 'unknown';
  return version ? `${name} ${version}` : name;
}

export function short(id: string, n = 8): string {
  return id.length > n ? `${id.slice(0, n)}…` : id;
}

export type SortState<K extends string> = { key: K; desc: boolean };

export function SortHeader<K extends string>({
  label,
  sortKey,
  sort,
  onSort,
}: {
  label: string;
  sortKey: K;
  sort: SortState<K>;
  onSort: (s: SortState<K>) => void;
}) {
  const active = sort.key === sortKey;
  return (
    <th scope="col" aria-sort={active ? (sort.desc ? 'descending' : 'ascending') : 'none'}>
      <button
        type="button"
        class="sort"
        onClick={() => onSort({ key: sortKey, desc: active ? !sort.desc : true })}
      >
        {label}
        <span aria-hidden="true">{active ? (sort.desc ? ' ▾' : ' ▴') : ''}</span>
      </button>
    </th>
  );
}

/** A table's column headers. */
export function Head({ cols }: { cols: string[] }) {
  return (
    <thead>
      <tr>
        {cols.map((c) => (
          <th key={c} scope="col">
            {c}
          </th>
        ))}
      </tr>
    </thead>
  );
}

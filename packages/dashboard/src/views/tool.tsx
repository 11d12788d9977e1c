// Tool detail: who calls it (per MCP client), versions and schema hashes over time, failing paths, input shapes, latency, result sizes, failing
// calls.
import {
  callsResponseSchema,
  formatBytes,
  formatCount,
  type ToolDetailResponse,
  toolDetailResponseSchema,
} from '@toolscope/collector/schemas';
import { query } from '../api';
import { CallsChart } from '../chart';
import { useApi } from '../hooks';
import { LogHistogram } from '../log-histogram';
import { href } from '../route';
import { useFittedSeries } from '../series';
import { formatMs, formatPercent, rangeParams, type TimeRange } from '../time';
import { Head, Load, Mono, plural, Section, short, Time, versionLabel } from '../ui';
import { CallTable } from './calls';
import { Contracts } from './contracts';
import { ToolRecovery } from './recovery';
import { ResultSizes } from './result-sizes';
import { Clients } from './tool-clients';

function Versions({ versions }: { versions: ToolDetailResponse['versions'] }) {
  if (versions.length === 0) {
    return (
      <p class="state">No versioned contract reported (the tool is not wrapped with defineTool).</p>
    );
  }
  return (
    <table aria-label="versions and schema hashes">
      <Head cols={['Version', 'Schema hash', 'First seen', 'Last seen', 'Calls', 'Evidence']} />
      <tbody>
        {versions.map((v) => (
          <tr key={`${v.version}|${v.schemaHash}`} class={v.silentChange ? 'silent' : ''}>
            <td>
              {versionLabel(v.version)}
              {v.silentChange && (
                <span class="badge bad" title="another schema hash was seen under this version">
                  changed without a version bump
                </span>
              )}
            </td>
            <td>
              <Mono title={v.schemaHash}>{short(v.schemaHash, 16)}</Mono>
            </td>
            <td>
              <Time iso={v.firstSeen} />
            </td>
            <td>
              <Time iso={v.lastSeen} />
            </td>
            <td class="num">{v.calls}</td>
            <td>
              <a href={href.trace(v.lastTraceId)}>last trace</a>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Latency({ detail }: { detail: ToolDetailResponse }) {
  const buckets = detail.latency;
  if (buckets.length === 0) return <p class="state">No calls in this range.</p>;
  return (
    <LogHistogram
      buckets={buckets.map((b) => ({ from: b.fromMs, to: b.toMs, count: b.count }))}
      unit={1000}
      format={formatMs}
      label="latency distribution"
      axis="log scale"
      marks={[
        { label: 'p50', value: detail.stats.p50Ms },
        { label: 'p95', value: detail.stats.p95Ms },
        { label: 'p99', value: detail.stats.p99Ms },
      ]}
    />
  );
}

export function ToolView({ name, range, tick }: { name: string; range: TimeRange; tick: number }) {
  const params = rangeParams(range);
  const detail = useApi(
    `/api/tools/${encodeURIComponent(name)}${query(params)}`,
    toolDetailResponseSchema,
    tick,
  );
  const series = useFittedSeries(range, tick, name);
  const failing = useApi(
    `/api/calls${query({ ...params, tool: name, errors: true, limit: 20 })}`,
    callsResponseSchema,
    tick,
  );
  return (
    <>
      <h1 class="title">
        Tool <span class="tool">{name}</span>
      </h1>
      <Load loaded={detail} what="the tool">
        {(d) => (
          <>
            <div class="stats">
              <div>
                <b>{formatCount(d.stats.calls)}</b> {plural(d.stats.calls, 'call')}
              </div>
              <div class={d.stats.errors > 0 ? 'bad' : ''}>
                <b>{formatPercent(d.stats.errorRate)}</b> errors ({d.stats.errors})
              </div>
              <div>
                p50 <b>{formatMs(d.stats.p50Ms)}</b>
              </div>
              <div>
                p95 <b>{formatMs(d.stats.p95Ms)}</b>
              </div>
              <div>
                p99 <b>{formatMs(d.stats.p99Ms)}</b>
              </div>
              {d.stats.schemaTokens !== null && (
                <div title="approximate tokens (o200k) of its tools/list entry: what a client pays before calling">
                  schema <b data-field="schemaTokens">{d.stats.schemaTokens}</b>{' '}
                  {plural(d.stats.schemaTokens, 'token')}
                </div>
              )}
              {d.stats.resultTokensP95 !== null && (
                <div title="approximate tokens of its results at p95: what a call costs the model's context">
                  result p95{' '}
                  <b data-field="resultTokensP95">{formatCount(d.stats.resultTokensP95)}</b>{' '}
                  {plural(d.stats.resultTokensP95, 'token')}({formatBytes(d.stats.resultBytesP95)})
                </div>
              )}
              {d.stats.exceptions.length > 0 && (
                <div class="bad" title="what its failing calls threw, most frequent first">
                  threw{' '}
                  <b data-field="exceptions">
                    {d.stats.exceptions.map((e) => `${e.type} ×${e.count}`).join(', ')}
                  </b>
                </div>
              )}
              <div title="each call counted once: from the server's span when both sides were traced">
                from <b data-field="sources">{d.stats.sources.join(', ') || '–'}</b>
              </div>
            </div>
            <Section title="Clients">
              <Clients clients={d.clients} calls={d.stats.calls} />
            </Section>
            <Section title="Versions and schema hashes">
              <Versions versions={d.versions} />
            </Section>
            <Section title="Contracts">
              <Contracts name={name} tick={tick} />
            </Section>
            <Section title="Top failing validation paths">
              {d.failingPaths.length === 0 ? (
                <p class="state">No validation failures in this range.</p>
              ) : (
                <table aria-label="failing paths">
                  <Head cols={['Path', 'Code', 'Count', 'Evidence']} />
                  <tbody>
                    {d.failingPaths.map((p) => (
                      <tr key={`${p.code}|${p.path}`}>
                        <td>
                          <Mono>{p.path || '(root)'}</Mono>
                        </td>
                        <td>{p.code}</td>
                        <td class="num">{p.count}</td>
                        <td>
                          <a href={href.trace(p.lastTraceId)}>last trace</a>
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
            </Section>
            <Section title="Input shapes seen">
              {d.shapes.length === 0 ? (
                <p class="state">No input shapes recorded in this range.</p>
              ) : (
                <table aria-label="input shapes">
                  <Head cols={['Shape', 'Calls', 'Invalid', 'Last seen']} />
                  <tbody>
                    {d.shapes.map((s) => (
                      <tr key={s.shape} class={s.invalid > 0 ? 'bad-row' : ''}>
                        <td>
                          <Mono>{s.shape}</Mono>
                        </td>
                        <td class="num">{s.calls}</td>
                        <td class="num">{s.invalid}</td>
                        <td>
                          <Time iso={s.lastSeen} />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
            </Section>
            <Section title="Latency distribution">
              <Latency detail={d} />
            </Section>
            <Section title="Result size (what each call returns to the model)">
              <ResultSizes detail={d} />
            </Section>
          </>
        )}
      </Load>
      <ToolRecovery name={name} range={range} tick={tick} />
      <Section title="Calls and error rate over time">
        <Load loaded={series} what="the time series">
          {(s) => <CallsChart points={s.points} label={`calls and error rate of ${name}`} />}
        </Load>
      </Section>
      <Section title="Recent failing calls">
        <Load loaded={failing} what="failing calls">
          {(c) => <CallTable calls={c.calls} />}
        </Load>
      </Section>
    </>
  );
}

// What a tool's results cost the model's context: the distribution of result bytes over the range,
// and p50/p95/max of bytes and approximate tokens per version, oldest first, so a version that returns more
// stands next to the one before it.
import { formatBytes, formatCount, type ToolDetailResponse } from '@toolscope/collector/schemas';
import { LogHistogram } from '../log-histogram';
import { Head, Time, versionLabel } from '../ui';

export function ResultSizes({ detail }: { detail: ToolDetailResponse }) {
  const versions = detail.stats.resultSizes;
  if (versions.length === 0) {
    return (
      <p class="state">
        No result sizes in this range (calls from before sizes were recorded, or from an
        instrumentation that does not report the result).
      </p>
    );
  }
  return (
    <>
      <LogHistogram
        buckets={detail.resultBytes.map((b) => ({
          from: b.fromBytes,
          to: b.toBytes,
          count: b.count,
        }))}
        unit={1}
        format={formatBytes}
        label="result size distribution"
        axis="result bytes, log scale"
        marks={[
          { label: 'p50', value: detail.stats.resultBytesP50 },
          { label: 'p95', value: detail.stats.resultBytesP95 },
        ]}
      />
      <table aria-label="result sizes per version">
        <Head
          cols={[
            'Version',
            'Calls',
            'p50 bytes',
            'p95 bytes',
            'max bytes',
            'p50 tokens',
            'p95 tokens',
            'max tokens',
            'First seen',
          ]}
        />
        <tbody>
          {versions.map((v) => (
            <tr key={v.version ?? ''} data-version={v.version ?? ''}>
              <td>{versionLabel(v.version) || '(unversioned)'}</td>
              <td class="num">{formatCount(v.measured)}</td>
              <td class="num">{formatBytes(v.bytesP50)}</td>
              <td class="num" data-field="bytesP95">
                {formatBytes(v.bytesP95)}
              </td>
              <td class="num">{formatBytes(v.bytesMax)}</td>
              <td class="num">{formatCount(v.tokensP50)}</td>
              <td class="num" data-field="tokensP95">
                {formatCount(v.tokensP95)}
              </td>
              <td class="num">{formatCount(v.tokensMax)}</td>
              <td>
                <Time iso={v.firstSeen} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <p class="note">
        Bytes are exact per call; tokens are estimated (within about 25 % of o200k for JSON).
        Percentiles come from 5 %-wide buckets.
      </p>
    </>
  );
}
